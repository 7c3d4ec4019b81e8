package ccstudy_test

import (
	"context"
	"fmt"

	"github.com/tailscope/tailscope/lib/cceval"
	"github.com/tailscope/tailscope/lib/ccstudy"
	"github.com/tailscope/tailscope/lib/metrics"
)

// Model-free estimation of the median FCT on the study's dumbbell with 60
// flows a trial, through flowSim, to a 20% margin.
func ExampleEstimate() {
	spec := ccstudy.Override(ccstudy.Dumbbell(), "", 0, 60)
	e, err := ccstudy.Estimate(context.Background(), []ccstudy.Case{{Label: "flowsim", Spec: spec, Estimator: "flowsim"}},
		metrics.AllSizes(), cceval.Config{Margin: 0.2, Seed: 1, Workers: 1, Targets: []string{"fct_p50"}}, nil, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	m := e.Results[0].Metrics[0]
	fmt.Printf("%s %s: converged %v after %d trials (forecast %d)\n", e.Labels()[0], m.Name, m.Converged(), m.Trials, m.Forecast)
	// Output:
	// flowsim fct_p50: converged true after 20 trials (forecast 20)
}
