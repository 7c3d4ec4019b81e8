package cceval_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/tailscope/tailscope/lib/cceval"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
)

// Model-free estimation of a synthetic metric: the mean of a noisy trial
// result to 2% at 95% confidence, with the forecast from the exploratory
// stage.
func ExampleEstimate() {
	trial := func(_ context.Context, seed uint64) (cceval.Metrics, error) {
		r := rand.New(rand.NewPCG(seed, 1))
		return cceval.Metrics{"fct_p99": 1000 + 100*r.NormFloat64()}, nil
	}
	res, err := cceval.Estimate(context.Background(), trial, cceval.Config{Margin: 0.02, Seed: 1})
	if err != nil {
		panic(err)
	}
	m := res.Metrics[0]
	fmt.Printf("%s converged: %v after %d trials (forecast %d)\n", m.Name, m.Converged(), m.Trials, m.Forecast)
	// Output: fct_p99 converged: true after 110 trials (forecast 154)
}

// Model-free estimation of packetsim's p50 and p99 FCT on the CCEval
// dumbbell to 25%, trials of 100 flows.
func ExampleScenarioTrial() {
	spec := scenario.CCEvalDumbbell(100, 0.3, "webserver")
	trial := cceval.ScenarioTrial(spec, "packetsim", "", metrics.AllSizes(), []float64{50, 99})
	res, err := cceval.Estimate(context.Background(), trial, cceval.Config{Margin: 0.25, Seed: 1, Targets: []string{"fct_p50", "fct_p99"}})
	if err != nil {
		panic(err)
	}
	for _, m := range res.Metrics {
		fmt.Printf("%s: within 25%% after %d trials\n", m.Name, m.Trials)
	}
	// Output:
	// fct_p50: within 25% after 20 trials
	// fct_p99: within 25% after 42 trials
}

// The p90 FCT of the dumbbell's log-normal model, importance-sampled:
// cycles of 0.25 ms run through packetsim.
func ExampleTailQuantile() {
	spec := scenario.CCEvalDumbbell(1, 0.3, "webserver")
	model, err := cceval.NewModel(spec, 250_000)
	if err != nil {
		panic(err)
	}
	run, err := cceval.EstimatorRunner(spec, "packetsim", "")
	if err != nil {
		panic(err)
	}
	res, err := cceval.TailQuantile(context.Background(), model, run, cceval.TailConfig{P: 0.9, Margin: 0.1, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("sizes %v, %.1f flows per cycle\n", model.Size, model.MeanFlows())
	fmt.Printf("p90 FCT within 10%%: %v, %d cycles\n", res.Interval.Converged(0.1), res.Cycles)
	// Output:
	// sizes lognormal(mu=7.688,sigma=1.84), 7.9 flows per cycle
	// p90 FCT within 10%: true, 900 cycles
}
