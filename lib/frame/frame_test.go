package frame

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

var exts = []string{".parquet", ".arrow"}

// testMeta has every field set, with values that are easy to garble: a seed
// above 2^63, a wall time that is not a short decimal, JSON with quotes.
func testMeta() Meta {
	return Meta{
		Version:     "9.9.9-test",
		ScenarioID:  "ws-40%/meta32 \"µ\"",
		Estimator:   "parsimon",
		Spec:        `{"topology":"meta32-1:1","load":0.4,"note":"a \"quoted\" word"}`,
		Seed:        1<<63 + 12345,
		Options:     `{"clusters":true}`,
		WallSeconds: 1.0 / 3,
		Build:       "9.9.9-test 0123456789ab+dirty",
		Extra:       map[string]string{"host": "ci", "empty": ""},
	}
}

// testRecords returns n records drawn from a fixed seed, including sizes
// and times beyond 2^53 where a double would round them.
func testRecords(n int) []metrics.Record {
	r := rand.New(rand.NewPCG(7, 11))
	recs := make([]metrics.Record, n)
	for i := range recs {
		ideal := 1 + r.Int64N(1<<40)
		fct := ideal + r.Int64N(1<<40)
		recs[i] = metrics.Record{
			FlowID: i*3 + 1, Src: r.IntN(128), Dst: r.IntN(128),
			Size: 1 + r.Int64N(math.MaxInt64-1), Start: r.Int64N(1 << 62),
			FCT: fct, Ideal: ideal, Slowdown: float64(fct) / float64(ideal), Class: r.IntN(3) - 1,
		}
	}
	return recs
}

func testFlows(n int) []workload.Flow {
	r := rand.New(rand.NewPCG(3, 5))
	flows := make([]workload.Flow, n)
	var t int64
	for i := range flows {
		t += r.Int64N(1e6)
		flows[i] = workload.Flow{ID: i, Src: r.IntN(64), Dst: 64 + r.IntN(64), Size: 1 + r.Int64N(1<<50), Start: t, Class: r.IntN(4)}
	}
	return flows
}

func testNetwork(t *testing.T) *topo.Network {
	t.Helper()
	net, err := testNetworkErr()
	if err != nil {
		t.Fatal(err)
	}
	return net
}

func testNetworkErr() (*topo.Network, error) {
	return topo.Fabric(topo.FabricSpec{Pods: 2, RacksPerPod: 3, HostsPerRack: 2, Planes: 2, SpinesPerPlane: 2,
		HostBandwidth: 25 * topo.Gbps, Delay: 1500})
}

func TestTableRoundTrip(t *testing.T) {
	for _, ext := range exts {
		for _, tc := range []struct {
			name string
			tab  Table
		}{
			{"values", Table{Meta: testMeta(), Columns: []Column{
				Int64Column("i", []int64{0, -1, math.MaxInt64, math.MinInt64, 1 << 53, 1<<53 + 1}),
				Float64Column("f", []float64{0.1 + 0.2, math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64, math.MaxFloat64, -2.5}),
				StringColumn("s", []string{"", "µs", "a\"b\\c", "line\nbreak", "🙂", strings.Repeat("x", 5000)}),
			}}},
			{"empty", Table{Meta: Meta{ScenarioID: "none"}, Columns: []Column{
				Int64Column("i", nil), Float64Column("f", nil), StringColumn("s", nil),
			}}},
		} {
			t.Run(tc.name+ext, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "t"+ext)
				if err := WriteTable(path, &tc.tab); err != nil {
					t.Fatal(err)
				}
				got, err := ReadTable(path)
				if err != nil {
					t.Fatal(err)
				}
				want := tc.tab
				if want.Meta.Version == "" {
					want.Meta.Version = Version
				}
				if !reflect.DeepEqual(got.Meta, want.Meta) {
					t.Errorf("meta: got %+v, want %+v", got.Meta, want.Meta)
				}
				if !reflect.DeepEqual(got.Columns, want.Columns) {
					t.Errorf("columns: got %+v, want %+v", got.Columns, want.Columns)
				}
			})
		}
	}
}

// NaN is not equal to itself, so it gets its own check.
func TestNaNRoundTrip(t *testing.T) {
	for _, ext := range exts {
		path := filepath.Join(t.TempDir(), "nan"+ext)
		if err := WriteTable(path, &Table{Columns: []Column{Float64Column("x", []float64{math.NaN(), 1})}}); err != nil {
			t.Fatal(err)
		}
		got, err := ReadTable(path)
		if err != nil {
			t.Fatal(err)
		}
		if x := got.Columns[0].Float64; len(x) != 2 || !math.IsNaN(x[0]) || x[1] != 1 {
			t.Errorf("%s: got %v, want [NaN 1]", ext, x)
		}
	}
}

func TestRecordsRoundTrip(t *testing.T) {
	for _, ext := range exts {
		for _, n := range []int{0, 1, 1000} {
			path := filepath.Join(t.TempDir(), "records"+ext)
			recs, meta := testRecords(n), testMeta()
			if err := WriteRecords(path, recs, meta); err != nil {
				t.Fatal(err)
			}
			got, gotMeta, err := ReadRecords(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != n || (n > 0 && !reflect.DeepEqual(got, recs)) {
				t.Errorf("%s n=%d: records differ after the round trip", ext, n)
			}
			if !reflect.DeepEqual(gotMeta, meta) {
				t.Errorf("%s n=%d: meta got %+v, want %+v", ext, n, gotMeta, meta)
			}
		}
	}
}

// A records file without tailscope metadata (written by another tool) gets
// its scenario and estimator from the columns.
func TestReadRecordsFillsMetaFromColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.arrow")
	tab := RecordsTable(testRecords(3), Meta{ScenarioID: "s7", Estimator: "m3"})
	tab.Meta = Meta{}
	if err := WriteTable(path, tab); err != nil {
		t.Fatal(err)
	}
	_, meta, err := ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	if meta.ScenarioID != "s7" || meta.Estimator != "m3" {
		t.Errorf("got scenario %q estimator %q, want s7 m3", meta.ScenarioID, meta.Estimator)
	}
}

func TestFlowsRoundTrip(t *testing.T) {
	for _, ext := range exts {
		path := filepath.Join(t.TempDir(), "flows"+ext)
		flows := testFlows(500)
		meta := Meta{ScenarioID: "x", Seed: 42}
		if err := WriteFlows(path, flows, meta); err != nil {
			t.Fatal(err)
		}
		got, gotMeta, err := ReadFlows(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, flows) {
			t.Errorf("%s: flows differ after the round trip", ext)
		}
		if gotMeta.Seed != 42 || gotMeta.ScenarioID != "x" || gotMeta.Version != Version {
			t.Errorf("%s: meta %+v", ext, gotMeta)
		}
	}
}

// A topology frame must come back as the same, equally routed network.
func TestTopologyRoundTrip(t *testing.T) {
	net := testNetwork(t)
	for _, ext := range exts {
		dir := t.TempDir()
		np, cp := filepath.Join(dir, "nodes"+ext), filepath.Join(dir, "channels"+ext)
		if err := WriteTopology(np, cp, net, Meta{Seed: 1}); err != nil {
			t.Fatal(err)
		}
		got, meta, err := ReadTopology(np, cp)
		if err != nil {
			t.Fatal(err)
		}
		if meta.Network != net.Name || got.Name != net.Name {
			t.Errorf("%s: network name %q / meta %q, want %q", ext, got.Name, meta.Network, net.Name)
		}
		if !reflect.DeepEqual(got.Nodes, net.Nodes) || !reflect.DeepEqual(got.Links, net.Links) || !reflect.DeepEqual(got.Channels, net.Channels) {
			t.Errorf("%s: nodes, links or channels differ", ext)
		}
		hosts := net.Hosts()
		for flow, src := range hosts {
			for _, dst := range hosts {
				if src == dst {
					continue
				}
				p1, err1 := net.Path(flow, src, dst)
				p2, err2 := got.Path(flow, src, dst)
				if err1 != nil || err2 != nil || !reflect.DeepEqual(p1, p2) {
					t.Fatalf("%s: flow %d %d->%d: path %v (%v), read back %v (%v)", ext, flow, src, dst, p1, err1, p2, err2)
				}
			}
		}
	}
}

// The channels frame may list channels in any order.
func TestReadTopologyShuffledChannels(t *testing.T) {
	net := testNetwork(t)
	dir := t.TempDir()
	np, cp := filepath.Join(dir, "n.parquet"), filepath.Join(dir, "c.parquet")
	if err := WriteTopology(np, cp, net, Meta{}); err != nil {
		t.Fatal(err)
	}
	ct := ChannelsTable(net, Meta{Network: net.Name})
	perm := rand.New(rand.NewPCG(1, 2)).Perm(ct.Len())
	for i := range ct.Columns {
		v := ct.Columns[i].Int64
		s := make([]int64, len(v))
		for j, p := range perm {
			s[j] = v[p]
		}
		ct.Columns[i].Int64 = s
	}
	if err := WriteTable(cp, ct); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadTopology(np, cp)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Links, net.Links) {
		t.Error("links differ after reading shuffled channels")
	}
}

func TestWriteTableErrors(t *testing.T) {
	dir := t.TempDir()
	ok := []Column{Int64Column("a", []int64{1})}
	for _, tc := range []struct {
		name, path string
		tab        Table
		want       string
	}{
		{"extension", "t.csv", Table{Columns: ok}, `unknown extension ".csv"`},
		{"no extension", "t", Table{Columns: ok}, `unknown extension ""`},
		{"no columns", "t.parquet", Table{}, "no columns"},
		{"no name", "t.parquet", Table{Columns: []Column{Int64Column("", []int64{1})}}, "column 0 has no name"},
		{"duplicate", "t.arrow", Table{Columns: []Column{ok[0], ok[0]}}, `two columns are named "a"`},
		{"no slice", "t.arrow", Table{Columns: []Column{{Name: "z"}}}, `column "z" must set exactly one`},
		{"two slices", "t.arrow", Table{Columns: []Column{{Name: "z", Int64: []int64{1}, String: []string{"a"}}}}, `column "z" must set exactly one`},
		{"ragged", "t.parquet", Table{Columns: []Column{ok[0], StringColumn("b", []string{"x", "y"})}}, `column "b" has 2 rows but column "a" has 1`},
		{"bad spec", "t.parquet", Table{Columns: ok, Meta: Meta{Spec: "{not json"}}, "Meta.Spec is not valid JSON"},
		{"bad options", "t.arrow", Table{Columns: ok, Meta: Meta{Options: "[1,"}}, "Meta.Options is not valid JSON"},
		{"empty extra key", "t.arrow", Table{Columns: ok, Meta: Meta{Extra: map[string]string{"": "v"}}}, "empty key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.path)
			err := WriteTable(path, &tc.tab)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
			if _, serr := os.Stat(path); !os.IsNotExist(serr) {
				t.Errorf("a failed write left %s behind", path)
			}
		})
	}
}

// writeArrow writes record batches straight through arrow-go, for inputs
// WriteTable refuses to produce.
func writeArrow(t *testing.T, path string, sc *arrow.Schema, batches ...[]arrow.Array) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(sc))
	if err != nil {
		t.Fatal(err)
	}
	for _, cols := range batches {
		rec := array.NewRecord(sc, cols, int64(cols[0].Len()))
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func int64Array(v []int64, valid []bool) arrow.Array {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.AppendValues(v, valid)
	return b.NewArray()
}

// Files from other writers may hold several record batches: ReadTable
// concatenates them.
func TestReadTableSeveralBatches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.arrow")
	sc := arrow.NewSchema([]arrow.Field{{Name: "a", Type: arrow.PrimitiveTypes.Int64}}, nil)
	writeArrow(t, path, sc, []arrow.Array{int64Array([]int64{1, 2}, nil)}, []arrow.Array{int64Array([]int64{3}, nil)})
	got, err := ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	if a := got.Columns[0].Int64; !reflect.DeepEqual(a, []int64{1, 2, 3}) {
		t.Errorf("got %v, want [1 2 3]", a)
	}
}

func TestReadTableErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// int32 reads as int64 (R's integer vectors); int16 is refused.
	i16 := filepath.Join(dir, "i16.arrow")
	b := array.NewInt16Builder(memory.DefaultAllocator)
	b.AppendValues([]int16{1}, nil)
	writeArrow(t, i16, arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int16}}, nil), []arrow.Array{b.NewArray()})
	nulls := filepath.Join(dir, "nulls.arrow")
	writeArrow(t, nulls, arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true}}, nil),
		[]arrow.Array{int64Array([]int64{1, 0}, []bool{true, false})})
	// Malformed metadata in frames whose digest is intact: written so, not
	// altered later.
	sealed := func(name, key, val string) string {
		p := filepath.Join(dir, name)
		md := arrow.NewMetadata([]string{key, keyDigest}, []string{val, digestPlaceholder})
		writeArrow(t, p, arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64}}, &md),
			[]arrow.Array{int64Array([]int64{1}, nil)})
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := seal(f); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noDigest := filepath.Join(dir, "nodigest.arrow")
	md := arrow.NewMetadata([]string{"tailscope.seed"}, []string{"3"})
	writeArrow(t, noDigest, arrow.NewSchema([]arrow.Field{{Name: "n", Type: arrow.PrimitiveTypes.Int64}}, &md),
		[]arrow.Array{int64Array([]int64{1}, nil)})

	for _, tc := range []struct {
		name, path, want string
	}{
		{"extension", "x.txt", `unknown extension ".txt"`},
		{"missing", filepath.Join(dir, "none.parquet"), "no such file"},
		{"garbage parquet", write("g.parquet", "not a parquet file at all"), "g.parquet"},
		{"garbage arrow", write("g.arrow", "not an arrow file at all"), "g.arrow"},
		{"int16", i16, `column "n" has type int16`},
		{"nulls", nulls, `column "n" has 1 null values`},
		{"bad seed", sealed("seed.arrow", "tailscope.seed", "-3"), `tailscope.seed="-3" is malformed`},
		{"bad spec", sealed("spec.arrow", "tailscope.spec", "{"), `tailscope.spec="{" is malformed: not valid JSON`},
		{"bad options", sealed("opts.arrow", "tailscope.options", "[1,"), `tailscope.options="[1," is malformed`},
		{"no digest", noDigest, "tailscope metadata but no intact digest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadTable(tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestTypedReadErrors(t *testing.T) {
	dir := t.TempDir()
	flows := filepath.Join(dir, "flows.parquet")
	if err := WriteFlows(flows, testFlows(3), Meta{}); err != nil {
		t.Fatal(err)
	}
	// slowdown stored as int64 instead of float64
	wrongType := filepath.Join(dir, "wrongtype.arrow")
	tab := RecordsTable(testRecords(2), Meta{})
	c, _ := tab.Column(ColSlowdown)
	*c = Int64Column(ColSlowdown, []int64{1, 2})
	if err := WriteTable(wrongType, tab); err != nil {
		t.Fatal(err)
	}
	mixed := filepath.Join(dir, "mixed.parquet")
	tab = RecordsTable(testRecords(3), Meta{ScenarioID: "s", Estimator: "parsimon"})
	c, _ = tab.Column(ColEstimator)
	c.String[2] = "m3"
	if err := WriteTable(mixed, tab); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		read func() error
		want string
	}{
		{"records from flows", func() error { _, _, err := ReadRecords(flows); return err }, "frame: " + flows + `: no column "scenario_id"`},
		{"wrong type", func() error { _, _, err := ReadRecords(wrongType); return err }, `column "slowdown" is int64, want float64`},
		{"mixed estimators", func() error { _, _, err := ReadRecords(mixed); return err }, `row 2 has estimator "m3" but the frame is for "parsimon"`},
		{"topology from flows", func() error { _, _, err := ReadTopology(flows, flows); return err }, `no column "node_id"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.read(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestTopologyErrors(t *testing.T) {
	net := testNetwork(t)
	dir := t.TempDir()
	np, cp := filepath.Join(dir, "n.arrow"), filepath.Join(dir, "c.arrow")
	if err := WriteTopology(np, cp, net, Meta{}); err != nil {
		t.Fatal(err)
	}
	// Each case corrupts one thing in a fresh channels table.
	for _, tc := range []struct {
		name   string
		mutate func(t *Table)
		want   string
	}{
		{"odd count", func(t *Table) {
			for i := range t.Columns {
				t.Columns[i].Int64 = t.Columns[i].Int64[:len(t.Columns[i].Int64)-1]
			}
		}, "channels; links have two each"},
		{"duplicate id", func(t *Table) { t.Columns[0].Int64[3] = 2 }, "channel ids must be 0.."},
		{"link id", func(t *Table) { t.Columns[1].Int64[5] = 0 }, "channels 4 and 5 must belong to link 2"},
		{"not reverse", func(t *Table) { t.Columns[2].Int64[7] = t.Columns[2].Int64[6] }, "channel 7"},
		{"asymmetric", func(t *Table) { t.Columns[4].Int64[9]++ }, "two directions of link 4 differ"},
		{"network name", func(t *Table) { t.Meta.Network = "other" }, `is for network "` + net.Name + `" but channels frame`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := ChannelsTable(net, Meta{Network: net.Name})
			tc.mutate(ct)
			bad := filepath.Join(dir, tc.name+".arrow")
			if err := WriteTable(bad, ct); err != nil {
				t.Fatal(err)
			}
			_, _, err := ReadTopology(np, bad)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), bad) {
				t.Fatalf("got error %v, want one naming %s and containing %q", err, bad, tc.want)
			}
		})
	}

	badKind := filepath.Join(dir, "kind.arrow")
	nt := NodesTable(net, Meta{Network: net.Name})
	nt.Columns[1].String[0] = "Router"
	if err := WriteTable(badKind, nt); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadTopology(badKind, cp); err == nil || !strings.Contains(err.Error(), `unknown node kind "Router"`) {
		t.Errorf("bad kind: got %v", err)
	}

	if err := net.FailLink(len(net.Links) - 1); err != nil {
		t.Fatal(err)
	}
	defer net.RestoreLink(len(net.Links) - 1)
	if err := WriteTopology(np, cp, net, Meta{}); err == nil || !strings.Contains(err.Error(), "failed link") {
		t.Errorf("writing a network with a failed link: got %v", err)
	}
}

func TestHTML(t *testing.T) {
	tab := &Table{Columns: []Column{
		Int64Column("id", []int64{1, 2, 3}),
		Float64Column("x", []float64{0.5, 1e-9, 2}),
		StringColumn("<name>", []string{"a&b", "c", "d"}),
	}}
	for _, tc := range []struct {
		n            int
		rows         int
		contains     []string
		notContained []string
	}{
		{2, 2, []string{"<caption>first 2 of 3 rows</caption>", "<th>&lt;name&gt;</th>", "<td>a&amp;b</td>", "<td>1e-09</td>"}, []string{"<td>d</td>"}},
		{-1, 3, []string{"<td>d</td>"}, []string{"<caption>"}},
		{10, 3, []string{"<td>3</td>"}, []string{"<caption>"}},
		{0, 0, []string{"<caption>first 0 of 3 rows</caption>"}, nil},
	} {
		h := tab.HTML(tc.n)
		if got := strings.Count(h, "<tr>") - 1; got != tc.rows { // minus the header row
			t.Errorf("n=%d: %d body rows, want %d", tc.n, got, tc.rows)
		}
		for _, s := range tc.contains {
			if !strings.Contains(h, s) {
				t.Errorf("n=%d: HTML lacks %q:\n%s", tc.n, s, h)
			}
		}
		for _, s := range tc.notContained {
			if strings.Contains(h, s) {
				t.Errorf("n=%d: HTML has %q:\n%s", tc.n, s, h)
			}
		}
	}
	bad := &Table{Columns: []Column{Int64Column("a", []int64{1}), Int64Column("b", nil)}}
	if h := bad.HTML(5); !strings.HasPrefix(h, "<p>") || !strings.Contains(h, "has 0 rows") {
		t.Errorf("malformed table: got %q", h)
	}
}

func TestColumnAccessors(t *testing.T) {
	tab := &Table{Columns: []Column{Int64Column("i", []int64{1}), Float64Column("f", []float64{2}), StringColumn("s", []string{"3"})}}
	if v, err := tab.Int64s("i"); err != nil || v[0] != 1 {
		t.Errorf("Int64s: %v %v", v, err)
	}
	if v, err := tab.Float64s("f"); err != nil || v[0] != 2 {
		t.Errorf("Float64s: %v %v", v, err)
	}
	if v, err := tab.Strings("s"); err != nil || v[0] != "3" {
		t.Errorf("Strings: %v %v", v, err)
	}
	if _, err := tab.Float64s("i"); err == nil || err.Error() != `frame: column "i" is int64, want float64` {
		t.Errorf("wrong type: %v", err)
	}
	if _, err := tab.Strings("zz"); err == nil || err.Error() != `frame: no column "zz" (columns: i, f, s)` {
		t.Errorf("missing: %v", err)
	}
	if tab.Len() != 1 || (&Table{}).Len() != 0 {
		t.Errorf("Len: %d, %d", tab.Len(), (&Table{}).Len())
	}
}

func TestWriteLeavesOnlyTheFrame(t *testing.T) {
	// Frames are written beside their path and renamed into place: after a
	// write (and a rewrite) nothing else is left in the directory.
	dir := t.TempDir()
	path := filepath.Join(dir, "t.parquet")
	for i := 0; i < 2; i++ {
		if err := WriteTable(path, &Table{Columns: []Column{Int64Column("a", []int64{int64(i)})}}); err != nil {
			t.Fatal(err)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Name() != "t.parquet" {
		t.Fatalf("directory holds %v, want only t.parquet", ents)
	}
	back, err := ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := back.Int64s("a"); len(v) != 1 || v[0] != 1 {
		t.Fatalf("read back %v, want the second write [1]", v)
	}
}

// A run without drops or PFC leaves those counts nil: their columns are
// zeros; counts of different lengths are refused.
func TestChannelStatsTable(t *testing.T) {
	tab, err := ChannelStatsTable(ChannelStats{Packets: []int64{3, 4}, WireBytes: []int64{30, 40}}, Meta{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want []int64
	}{{ColChannelID, []int64{0, 1}}, {ColPackets, []int64{3, 4}}, {ColWireBytes, []int64{30, 40}}, {ColDrops, []int64{0, 0}}, {ColPauseFrames, []int64{0, 0}}, {ColPausedNs, []int64{0, 0}}} {
		got, err := tab.Int64s(c.name)
		if err != nil || len(got) != 2 || got[0] != c.want[0] || got[1] != c.want[1] {
			t.Errorf("column %s: %v (%v), want %v", c.name, got, err, c.want)
		}
	}
	if _, err := ChannelStatsTable(ChannelStats{Packets: []int64{1}, Drops: []int64{1, 2}}, Meta{}); err == nil || !strings.Contains(err.Error(), "1 and 2 channels") {
		t.Errorf("mismatched lengths: error %v", err)
	}
}

// ReadMeta gives the metadata ReadRecords gives, but for the run log's
// times and build, which it does not read; a file that is not a frame is
// an error naming it.
func TestReadMeta(t *testing.T) {
	for _, ext := range exts {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "records"+ext)
			if err := WriteRecords(path, testRecords(100), testMeta()); err != nil {
				t.Fatal(err)
			}
			_, want, err := ReadRecords(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadMeta(path)
			if err != nil {
				t.Fatal(err)
			}
			want.WallSeconds, want.Timings, want.Build = 0, nil, ""
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v, want %+v", got, want)
			}
			junk := filepath.Join(t.TempDir(), "junk"+ext)
			if err := os.WriteFile(junk, []byte("not a frame"), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := ReadMeta(junk); err == nil || !strings.Contains(err.Error(), junk) {
				t.Errorf("junk file: error %v, want one naming %s", err, junk)
			}
		})
	}
}
