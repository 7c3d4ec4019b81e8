package plot

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/cceval"
)

// synthResult runs model-free estimation of two synthetic metrics whose
// spread grows with scale.
func synthResult(t *testing.T, scale float64, seed uint64) *cceval.Result {
	t.Helper()
	r, err := cceval.Estimate(context.Background(), func(_ context.Context, s uint64) (cceval.Metrics, error) {
		g := rand.New(rand.NewPCG(s, 1))
		return cceval.Metrics{"fct_p50": 100 + 5*scale*g.NormFloat64(), "fct_p99": 900 * (1 + 0.2*scale*g.ExpFloat64())}, nil
	}, cceval.Config{Margin: 0.02, Seed: seed, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCCEvalFigures(t *testing.T) {
	a, b := synthResult(t, 1, 1), synthResult(t, 2, 2)
	iv := func(m, h float64) cceval.Interval { return cceval.Interval{N: 40, Mean: m, Half: h, Level: 0.95} }
	cmp := &cceval.TailComparison{P: 0.99, Metric: "fct", ModelFree: cceval.MetricResult{Interval: iv(100, 1)}, ModelFreeCount: 24000,
		Plain: &cceval.TailResult{Interval: iv(120, 1.2), Cycles: 30000}, IS: &cceval.TailResult{Interval: iv(121, 1.2), Cycles: 9000, SearchCycles: 600}}
	var pts []cceval.DurationPoint
	for i, n := range []int{10, 100, 1000} {
		w := 0.3 / float64(i+1)
		pts = append(pts, cceval.DurationPoint{Flows: n, Result: cceval.MetricResult{Interval: iv(50+20*float64(i), 3), Trials: 4000 / (i + 1)},
			StableMean: 60 + 18*float64(i), WarmUp: w, CoolDown: w, Stable: 1 - 2*w, TotalFlows: n * 4000 / (i + 1)})
	}
	for _, tc := range []struct {
		name string
		make func() (*Figure, error)
	}{
		{"cceval_trace", func() (*Figure, error) { return CITrace(a, nil) }},
		{"cceval_by_label", func() (*Figure, error) {
			return CIByLabel([]string{"narrow", "wide"}, []*cceval.Result{a, b}, "fct_p99")
		}},
		{"cceval_durations", func() (*Figure, error) { return Durations(pts, "fct_p99") }},
		{"cceval_tail", func() (*Figure, error) { return TailComparison(cmp) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.make()
			if err != nil {
				t.Fatal(err)
			}
			saveBoth(t, f, tc.name)
		})
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{second(CITrace(a, []string{"nope"})), "none of the metrics"},
		{second(CIByLabel([]string{"x"}, []*cceval.Result{a}, "nope")), `no metric "nope"`},
		{second(CIByLabel(nil, nil, "x")), "one label per result"},
		{second(Durations(nil, "x")), "no points"},
		{second(TailComparison(nil)), "incomplete"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want it to mention %q", tc.err, tc.want)
		}
	}
}
