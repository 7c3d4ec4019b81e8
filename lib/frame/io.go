package frame

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/tailscope/tailscope/lib/internal/memlimit"
)

// format is a file format chosen by extension.
type format int

const (
	parquetFormat format = iota
	arrowFormat
)

func formatOf(path string) (format, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".parquet":
		return parquetFormat, nil
	case ".arrow":
		return arrowFormat, nil
	default:
		return 0, fmt.Errorf("frame: %s: unknown extension %q (want .parquet or .arrow)", path, ext)
	}
}

// WriteTable writes t to path: Parquet with zstd compression for a
// ".parquet" path, the Arrow IPC file format for ".arrow". Columns are
// non-nullable. The file carries a SHA-256 digest of itself in its metadata,
// which ReadTable checks. t.Meta.WallSeconds and Timings go to a run log
// beside the frame (see RunLogPath), not into it, so that reruns of the same
// spec, seed and options write byte-identical frames. The file is removed
// again if writing fails.
func WriteTable(path string, t *Table) (err error) {
	ff, err := formatOf(path)
	if err != nil {
		return err
	}
	if err := t.check(); err != nil {
		return fmt.Errorf("frame: %s: %w", path, err)
	}
	if err := t.checkNoMarker(); err != nil {
		return fmt.Errorf("frame: %s: %w", path, err)
	}
	md, err := t.Meta.arrowMetadata()
	if err != nil {
		return fmt.Errorf("frame: %s: %w", path, err)
	}
	rec := t.record(md)
	defer rec.Release()

	// Write a temporary file beside path and rename it into place, so that
	// a reader (or a sweep resumed after a kill) never sees half a frame.
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("frame: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("frame: %s: %w", path, cerr)
		}
		if err == nil {
			if err = os.Rename(f.Name(), path); err != nil {
				err = fmt.Errorf("frame: %w", err)
			}
		}
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	switch ff {
	case parquetFormat:
		err = writeParquet(f, rec)
	case arrowFormat:
		err = writeIPC(f, rec)
	}
	if err == nil {
		err = finish(f, path, t.Meta)
	}
	if err != nil {
		return fmt.Errorf("frame: writing %s: %w", path, err)
	}
	return nil
}

// finish seals the frame just written to the temporary file f (with
// meta's metadata, digest placeholder included) and writes the run log of
// path, the frame's final name. Every frame writer calls it before renaming
// f into place, so that a frame never has a run log of an earlier version
// of it.
func finish(f *os.File, path string, meta Meta) error {
	digest, err := seal(f)
	if err != nil {
		return err
	}
	return writeRunLog(path, digest, meta)
}

// record builds an Arrow record batch holding t's columns.
func (t *Table) record(md arrow.Metadata) arrow.Record {
	mem := memory.DefaultAllocator
	fields := make([]arrow.Field, len(t.Columns))
	arrs := make([]arrow.Array, len(t.Columns))
	for i := range t.Columns {
		c := &t.Columns[i]
		switch {
		case c.Int64 != nil:
			b := array.NewInt64Builder(mem)
			b.AppendValues(c.Int64, nil)
			arrs[i] = b.NewArray()
			b.Release()
		case c.Float64 != nil:
			b := array.NewFloat64Builder(mem)
			b.AppendValues(c.Float64, nil)
			arrs[i] = b.NewArray()
			b.Release()
		default:
			b := array.NewStringBuilder(mem)
			b.AppendValues(c.String, nil)
			arrs[i] = b.NewArray()
			b.Release()
		}
		fields[i] = arrow.Field{Name: c.Name, Type: arrs[i].DataType()}
	}
	rec := array.NewRecord(arrow.NewSchema(fields, &md), arrs, int64(t.Len()))
	for _, a := range arrs {
		a.Release()
	}
	return rec
}

func writeParquet(f *os.File, rec arrow.Record) error {
	props := writerProperties()
	// Hide f's Close: the parquet writer closes a Closer, and WriteTable
	// closes f itself to report the error.
	w, err := pqarrow.NewFileWriter(rec.Schema(), struct{ io.Writer }{f}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// writerProperties are the Parquet settings of every frame: zstd pages,
// and no dictionary for the columns that hold a distinct value per flow,
// where the dictionary only grows until the writer falls back to plain
// pages (in m3's records the dictionary's hashing took a quarter of the
// whole run's CPU).
func writerProperties() *parquet.WriterProperties {
	return parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		// arrow/go v15 marks the root group REPEATED by default, which
		// some readers (hyparquet) reject.
		parquet.WithRootRepetition(parquet.Repetitions.Required),
		parquet.WithDictionaryFor(ColFlowID, false),
		parquet.WithDictionaryFor(ColStartNs, false),
		parquet.WithDictionaryFor(ColFCTNs, false),
		parquet.WithDictionaryFor(ColSlowdown, false),
	)
}

func writeIPC(f *os.File, rec arrow.Record) error {
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(rec.Schema()))
	if err != nil {
		return err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// ReadTable reads a frame written by WriteTable, or any Parquet or Arrow IPC
// file whose columns are non-null int64 (or int32, read as int64), float64
// or string values. A frame
// with tailscope metadata must carry the digest WriteTable writes, and the
// file must still match it; Meta.WallSeconds and Timings come from the run
// log beside the frame, if there is one. Corrupted or malformed input is an error
// naming the file, never a panic.
func ReadTable(path string) (*Table, error) {
	ff, err := formatOf(path)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("frame: %w", err)
	}
	t, err := decode(b, ff)
	if err != nil {
		return nil, fmt.Errorf("frame: reading %s: %w", path, err)
	}
	if err := readRunLog(path, t.digest, &t.Meta); err != nil {
		return nil, err
	}
	return t.Table, nil
}

// decoded is a table with the digest its file was checked against.
type decoded struct {
	*Table
	digest string
}

// decode checks the digest of a frame file's bytes b and decodes them.
// Frames are checked before decoding because the decoders are not safe on
// corrupted input; for files without a digest (written by other programs)
// decode recovers from a decoder's panic instead.
func decode(b []byte, ff format) (d decoded, err error) {
	digest, err := verifyDigest(b)
	if err != nil && !errors.Is(err, errNoDigest) {
		return decoded{}, err
	}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(overBudget); ok {
				d, err = decoded{}, fmt.Errorf("corrupted or malformed file: %w", e)
				return
			}
			d, err = decoded{}, fmt.Errorf("corrupted or malformed file: decoder failed: %v", r)
		}
	}()
	var kv metaKV
	switch ff {
	case parquetFormat:
		d.Table, kv, err = readParquet(bytes.NewReader(b))
	case arrowFormat:
		if err = checkIPCFooter(b); err == nil {
			d.Table, kv, err = readIPC(bytes.NewReader(b))
		}
	}
	if err == nil {
		err = d.Table.check()
	}
	if err != nil {
		return decoded{}, err
	}
	if d.Meta, err = kv.meta(digest); err != nil {
		return decoded{}, err
	}
	return decoded{d.Table, digest}, nil
}

// readParquet decodes a Parquet file column by column in the caller's
// goroutine: pqarrow's ReadTable decodes in goroutines of its own, where a
// decoder's panic cannot be recovered.
func readParquet(r *bytes.Reader) (*Table, metaKV, error) {
	// Buffered streams: unbuffered, arrow/go reads a column chunk into a
	// slice of the length the file's metadata states, outside any
	// allocator.
	mem := &budget{limit: memoryLimit()}
	props := parquet.NewReaderProperties(mem)
	props.BufferedStreamEnabled = true
	pf, err := file.NewParquetReader(r, file.WithReadProps(props))
	if err != nil {
		return nil, metaKV{}, err
	}
	defer pf.Close()
	var kv metaKV
	for _, e := range pf.MetaData().KeyValueMetadata() {
		v := ""
		if e.Value != nil {
			v = *e.Value
		}
		kv.keys, kv.vals = append(kv.keys, e.Key), append(kv.vals, v)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, mem)
	if err != nil {
		return nil, metaKV{}, err
	}
	rows := pf.NumRows()
	t := &Table{}
	for i, fd := range fr.Manifest.Fields {
		c, err := newColumn(fd.Field.Name, fd.Field.Type)
		if err != nil {
			return nil, metaKV{}, err
		}
		cr, err := fr.GetColumn(context.Background(), i)
		if err != nil {
			return nil, metaKV{}, err
		}
		chunked, err := cr.NextBatch(rows)
		cr.Release()
		if err != nil {
			return nil, metaKV{}, fmt.Errorf("column %q: %w", c.Name, err)
		}
		for _, chunk := range chunked.Chunks() {
			if err = c.appendArray(chunk); err != nil {
				break
			}
		}
		chunked.Release()
		if err != nil {
			return nil, metaKV{}, err
		}
		if int64(c.Len()) != rows {
			return nil, metaKV{}, fmt.Errorf("column %q has %d values but the file has %d rows", c.Name, c.Len(), rows)
		}
		t.Columns = append(t.Columns, c)
	}
	return t, kv, nil
}

// memoryLimit is the most a decode may hold at once (budget).
var memoryLimit = memlimit.Total

// budget is the allocator of a decode: arrow/go's readers allocate
// whatever lengths a file's metadata states, and the runtime's "out of
// memory" is fatal, so a damaged length would end the program. budget
// panics with overBudget instead once the decode would hold more than
// limit bytes; decode makes that an error. (The Parquet decode runs in
// the caller's goroutine, readParquet says why, so one budget needs no
// lock.)
type budget struct{ used, limit int64 }

// overBudget is the panic of a budget's refusal.
type overBudget struct{ asked, limit int64 }

func (e overBudget) Error() string {
	return fmt.Sprintf("decoding it would hold %s at once, more than this machine's %s of memory (a damaged length)", memlimit.Bytes(e.asked), memlimit.Bytes(e.limit))
}

func (b *budget) take(n int64) {
	if n > b.limit-b.used {
		panic(overBudget{b.used + n, b.limit})
	}
	b.used += n
}

func (b *budget) Allocate(size int) []byte {
	b.take(int64(size))
	return memory.DefaultAllocator.Allocate(size)
}

func (b *budget) Reallocate(size int, old []byte) []byte {
	b.take(int64(size - len(old)))
	return memory.DefaultAllocator.Reallocate(size, old)
}

func (b *budget) Free(old []byte) {
	b.used -= int64(len(old))
	memory.DefaultAllocator.Free(old)
}

// checkIPCFooter refuses an Arrow IPC file b whose footer states a
// vector longer than the footer could hold: arrow/go v15 makes the
// schema's field list of that length outside any allocator. Anything
// else it leaves to the reader (out-of-range reads panic, and decode
// recovers).
func checkIPCFooter(b []byte) error {
	n := len(b)
	if n < 18 {
		return nil
	}
	size := int(int32(binary.LittleEndian.Uint32(b[n-10:])))
	if size < 8 || size > n-18 {
		return nil
	}
	fb := b[n-10-size : n-10]
	// Flatbuffer slots of Arrow's File.fbs and Schema.fbs: Footer schema
	// 6, dictionaries 8, recordBatches 10; Schema fields 6,
	// custom_metadata 8; Field children 14, custom_metadata 16.
	check := func(t flatbuffers.Table, slot flatbuffers.VOffsetT, elem int, what string) error {
		if o := flatbuffers.UOffsetT(t.Offset(slot)); o != 0 {
			if l := t.VectorLen(o); l < 0 || l > len(fb)/elem {
				return fmt.Errorf("its footer states %d %s in %d bytes (a damaged length)", uint32(l), what, len(fb))
			}
		}
		return nil
	}
	footer := flatbuffers.Table{Bytes: fb, Pos: flatbuffers.GetUOffsetT(fb)}
	for _, v := range []struct {
		slot flatbuffers.VOffsetT
		elem int
		what string
	}{{8, 24, "dictionary blocks"}, {10, 24, "record batch blocks"}} {
		if err := check(footer, v.slot, v.elem, v.what); err != nil {
			return err
		}
	}
	o := flatbuffers.UOffsetT(footer.Offset(6))
	if o == 0 {
		return nil
	}
	schema := flatbuffers.Table{Bytes: fb, Pos: footer.Indirect(o + footer.Pos)}
	if err := check(schema, 8, 4, "metadata entries"); err != nil {
		return err
	}
	// The fields, and their children's fields, each with its metadata:
	// arrow/go makes each list at its stated length too.
	var fields func(t flatbuffers.Table, slot flatbuffers.VOffsetT, depth int) error
	fields = func(t flatbuffers.Table, slot flatbuffers.VOffsetT, depth int) error {
		if err := check(t, slot, 4, "fields"); err != nil {
			return err
		}
		o := flatbuffers.UOffsetT(t.Offset(slot))
		if o == 0 {
			return nil
		}
		if depth > 64 {
			return fmt.Errorf("its footer nests fields more than 64 deep (a damaged offset)")
		}
		v := t.Vector(o)
		for i := range t.VectorLen(o) {
			f := flatbuffers.Table{Bytes: fb, Pos: t.Indirect(v + flatbuffers.UOffsetT(4*i))}
			if err := check(f, 16, 4, "field metadata entries"); err != nil {
				return err
			}
			if err := fields(f, 14, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return fields(schema, 6, 0)
}

func readIPC(r *bytes.Reader) (*Table, metaKV, error) {
	ir, err := ipc.NewFileReader(r, ipc.WithAllocator(&budget{limit: memoryLimit()}))
	if err != nil {
		return nil, metaKV{}, err
	}
	defer ir.Close()
	sc := ir.Schema()
	kv := metaKV{sc.Metadata().Keys(), sc.Metadata().Values()}
	t := &Table{Columns: make([]Column, sc.NumFields())}
	for i, fd := range sc.Fields() {
		if t.Columns[i], err = newColumn(fd.Name, fd.Type); err != nil {
			return nil, metaKV{}, err
		}
	}
	for b := 0; b < ir.NumRecords(); b++ {
		rec, err := ir.Record(b)
		if err != nil {
			return nil, metaKV{}, err
		}
		for i := range t.Columns {
			if err := t.Columns[i].appendArray(rec.Column(i)); err != nil {
				return nil, metaKV{}, err
			}
		}
	}
	return t, kv, nil
}

// newColumn returns an empty column for an Arrow type Table can hold.
func newColumn(name string, dt arrow.DataType) (Column, error) {
	switch dt.ID() {
	case arrow.INT64, arrow.INT32:
		// int32 is what R's arrow writes for integer vectors.
		return Int64Column(name, nil), nil
	case arrow.FLOAT64:
		return Float64Column(name, nil), nil
	case arrow.STRING:
		return StringColumn(name, nil), nil
	}
	return Column{}, fmt.Errorf("column %q has type %s; frames hold int64, float64 and string columns", name, dt)
}

// appendArray appends the values of a, which has the column's type.
func (c *Column) appendArray(a arrow.Array) error {
	if a.NullN() > 0 {
		return fmt.Errorf("column %q has %d null values; frames have none", c.Name, a.NullN())
	}
	switch a := a.(type) {
	case *array.Int64:
		c.Int64 = append(c.Int64, a.Int64Values()...)
	case *array.Int32:
		for _, v := range a.Int32Values() {
			c.Int64 = append(c.Int64, int64(v))
		}
	case *array.Float64:
		c.Float64 = append(c.Float64, a.Float64Values()...)
	case *array.String:
		for i := 0; i < a.Len(); i++ {
			c.String = append(c.String, a.Value(i))
		}
	default:
		return fmt.Errorf("column %q: unexpected array type %T", c.Name, a)
	}
	return nil
}

// ReadMeta reads the metadata of the frame at path without its columns:
// for Parquet only the file's footer, so that asking what made a large
// frame (its estimator, its options) costs little. Unlike ReadTable it
// does not check the file's digest against its bytes; the run log's
// times are not read. An Arrow IPC frame is read whole.
func ReadMeta(path string) (m Meta, err error) {
	ff, err := formatOf(path)
	if err != nil {
		return Meta{}, err
	}
	if ff == arrowFormat {
		t, err := ReadTable(path)
		if err != nil {
			return Meta{}, err
		}
		m = t.Meta
		m.WallSeconds, m.Timings, m.Build = 0, nil, ""
		return m, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return Meta{}, fmt.Errorf("frame: %w", err)
	}
	defer f.Close()
	defer func() {
		if r := recover(); r != nil {
			m, err = Meta{}, fmt.Errorf("frame: reading %s: corrupted or malformed file: decoder failed: %v", path, r)
		}
	}()
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return Meta{}, fmt.Errorf("frame: reading %s: %w", path, err)
	}
	defer pf.Close()
	var kv metaKV
	digest := ""
	for _, e := range pf.MetaData().KeyValueMetadata() {
		v := ""
		if e.Value != nil {
			v = *e.Value
		}
		if e.Key == keyDigest {
			digest = v
		}
		kv.keys, kv.vals = append(kv.keys, e.Key), append(kv.vals, v)
	}
	if m, err = kv.meta(digest); err != nil {
		return Meta{}, fmt.Errorf("frame: reading %s: %w", path, err)
	}
	return m, nil
}
