package frame

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// This file checks that frames are readable by implementations other than
// arrow-go: tools/parquetcheck/read.mjs reads Parquet with hyparquet and
// Arrow IPC with apache-arrow (JavaScript) and prints every value, which is
// compared with the structs the frame was written from.

// wantCol is a column as the test expects it: its type ("int64", "float64"
// or "string") and one value per row (int64, float64 or string).
type wantCol struct {
	name, typ string
	vals      []any
}

func intCol(name string, n int, f func(i int) int64) wantCol {
	c := wantCol{name: name, typ: "int64", vals: make([]any, n)}
	for i := range c.vals {
		c.vals[i] = f(i)
	}
	return c
}

func floatCol(name string, n int, f func(i int) float64) wantCol {
	c := wantCol{name: name, typ: "float64", vals: make([]any, n)}
	for i := range c.vals {
		c.vals[i] = f(i)
	}
	return c
}

func stringCol(name string, n int, f func(i int) string) wantCol {
	c := wantCol{name: name, typ: "string", vals: make([]any, n)}
	for i := range c.vals {
		c.vals[i] = f(i)
	}
	return c
}

// wantMeta lists the metadata every frame written with m must carry.
func wantMeta(m Meta) map[string]string {
	w := map[string]string{
		"tailscope.version":     m.Version,
		"tailscope.scenario_id": m.ScenarioID,
		"tailscope.estimator":   m.Estimator,
		"tailscope.network":     m.Network,
		"tailscope.spec":        m.Spec,
		"tailscope.seed":        strconv.FormatUint(m.Seed, 10),
		"tailscope.options":     m.Options,
	}
	if m.Version == "" {
		w["tailscope.version"] = Version
	}
	for k, v := range m.Extra {
		w["tailscope.extra."+k] = v
	}
	return w
}

// readerOutput is what read.mjs prints.
type readerOutput struct {
	Format string `json:"format"`
	Schema []struct {
		Name       string  `json:"name"`
		Type       string  `json:"type"`
		Logical    *string `json:"logical"`
		Repetition string  `json:"repetition"`
	} `json:"schema"`
	Metadata map[string]string `json:"metadata"`
	Codecs   []string          `json:"codecs"`
	Rows     []map[string]any  `json:"rows"`
}

// nodeReader returns the command line that runs read.mjs, failing the test
// (not skipping it) when Node.js or the npm packages are missing.
func nodeReader(t *testing.T) (node, script string) {
	t.Helper()
	const fix = "run `make deps` (Debian packages nodejs and npm, then npm ci --prefix tools/parquetcheck)"
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("the independent Parquet/Arrow check needs Node.js, which is not on PATH: %s", fix)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("cannot find the repository root from %s: %v", root, err)
	}
	dir := filepath.Join(root, "tools", "parquetcheck")
	for _, p := range []string{"hyparquet", "hyparquet-compressors", "apache-arrow"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", p, "package.json")); err != nil {
			t.Fatalf("npm package %s is not installed in %s: %s", p, dir, fix)
		}
	}
	return node, filepath.Join(dir, "read.mjs")
}

func readIndependently(t *testing.T, path string) readerOutput {
	t.Helper()
	node, script := nodeReader(t)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(node, script, path)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node read.mjs %s: %v\n%s", path, err, stderr.String())
	}
	var out readerOutput
	dec := json.NewDecoder(&stdout)
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("read.mjs %s printed invalid JSON: %v", path, err)
	}
	return out
}

// physical types as each independent reader names them.
var typeNames = map[string]map[string]string{
	"parquet": {"int64": "INT64", "float64": "DOUBLE", "string": "BYTE_ARRAY"},
	"arrow":   {"int64": "Int64", "float64": "Float64", "string": "Utf8"},
}

// compareIndependent checks the reader's view of path against cols and
// the metadata m.
func compareIndependent(t *testing.T, path string, cols []wantCol, m Meta) {
	t.Helper()
	out := readIndependently(t, path)
	wantFormat := strings.TrimPrefix(filepath.Ext(path), ".")
	if out.Format != wantFormat {
		t.Fatalf("%s: format %q, want %q", path, out.Format, wantFormat)
	}
	if wantFormat == "parquet" && (len(out.Codecs) != 1 || out.Codecs[0] != "ZSTD") {
		t.Errorf("%s: compression codecs %v, want [ZSTD]", path, out.Codecs)
	}
	if len(out.Schema) != len(cols) {
		t.Fatalf("%s: %d columns, want %d", path, len(out.Schema), len(cols))
	}
	for i, c := range cols {
		s := out.Schema[i]
		if s.Name != c.name || s.Type != typeNames[wantFormat][c.typ] || s.Repetition != "REQUIRED" {
			t.Errorf("%s: column %d is %s %s %s, want %s %s REQUIRED", path, i, s.Name, s.Type, s.Repetition, c.name, typeNames[wantFormat][c.typ])
		}
		if wantFormat == "parquet" && c.typ == "string" && (s.Logical == nil || *s.Logical != "STRING") {
			t.Errorf("%s: string column %s lacks the STRING logical type", path, c.name)
		}
	}
	for k, v := range wantMeta(m) {
		if got, ok := out.Metadata[k]; !ok || got != v {
			t.Errorf("%s: metadata %s = %q (present %v), want %q", path, k, got, ok, v)
		}
	}
	if _, ok := out.Metadata["tailscope.wall_seconds"]; ok {
		t.Errorf("%s: the wall time is in the frame; it belongs in the run log", path)
	}
	checkDigest(t, path, out.Metadata["tailscope.digest"])
	n := 0
	if len(cols) > 0 {
		n = len(cols[0].vals)
	}
	if len(out.Rows) != n {
		t.Fatalf("%s: %d rows, want %d", path, len(out.Rows), n)
	}
	bad := 0
	for r, row := range out.Rows {
		for _, c := range cols {
			if err := sameValue(row[c.name], c.vals[r]); err != "" && bad < 10 {
				bad++
				t.Errorf("%s: row %d column %s: %s", path, r, c.name, err)
			}
		}
	}
}

// checkDigest checks the digest the independent reader found in the
// metadata: the SHA-256 of the file's bytes with the hex digits of every
// copy of it read as '0'.
func checkDigest(t *testing.T, path, digest string) {
	t.Helper()
	hexd, ok := strings.CutPrefix(digest, "tailscope-sha256:")
	if !ok || len(hexd) != 64 {
		t.Fatalf("%s: metadata tailscope.digest = %q, want tailscope-sha256: and 64 hex digits", path, digest)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	copies := bytes.Count(b, []byte(hexd))
	if want := map[string]int{".parquet": 1, ".arrow": 2}[filepath.Ext(path)]; copies != want {
		t.Errorf("%s: %d copies of the digest in the file, want %d", path, copies, want)
	}
	zeroed := bytes.ReplaceAll(b, []byte(hexd), bytes.Repeat([]byte("0"), 64))
	if got := fmt.Sprintf("%x", sha256.Sum256(zeroed)); got != hexd {
		t.Errorf("%s: SHA-256 with the digest zeroed is %s, metadata says %s", path, got, hexd)
	}
}

// sameValue compares a value as read.mjs printed it (int64 as a decimal
// string, non-finite floats as strings, other floats as JSON numbers) with
// the value written.
func sameValue(got, want any) string {
	switch w := want.(type) {
	case int64:
		if s, ok := got.(string); !ok || s != strconv.FormatInt(w, 10) {
			return "got " + fmtAny(got) + ", want " + strconv.FormatInt(w, 10)
		}
	case float64:
		var s string
		switch g := got.(type) {
		case json.Number:
			s = g.String()
		case string:
			s = g
		default:
			return "got " + fmtAny(got) + ", want a number"
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || !(f == w && math.Signbit(f) == math.Signbit(w) || math.IsNaN(f) && math.IsNaN(w)) {
			return "got " + s + ", want " + strconv.FormatFloat(w, 'g', -1, 64)
		}
	case string:
		if s, ok := got.(string); !ok || s != w {
			return "got " + fmtAny(got) + ", want " + strconv.Quote(w)
		}
	}
	return ""
}

func fmtAny(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestIndependentReaderRecords(t *testing.T) {
	recs, meta := testRecords(300), testMeta()
	n := len(recs)
	cols := []wantCol{
		stringCol("scenario_id", n, func(int) string { return meta.ScenarioID }),
		stringCol("estimator", n, func(int) string { return meta.Estimator }),
		intCol("flow_id", n, func(i int) int64 { return int64(recs[i].FlowID) }),
		intCol("src", n, func(i int) int64 { return int64(recs[i].Src) }),
		intCol("dst", n, func(i int) int64 { return int64(recs[i].Dst) }),
		intCol("size_bytes", n, func(i int) int64 { return recs[i].Size }),
		intCol("start_ns", n, func(i int) int64 { return recs[i].Start }),
		intCol("fct_ns", n, func(i int) int64 { return recs[i].FCT }),
		intCol("ideal_fct_ns", n, func(i int) int64 { return recs[i].Ideal }),
		floatCol("slowdown", n, func(i int) float64 { return recs[i].Slowdown }),
		intCol("class", n, func(i int) int64 { return int64(recs[i].Class) }),
	}
	for _, ext := range exts {
		path := filepath.Join(t.TempDir(), "records"+ext)
		if err := WriteRecords(path, recs, meta); err != nil {
			t.Fatal(err)
		}
		compareIndependent(t, path, cols, meta)
		// The same records streamed in groups of 64 (five groups).
		path = filepath.Join(t.TempDir(), "streamed"+ext)
		w, err := NewRecordWriter(path, meta)
		if err != nil {
			t.Fatal(err)
		}
		w.group = 64
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(nil, 0, nil); err != nil {
			t.Fatal(err)
		}
		compareIndependent(t, path, cols, meta)
	}
}

func TestIndependentReaderFlows(t *testing.T) {
	for _, nflows := range []int{0, 200} {
		flows, meta := testFlows(nflows), Meta{ScenarioID: "flows", Seed: 0, WallSeconds: 2.5e-7, Build: Build()}
		n := len(flows)
		cols := []wantCol{
			intCol("flow_id", n, func(i int) int64 { return int64(flows[i].ID) }),
			intCol("src", n, func(i int) int64 { return int64(flows[i].Src) }),
			intCol("dst", n, func(i int) int64 { return int64(flows[i].Dst) }),
			intCol("size_bytes", n, func(i int) int64 { return flows[i].Size }),
			intCol("start_ns", n, func(i int) int64 { return flows[i].Start }),
			intCol("class", n, func(i int) int64 { return int64(flows[i].Class) }),
		}
		for _, ext := range exts {
			path := filepath.Join(t.TempDir(), "flows"+ext)
			if err := WriteFlows(path, flows, meta); err != nil {
				t.Fatal(err)
			}
			compareIndependent(t, path, cols, meta)
		}
	}
}

func TestIndependentReaderTopology(t *testing.T) {
	net := testNetwork(t)
	meta := Meta{ScenarioID: "topo", Spec: `{"pods":2}`}
	nd, ch := net.Nodes, net.Channels
	nodeCols := []wantCol{
		intCol("node_id", len(nd), func(i int) int64 { return int64(nd[i].ID) }),
		stringCol("kind", len(nd), func(i int) string {
			if net.IsHost(nd[i].ID) {
				return "Host"
			}
			return "Switch"
		}),
		intCol("rack", len(nd), func(i int) int64 { return int64(nd[i].Rack) }),
		intCol("pod", len(nd), func(i int) int64 { return int64(nd[i].Pod) }),
	}
	chanCols := []wantCol{
		intCol("channel_id", len(ch), func(i int) int64 { return int64(ch[i].ID) }),
		intCol("link_id", len(ch), func(i int) int64 { return int64(ch[i].Link) }),
		intCol("src", len(ch), func(i int) int64 { return int64(ch[i].Src) }),
		intCol("dst", len(ch), func(i int) int64 { return int64(ch[i].Dst) }),
		intCol("bandwidth_bps", len(ch), func(i int) int64 { return ch[i].Bandwidth }),
		intCol("delay_ns", len(ch), func(i int) int64 { return ch[i].Delay }),
	}
	written := meta
	written.Network = net.Name
	for _, ext := range exts {
		dir := t.TempDir()
		np, cp := filepath.Join(dir, "nodes"+ext), filepath.Join(dir, "channels"+ext)
		if err := WriteTopology(np, cp, net, meta); err != nil {
			t.Fatal(err)
		}
		compareIndependent(t, np, nodeCols, written)
		compareIndependent(t, cp, chanCols, written)
	}
}

// Values at the edges of each type: int64 extremes, IEEE special values,
// strings JSON and UTF-8 must carry intact.
func TestIndependentReaderEdgeValues(t *testing.T) {
	ints := []int64{0, -1, 1<<53 + 1, math.MaxInt64, math.MinInt64, -(1 << 62)}
	floats := []float64{0.1 + 0.2, math.NaN(), math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64, math.MaxFloat64}
	strs := []string{"", "µs ✓", "quote \" backslash \\", "tab\tnew\nline", "🙂", strings.Repeat("long", 1000)}
	meta := testMeta()
	tab := &Table{Meta: meta, Columns: []Column{Int64Column("i", ints), Float64Column("f", floats), StringColumn("s", strs)}}
	n := len(ints)
	cols := []wantCol{
		intCol("i", n, func(i int) int64 { return ints[i] }),
		floatCol("f", n, func(i int) float64 { return floats[i] }),
		stringCol("s", n, func(i int) string { return strs[i] }),
	}
	for _, ext := range exts {
		path := filepath.Join(t.TempDir(), "edge"+ext)
		if err := WriteTable(path, tab); err != nil {
			t.Fatal(err)
		}
		compareIndependent(t, path, cols, meta)
	}
}
