// Usage: node read.mjs FILE
//
// Prints a tailscope frame as JSON, read by implementations independent of
// arrow-go: hyparquet (with hyparquet-compressors for zstd) for .parquet,
// apache-arrow (JS) for .arrow (Arrow IPC file format). Output:
//
//   {"format": "parquet"|"arrow",
//    "schema": [{"name", "type", "logical", "repetition"}...],
//    "metadata": {key: value...},
//    "codecs": [compression codecs of the column chunks] (Parquet only),
//    "rows": [{column: value...}...]}
//
// 64-bit integers are printed as decimal strings (JSON numbers are doubles
// and would round them above 2^53); NaN and infinities, which JSON cannot
// hold, as the strings "NaN", "Infinity" and "-Infinity".
import { readFileSync } from 'node:fs'
import { parquetMetadata, parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import { tableFromIPC } from 'apache-arrow'

function value(v) {
  if (typeof v === 'bigint') return v.toString()
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v)
  return v
}

async function readParquet(bytes) {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
  const md = parquetMetadata(file)
  // schema[0] is the root group; the rest are the (flat) columns.
  const schema = md.schema.slice(1).map(e => ({
    name: e.name,
    type: e.type,
    logical: e.logical_type?.type ?? e.converted_type ?? null,
    repetition: e.repetition_type,
  }))
  const metadata = {}
  for (const { key, value: v } of md.key_value_metadata ?? []) metadata[key] = v
  const objs = await parquetReadObjects({ file, compressors })
  const rows = objs.map(o => Object.fromEntries(schema.map(c => [c.name, value(o[c.name])])))
  const codecs = [...new Set(md.row_groups.flatMap(g => g.columns.map(c => c.meta_data.codec)))]
  return { format: 'parquet', schema, metadata, codecs, rows }
}

function readArrow(bytes) {
  const table = tableFromIPC(bytes)
  const fields = table.schema.fields
  const schema = fields.map(f => ({
    name: f.name,
    type: String(f.type),
    logical: null,
    repetition: f.nullable ? 'OPTIONAL' : 'REQUIRED',
  }))
  const metadata = Object.fromEntries(table.schema.metadata)
  const cols = fields.map((f, j) => table.getChildAt(j))
  const rows = []
  for (let i = 0; i < table.numRows; i++) {
    rows.push(Object.fromEntries(fields.map((f, j) => [f.name, value(cols[j].get(i))])))
  }
  return { format: 'arrow', schema, metadata, rows }
}

const path = process.argv[2]
if (!path) {
  console.error('usage: node read.mjs FILE.parquet|FILE.arrow')
  process.exit(2)
}
try {
  const bytes = readFileSync(path)
  let out
  if (path.endsWith('.parquet')) out = await readParquet(bytes)
  else if (path.endsWith('.arrow')) out = readArrow(bytes)
  else throw new Error(`unknown extension (want .parquet or .arrow): ${path}`)
  process.stdout.write(JSON.stringify(out) + '\n')
} catch (e) {
  console.error(`read.mjs: ${path}: ${e.message}`)
  process.exit(1)
}
