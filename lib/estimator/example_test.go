package estimator_test

import (
	"context"
	"fmt"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
)

// Two estimators by name on one scenario (a preset made small), and the
// 99th slowdown percentile of each.
func ExampleRun() {
	spec, err := scenario.Named("pfs-dumbbell")
	if err != nil {
		panic(err)
	}
	spec.Workload.Flows = 500
	sc, err := scenario.Build(spec)
	if err != nil {
		panic(err)
	}
	for _, name := range []string{"flowsim", "packetsim"} {
		res, err := estimator.Run(context.Background(), name, sc, "")
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %d records, p99 slowdown %.2f\n", res.Estimator, len(res.Records), metrics.Percentile(metrics.Slowdowns(res.Records), 99))
	}
	// Output:
	// flowsim: 500 records, p99 slowdown 5.05
	// packetsim: 500 records, p99 slowdown 6.00
}
