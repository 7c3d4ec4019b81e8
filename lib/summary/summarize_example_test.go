package summary_test

import (
	"context"
	"fmt"
	"os"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/summary"
)

// flowSim's records of a small scenario set against packetsim's, from the
// results directory of a sweep.
func ExampleSummarizeDir() {
	dir, err := os.MkdirTemp("", "summary")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	spec, err := scenario.Named("pfs-dumbbell")
	if err != nil {
		panic(err)
	}
	spec.Workload.Flows = 500
	tasks, err := experiment.Tasks([]scenario.Spec{spec}, []string{"flowsim", "packetsim"}, nil)
	if err != nil {
		panic(err)
	}
	if _, err := experiment.Sweep(context.Background(), dir, tasks, experiment.Local{}, nil); err != nil {
		panic(err)
	}
	rows, err := summary.SummarizeDir(dir, "packetsim", metrics.ParsimonBins(), 99, nil)
	if err != nil {
		panic(err)
	}
	for _, r := range rows {
		fmt.Printf("%s against %s: %d flows, max load %.2f, p99 slowdown %.2f against %.2f (error %+.1f%%)\n",
			r.Estimator, r.Baseline, r.Flows, r.MaxLoad, r.P99.All, r.P99.BaseAll, 100*r.P99.ErrorAll)
	}
	// Output: flowsim against packetsim: 500 flows, max load 0.60, p99 slowdown 5.05 against 6.00 (error -15.8%)
}
