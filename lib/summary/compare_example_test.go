package summary_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/summary"
)

// Two estimators on one scenario, written as "tailscope run" writes them,
// compared per size bin with packetsim.
func ExampleCompareDirs() {
	spec := scenario.Default()
	spec.Workload.Flows = 300
	sc, err := scenario.Build(spec)
	if err != nil {
		log.Fatal(err)
	}
	out, err := os.MkdirTemp("", "compare")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)
	dir := filepath.Join(out, sc.ID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	for _, est := range []string{"packetsim", "flowsim"} {
		res, err := estimator.Run(context.Background(), est, sc, "")
		if err != nil {
			log.Fatal(err)
		}
		if err := res.Write(filepath.Join(dir, est+".parquet"), sc); err != nil {
			log.Fatal(err)
		}
	}
	rows, err := summary.CompareDirs([]string{out}, "packetsim", metrics.DefaultBins())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rows[0].Scenario)
	for _, r := range rows {
		fmt.Println(r.Estimator, "against", r.Baseline, "in", r.Bin)
	}
	// Output:
	// default, meta32-2:1, dctcp, load 50%
	// flowsim against packetsim in <=1KB
	// flowsim against packetsim in 1KB-10KB
	// flowsim against packetsim in 10KB-100KB
	// flowsim against packetsim in >100KB
	// flowsim against packetsim in all
}
