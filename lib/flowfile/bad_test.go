package flowfile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/flowfile"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// dumbbell is a network of hosts 0..3 and switches 4 and 5.
func dumbbell(t *testing.T) *topo.Network {
	t.Helper()
	n, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 2})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

const head = "src,dst,size_bytes,start_ns\n"

// badFiles are the bad flow files and the messages they get: every case
// names the file, and the row and column when one is to blame. The
// manual's table of input-file errors lists them.
var badFiles = []struct {
	name, file, content string
	spec                workload.Spec
	want                string
}{
	{"host out of range", "f.csv", head + "0,2,100,0\n0,9,100,5\n", workload.Spec{}, "f.csv row 2, column dst: host 9 is not a host of dumbbell-2x2 (hosts: 0..3)"},
	{"switch as host", "f.csv", head + "4,2,100,0\n", workload.Spec{}, "f.csv row 1, column src: host 4 is not a host"},
	{"negative host", "f.csv", head + "-1,2,100,0\n", workload.Spec{}, "f.csv row 1, column src: host -1 is not a host"},
	{"remapped out of range", "f.csv", head + "10,11,100,0\n", workload.Spec{Remap: map[int]int{10: 0, 11: 7}}, "f.csv row 1, column dst: host 7 is not a host of dumbbell-2x2 (hosts: 0..3), after the remap table"},
	{"src = dst", "f.csv", head + "0,2,100,0\n1,1,100,5\n", workload.Spec{}, "f.csv row 2, column dst: src and dst are both host 1"},
	{"zero size", "f.csv", head + "0,2,0,0\n", workload.Spec{}, "f.csv row 1, column size_bytes: size 0 bytes: sizes must be positive"},
	{"negative size", "f.csv", head + "0,2,100,0\n0,2,-3,1\n", workload.Spec{}, "f.csv row 2, column size_bytes: size -3 bytes: sizes must be positive"},
	{"negative start", "f.csv", head + "0,2,100,-5\n", workload.Spec{}, "f.csv row 1, column start_ns: start -5 ns is negative"},
	{"start not a number", "f.csv", head + "0,2,100,soon\n", workload.Spec{}, `f.csv row 1, column start_ns: "soon" is not a number`},
	{"start NaN", "f.csv", head + "0,2,100,NaN\n", workload.Spec{}, `f.csv row 1, column start_ns: "NaN" is not a number (NaN: a missing value?)`},
	{"start empty", "f.csv", head + "0,2,100,\n", workload.Spec{}, "f.csv row 1, column start_ns: empty value"},
	{"start fraction", "f.csv", head + "0,2,100,1.5\n", workload.Spec{}, `f.csv row 1, column start_ns: "1.5" is not a whole number`},
	{"duplicate ids", "f.csv", "flow_id," + head + "7,0,2,100,0\n8,0,2,100,1\n7,1,3,100,2\n", workload.Spec{}, "f.csv row 3, column flow_id: flow id 7 appears again (first at row 1)"},
	{"missing column", "f.csv", "src,dst,size_bytes\n0,2,100\n", workload.Spec{}, `f.csv: missing column "start_ns" (the file has columns "src", "dst", "size_bytes"; required: src, dst, size_bytes, start_ns; optional: flow_id, class)`},
	{"short row", "f.csv", head + "0,2,100,0\n0,2\n", workload.Spec{}, "f.csv row 2 (line 3): wrong number of fields"},
	{"empty csv", "f.csv", "", workload.Spec{}, "f.csv: empty file"},
	{"csv named parquet", "f.parquet", head + "0,2,100,0\n", workload.Spec{}, "f.parquet: cannot read it as a parquet file of flows: frame: reading f.parquet: parquet: file is smaller than indicated metadata size"},
	{"unknown extension", "f.dat", head, workload.Spec{}, `f.dat: cannot tell the format from the extension ".dat"`},
	{"unknown format", "f.csv", head, workload.Spec{Format: "pcap"}, `f.csv: unknown format "pcap"`},
	{"csv as fork", "f.txt", head + "0,2,100,0\n", workload.Spec{}, `f.txt line 1: the fork's flow.txt starts with the number of flows, got "src,dst,size_bytes,start_ns": is this a flow.txt?`},
	{"fork fields", "f.txt", "2\n0 0 2 3 100 1000 0.000001\n1 0 2 3 100 1000\n", workload.Spec{}, "f.txt row 2 (line 3): 6 fields; want 7 (id src dst pg dport size start_s), like the first row"},
	{"fork start", "f.txt", "1\n0 0 2 3 100 1000 later\n", workload.Spec{}, `f.txt row 1, column start_s: "later" is not a number of seconds`},
	{"fork count", "f.txt", "3\n0 0 2 3 100 1000 0.1\n", workload.Spec{}, "f.txt: the first line announces 3 flows, the file has 1"},
	{"fork duplicate ids", "f.txt", "2\n0 0 2 3 100 1000 0.1\n0 1 3 3 100 1000 0.2\n", workload.Spec{}, "f.txt row 2, column id: flow id 0 appears again (first at row 1)"},
	{"parsimon duplicate ids", "f.json", `[{"id":3,"src":0,"dst":2,"size":10,"start":0},{"id":3,"src":0,"dst":2,"size":10,"start":5}]`, workload.Spec{}, "f.json row 2, column id: flow id 3 appears again (first at row 1)"},
	{"csv as parsimon", "f.json", head, workload.Spec{}, "f.json: not a Parsimon flow list"},
	{"parsimon missing field", "f.json", `[{"id":0,"src":0,"dst":2,"size":10}]`, workload.Spec{}, "f.json row 1, column start: missing"},
	{"parsimon unknown field", "f.json", `[{"id":0,"src":0,"dst":2,"size":10,"start":0,"prio":1}]`, workload.Spec{}, `f.json row 1: not a flow object {"id","src","dst","size","start"}: json: unknown field "prio"`},
	{"parsimon negative size", "f.json", `[{"id":0,"src":0,"dst":2,"size":-10,"start":0}]`, workload.Spec{}, "f.json row 1, column size: size -10 bytes: sizes must be positive"},
	{"empty window", "f.csv", head + "0,2,100,0\n", workload.Spec{WindowNs: []int64{10, 20}}, "f.csv: no flows left to run (1 in the file; window_ns [10 20], first 0)"},
	{"bad window", "f.csv", head + "0,2,100,0\n", workload.Spec{WindowNs: []int64{20, 10}}, "window_ns [20 10] must be [from, to) with 0 <= from < to"},
	{"load without span", "f.csv", head + "0,2,100,0\n1,3,100,0\n", workload.Spec{MaxLoad: 0.5}, "f.csv: workload: max_load: all 2 flows start at 0 ns, so there is no span to scale"},
	{"generated fields", "f.csv", head + "0,2,100,0\n", workload.Spec{Flows: 10}, "components, flows and duration_ns describe generated flows"},
}

func TestBadFiles(t *testing.T) {
	net := dumbbell(t)
	dir := t.TempDir()
	t.Chdir(dir) // errors name the file as the spec names it
	for _, tc := range badFiles {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			spec := tc.spec
			spec.File = tc.file
			flows, err := flowfile.Load(net, spec)
			if err == nil {
				t.Fatalf("accepted: %v", flows)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error\n  %v\nwant it to contain\n  %s", err, tc.want)
			}
			t.Logf("%s | %s", tc.name, err)
		})
	}
}

// Unsorted start times are sorted, stably: equal starts keep the file's
// order, and flows without ids are numbered in the sorted order.
func TestUnsortedStartsAreSorted(t *testing.T) {
	net := dumbbell(t)
	p := filepath.Join(t.TempDir(), "f.csv")
	os.WriteFile(p, []byte(head+"0,2,100,30\n1,3,200,10\n0,3,300,30\n1,2,400,0\n"), 0o644)
	flows, err := flowfile.Load(net, workload.Spec{File: p})
	if err != nil {
		t.Fatal(err)
	}
	want := []workload.Flow{{ID: 0, Src: 1, Dst: 2, Size: 400, Start: 0}, {ID: 1, Src: 1, Dst: 3, Size: 200, Start: 10}, {ID: 2, Src: 0, Dst: 2, Size: 100, Start: 30}, {ID: 3, Src: 0, Dst: 3, Size: 300, Start: 30}}
	if len(flows) != len(want) {
		t.Fatalf("%v", flows)
	}
	for i := range want {
		if flows[i] != want[i] {
			t.Errorf("flow %d = %+v, want %+v", i, flows[i], want[i])
		}
	}
}

// The transforms: a remap table, a window, the first N, and scaling to a
// max load, which is the generated workloads' targeting: a generated
// workload's flows with their starts tripled and scaled back to the
// generating max load get their starts back within a nanosecond.
func TestTransforms(t *testing.T) {
	net := dumbbell(t)
	dir := t.TempDir()
	p := filepath.Join(dir, "f.csv")
	os.WriteFile(p, []byte("flow_id,"+head+"5,10,12,100,0\n6,11,13,100,10\n7,10,13,100,20\n8,11,12,100,30\n"), 0o644)
	flows, err := flowfile.Load(net, workload.Spec{File: p, Remap: map[int]int{10: 0, 11: 1, 12: 2, 13: 3}, WindowNs: []int64{10, 31}, First: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []workload.Flow{{ID: 6, Src: 1, Dst: 3, Size: 100, Start: 10}, {ID: 7, Src: 0, Dst: 3, Size: 100, Start: 20}}
	if len(flows) != 2 || flows[0] != want[0] || flows[1] != want[1] {
		t.Errorf("got %+v, want %+v", flows, want)
	}

	s := small()
	gen := build(t, s)
	stretched := append([]workload.Flow(nil), gen.Flows...)
	for i := range stretched {
		stretched[i].Start *= 3
	}
	lp := filepath.Join(dir, "load.csv")
	if err := writeWith(lp, stretched, flowfile.WriteCSV); err != nil {
		t.Fatal(err)
	}
	back := build(t, func() scenario.Spec {
		f := fileSpec(s, lp)
		f.Workload.MaxLoad = s.Workload.Components[0].MaxLoad
		return f
	}())
	for i, f := range back.Flows {
		if d := f.Start - gen.Flows[i].Start; d < -1 || d > 1 {
			t.Fatalf("flow %d starts at %d ns, generated at %d", i, f.Start, gen.Flows[i].Start)
		}
	}
}
