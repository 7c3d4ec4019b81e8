package experiment

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/scenario"
)

// A sweep resumed after a file its spec names changed (one link's delay
// in the topology file, 1us to 5us) runs the scenario again under a new
// ID and takes nothing from the old network's results; resumed with the
// file unchanged, it runs nothing.
func TestResumeAfterTopologyFileChange(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	topology := func(delay string) {
		s := "4 2 3\n2 3\n0 2 10Gbps 1us 0\n2 3 10Gbps " + delay + " 0\n3 1 10Gbps 1us 0\n"
		if err := os.WriteFile(filepath.Join(dir, "topology.txt"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(spec, []byte(`{"topology":{"file":"topology.txt"},
	  "workload":{"flows":40,"components":[{"pairs":[[0,1]],"sizes":{"dist":"exp","mean":20000},"arrival":{"process":"poisson"},"max_load":0.5}]},"seed":3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	sweep := func() (Report, []Task) {
		t.Helper()
		s, err := scenario.Load(spec)
		if err != nil {
			t.Fatal(err)
		}
		tasks, err := Tasks([]scenario.Spec{s}, []string{"flowsim"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Sweep(context.Background(), out, tasks, Local{Workers: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return rep, tasks
	}
	fct := func(p string) int64 {
		t.Helper()
		recs, _, err := frame.ReadRecords(p)
		if err != nil {
			t.Fatal(err)
		}
		var sum int64
		for _, r := range recs {
			sum += r.FCT
		}
		return sum
	}
	topology("1us")
	if rep, _ := sweep(); rep.Ran != 1 {
		t.Fatalf("first sweep: %+v", rep)
	}
	if rep, _ := sweep(); rep.Ran != 0 || rep.Skipped != 1 {
		t.Fatalf("unchanged files: %+v, want the result reused", rep)
	}
	_, old := sweep()
	k0, _ := old[0].Key()
	oldPath, _ := old[0].ResultPath(out)
	topology("5us")
	rep, tasks := sweep()
	if rep.Ran != 1 || rep.Skipped != 0 {
		t.Fatalf("after the change: %+v, want the scenario run again", rep)
	}
	k1, _ := tasks[0].Key()
	if k0 == k1 {
		t.Fatalf("the key %s did not change with the file", k0)
	}
	// 4 us more propagation each way on every flow's path.
	newPath, _ := tasks[0].ResultPath(out)
	if a, b := fct(oldPath), fct(newPath); b-a < 40*4000 {
		t.Errorf("total FCT %d ns after the change, %d before: want at least 160 us more", b, a)
	}
}
