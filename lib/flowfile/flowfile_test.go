package flowfile_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/flowfile"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

// small is a 256-host fabric scenario of 300 generated flows.
func small() scenario.Spec {
	s := scenario.Default()
	s.Workload.Flows = 300
	return s
}

// fileSpec is s with its workload taken from path.
func fileSpec(s scenario.Spec, path string) scenario.Spec {
	s.Workload = workload.Spec{File: path}
	return s
}

func run(t *testing.T, est string, sc *scenario.Scenario) []metrics.Record {
	t.Helper()
	res, err := estimator.Run(context.Background(), est, sc, "")
	if err != nil {
		t.Fatal(err)
	}
	return res.Records
}

func build(t *testing.T, s scenario.Spec) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// The flows "tailscope gen" writes, given back as a flows file, run to
// records identical to the generated run's, in every format the flows
// can be written in.
func TestGeneratedFlowsRoundTrip(t *testing.T) {
	gen := build(t, small())
	dir := t.TempDir()
	write := map[string]func(string) error{
		"flows.parquet": func(p string) error { return frame.WriteFlows(p, gen.Flows, frame.Meta{ScenarioID: gen.ID}) },
		"flows.arrow":   func(p string) error { return frame.WriteFlows(p, gen.Flows, frame.Meta{}) },
		"flows.csv":     func(p string) error { return writeWith(p, gen.Flows, flowfile.WriteCSV) },
		"flow.txt":      func(p string) error { return writeWith(p, gen.Flows, flowfile.WriteFork) },
		"flows.json":    func(p string) error { return writeWith(p, gen.Flows, flowfile.WriteParsimon) },
	}
	want := map[string][]metrics.Record{}
	for _, est := range []string{"flowsim", "packetsim"} {
		want[est] = run(t, est, gen)
	}
	for name, w := range write {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			if err := w(p); err != nil {
				t.Fatal(err)
			}
			sc := build(t, fileSpec(small(), p))
			if !sameFlows(sc.Flows, gen.Flows, name != "flow.txt" && name != "flows.json") {
				t.Fatalf("read back %d flows that differ from the %d generated", len(sc.Flows), len(gen.Flows))
			}
			if sc.ID == gen.ID {
				t.Error("a file workload must not share the generated spec's ID")
			}
			for est, recs := range want {
				got := run(t, est, sc)
				if name == "flow.txt" || name == "flows.json" {
					// these formats carry no class
					for i := range got {
						got[i].Class = recs[i].Class
					}
				}
				if !reflect.DeepEqual(got, recs) {
					t.Errorf("%s: records differ from the generated run's", est)
				}
			}
		})
	}
}

func sameFlows(a, b []workload.Flow, class bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if !class {
			x.Class, y.Class = 0, 0
		}
		if x != y {
			return false
		}
	}
	return true
}

func writeWith(p string, flows []workload.Flow, w func(io.Writer, []workload.Flow) error) error {
	var b bytes.Buffer
	if err := w(&b, flows); err != nil {
		return err
	}
	return os.WriteFile(p, b.Bytes(), 0o644)
}

// writePandasParquet writes flows as pandas' to_parquet does: no
// tailscope metadata, an index column, no flow ids, and start_ns as a
// float64 column (a column that once held a missing value).
func writePandasParquet(t *testing.T, p string, flows []workload.Flow) {
	t.Helper()
	mem := memory.DefaultAllocator
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "src", Type: arrow.PrimitiveTypes.Int64},
		{Name: "dst", Type: arrow.PrimitiveTypes.Int64},
		{Name: "size_bytes", Type: arrow.PrimitiveTypes.Int64},
		{Name: "start_ns", Type: arrow.PrimitiveTypes.Float64},
		{Name: "__index_level_0__", Type: arrow.PrimitiveTypes.Int64},
	}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i, f := range flows {
		b.Field(0).(*array.Int64Builder).Append(int64(f.Src))
		b.Field(1).(*array.Int64Builder).Append(int64(f.Dst))
		b.Field(2).(*array.Int64Builder).Append(f.Size)
		b.Field(3).(*array.Float64Builder).Append(float64(f.Start))
		b.Field(4).(*array.Int64Builder).Append(int64(100 + i))
	}
	rec := b.NewRecord()
	defer rec.Release()
	fh, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, fh, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// The same flows written as pandas writes Parquet and CSV (other column
// order, an index column, no ids) give identical flows and records, and
// those are the generated run's: without flow_id the flows are numbered
// 0.. by start, as generated flows are.
func TestPandasParquetAndCSVAgree(t *testing.T) {
	gen := build(t, small())
	dir := t.TempDir()
	pq := filepath.Join(dir, "trace.parquet")
	writePandasParquet(t, pq, gen.Flows)
	var csv strings.Builder
	csv.WriteString(",start_ns,size_bytes,dst,src\n") // pandas' unnamed index first
	for i, f := range gen.Flows {
		csv.WriteString(strconv.Itoa(i) + "," + strconv.FormatInt(f.Start, 10) + ".0," + strconv.FormatInt(f.Size, 10) + "," + strconv.Itoa(f.Dst) + "," + strconv.Itoa(f.Src) + "\n")
	}
	cp := filepath.Join(dir, "trace.csv")
	if err := os.WriteFile(cp, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := build(t, fileSpec(small(), pq)), build(t, fileSpec(small(), cp))
	if !sameFlows(a.Flows, b.Flows, true) || !sameFlows(a.Flows, gen.Flows, false) {
		t.Fatal("Parquet, CSV and generated flows differ")
	}
	ra, rb := run(t, "flowsim", a), run(t, "flowsim", b)
	if !reflect.DeepEqual(ra, rb) {
		t.Error("records of the Parquet and the CSV flows differ")
	}
	want := run(t, "flowsim", gen)
	for i := range ra {
		ra[i].Class = want[i].Class
	}
	if !reflect.DeepEqual(ra, want) {
		t.Error("records of the pandas files differ from the generated run's")
	}
}

// Every estimator (those that run ns-3 aside: they need its build, and
// take the flows the same way) gives on a flows file the records it
// gives on the generated flows the file holds.
func TestEveryEstimatorOnFileFlows(t *testing.T) {
	gen := build(t, small())
	p := filepath.Join(t.TempDir(), "flows.parquet")
	if err := frame.WriteFlows(p, gen.Flows, frame.Meta{}); err != nil {
		t.Fatal(err)
	}
	sc := build(t, fileSpec(small(), p))
	for _, est := range estimator.Names() {
		if est == "ns3" || est == "parsimon-ns3" {
			continue
		}
		t.Run(est, func(t *testing.T) {
			got := run(t, est, sc)
			if len(got) == 0 {
				t.Fatal("no records")
			}
			if !reflect.DeepEqual(got, run(t, est, gen)) {
				t.Errorf("%s: records on the file's flows differ from the generated run's", est)
			}
		})
	}
}

// R's arrow writes integer vectors as int32 columns: they read as the
// int64 columns pandas writes.
func TestInt32Columns(t *testing.T) {
	mem := memory.DefaultAllocator
	names := []string{"src", "dst", "size_bytes", "start_ns"}
	vals := [][]int32{{0, 1}, {2, 3}, {1000, 2000}, {0, 500}}
	var fields []arrow.Field
	var cols []arrow.Array
	for i, n := range names {
		fields = append(fields, arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int32})
		b := array.NewInt32Builder(mem)
		b.AppendValues(vals[i], nil)
		cols = append(cols, b.NewArray())
	}
	schema := arrow.NewSchema(fields, nil)
	rec := array.NewRecord(schema, cols, 2)
	p := filepath.Join(t.TempDir(), "r.parquet")
	fh, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, fh, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ff, err := flowfile.Read(p, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []workload.Flow{{ID: 0, Src: 0, Dst: 2, Size: 1000, Start: 0}, {ID: 1, Src: 1, Dst: 3, Size: 2000, Start: 500}}
	if !reflect.DeepEqual(ff.Flows, want) {
		t.Errorf("read %+v, want %+v", ff.Flows, want)
	}
}
