package experiment

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// tinyTasks are n packetsim tasks on sampled fabric scenarios of 50 flows,
// where the sweep machinery rather than the estimator dominates.
func tinyTasks(b *testing.B, n int) []Task {
	sp := DefaultSpace()
	sp.Flows = []int{50}
	specs, err := Sample(sp, n, 9)
	if err != nil {
		b.Fatal(err)
	}
	tasks, err := Tasks(specs, []string{"packetsim"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return tasks
}

// BenchmarkSweepLocal is the local pool's throughput on tiny tasks.
func BenchmarkSweepLocal(b *testing.B) {
	tasks := tinyTasks(b, 8)
	for i := 0; i < b.N; i++ {
		if _, err := Sweep(context.Background(), b.TempDir(), tasks, Local{Workers: 2}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(tasks)*b.N)/b.Elapsed().Seconds(), "tasks/s")
}

// BenchmarkResumeScan is the cost of finding that a 192-scenario, 4-way
// sweep is already done (one stat per task).
func BenchmarkResumeScan(b *testing.B) {
	sp := DefaultSpace()
	specs, err := Sample(sp, 192, 1)
	if err != nil {
		b.Fatal(err)
	}
	tasks, err := Tasks(specs, []string{"packetsim", "flowsim"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	// Two more "estimators": packetsim with options set.
	for _, s := range specs {
		tasks = append(tasks, Task{Spec: s, Estimator: "packetsim", Options: `{"stop_at_ns":1}`}, Task{Spec: s, Estimator: "packetsim", Options: `{"stop_at_ns":2}`})
	}
	dir := b.TempDir()
	for _, t := range tasks {
		p, _ := t.ResultPath(dir)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Sweep(context.Background(), dir, tasks, Local{}, nil)
		if err != nil || rep.Skipped != len(tasks) {
			b.Fatal(rep, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tasks)), "ns/task")
}

// BenchmarkSlurmOverhead is the extra wall time per task of the Slurm
// executor over the local pool (both with two tasks at once), on a running
// single-node Slurm (scripts/slurm/up.sh).
func BenchmarkSlurmOverhead(b *testing.B) {
	if _, err := os.Stat("/run/slurmctld.pid"); err != nil {
		b.Skip("no running slurmctld: start one with scripts/slurm/up.sh")
	}
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	tasks := tinyTasks(b, 8)
	var slurm, local time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := Sweep(context.Background(), b.TempDir(), tasks, Slurm{Command: []string{exe}, Poll: 100 * time.Millisecond}, nil); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := Sweep(context.Background(), b.TempDir(), tasks, Local{Workers: 2}, nil); err != nil {
			b.Fatal(err)
		}
		slurm, local = slurm+t1.Sub(t0), local+time.Since(t1)
	}
	n := float64(b.N * len(tasks))
	b.ReportMetric((slurm-local).Seconds()/n, "overhead-s/task")
	b.ReportMetric(slurm.Seconds()/n, "slurm-s/task")
	b.ReportMetric(local.Seconds()/n, "local-s/task")
}
