package experiment

import (
	"context"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/tailscope/tailscope/lib/pfs"
	"github.com/tailscope/tailscope/lib/scenario"
)

// pfs chunks run as tasks through the local pool and, where Slurm is up,
// as job-array elements, and merge into the in-process run's result.
func TestRunPFS(t *testing.T) {
	spec := scenario.PFSDumbbell(4, 2000, 0.7, 3)
	opts := pfs.Options{Temporal: 3, Spatial: 2}
	sc, err := scenario.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pfs.Run(context.Background(), sc.Net, sc.Flows, sc.Spec.Network, opts)
	if err != nil {
		t.Fatal(err)
	}
	for name, ex := range testExecutors(t) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		got, err := RunPFS(ctx, t.TempDir(), sc, opts, ex, nil)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.Chunks != 6 || !reflect.DeepEqual(got.Records, want.Records) || !reflect.DeepEqual(got.Received.Bytes, want.Received.Bytes) {
			t.Errorf("%s: %d chunks; merged task results differ from the in-process run", name, got.Chunks)
		}
	}
}

// testExecutors are the executors decomposed runs are checked on: the
// local pool, and Slurm (running this test binary) where it is up.
func testExecutors(t *testing.T) map[string]Executor {
	execs := map[string]Executor{"local": Local{Workers: 2}}
	if ok, why := slurmUp(t); ok {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		execs["slurm"] = Slurm{Command: []string{exe}, Poll: 200 * time.Millisecond, TimeLimit: 5 * time.Minute}
	} else {
		t.Log("slurm part skipped: " + why)
	}
	return execs
}
