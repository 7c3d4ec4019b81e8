package whatif

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/flowfile"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

// A what-if sweep of a scenario whose flows come from a file runs the
// file's flows, unchanged, at every value: each run's records are
// exactly the file's flows.
func TestRunKeepsFileFlows(t *testing.T) {
	gen, err := scenario.Build(small())
	if err != nil {
		t.Fatal(err)
	}
	flows := gen.Flows[:120]
	var b strings.Builder
	if err := flowfile.WriteCSV(&b, flows); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "mine.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := small()
	spec.Workload = workload.Spec{File: p}
	dir := t.TempDir()
	o := Options{Spec: spec, Param: "hpcc.eta", Values: []string{"0.7", "0.95"}, Estimators: []string{"packetsim", "flowsim"}, Dir: dir}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.WorkloadID != spec.WorkloadID() {
		t.Errorf("workload ID %s, want the file spec's %s", res.WorkloadID, spec.WorkloadID())
	}
	frames := 0
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".parquet") {
			return err
		}
		recs, _, err := frame.ReadRecords(path)
		if err != nil {
			return err
		}
		frames++
		if len(recs) != len(flows) {
			t.Errorf("%s: %d records, the file has %d flows", path, len(recs), len(flows))
			return nil
		}
		sort.Slice(recs, func(i, j int) bool { return recs[i].FlowID < recs[j].FlowID })
		for i, r := range recs {
			f := flows[i]
			if r.FlowID != f.ID || r.Src != f.Src || r.Dst != f.Dst || r.Size != f.Size || r.Start != f.Start {
				t.Errorf("%s: record %d is flow %+v, the file's is %+v", path, i, r, f)
				return nil
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if frames != 4 {
		t.Errorf("%d record frames, want 2 values x 2 estimators", frames)
	}
}
