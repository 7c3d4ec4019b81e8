package cceval

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tailscope/tailscope/lib/metrics"
)

// Forecast must be the smallest N at which the exploratory mean and
// deviation satisfy Eq. 2 with t_{N-1}, and close to Eq. 3's z²s²/(ε²m²).
func TestForecast(t *testing.T) {
	for _, c := range []struct {
		spread, margin, level float64
	}{
		{0.1, 0.01, 0.95},
		{0.3, 0.02, 0.99},
		{0.05, 0.05, 0.90},
		{0.5, 0.1, 0.95},
	} {
		xs := make([]float64, 20)
		for i := range xs {
			xs[i] = 1 + c.spread*float64(2*(i%2)-1) // mean 1, s = spread·√(20/19)
		}
		n, err := Forecast(xs, c.level, c.margin)
		if err != nil {
			t.Fatal(err)
		}
		s := c.spread * math.Sqrt(20.0/19)
		z := map[float64]float64{0.90: 1.644854, 0.95: 1.959964, 0.99: 2.575829}[c.level]
		eq3 := z * z * s * s / (c.margin * c.margin)
		holds := func(n int) bool { return metrics.TQuantile(c.level, n)*s <= c.margin*math.Sqrt(float64(n)) }
		if !holds(n) || (n > 2 && holds(n-1)) {
			t.Errorf("spread %v margin %v: forecast %d is not the first N meeting Eq. 2", c.spread, c.margin, n)
		}
		if float64(n) < eq3 || float64(n) > eq3*1.2+6 {
			t.Errorf("spread %v margin %v: forecast %d far from Eq. 3's %.1f", c.spread, c.margin, n, eq3)
		}
	}
	if _, err := Forecast([]float64{0, 0, 0}, 0.95, 0.01); err == nil {
		t.Error("Forecast of zero-mean samples: no error")
	}
	if _, err := Forecast([]float64{1, 2}, 0.95, 0); err == nil {
		t.Error("Forecast with zero margin: no error")
	}
}

// normalTrial is a synthetic metric N(mean, sd²) per trial, seeded.
func normalTrial(mean, sd float64) Trial {
	return func(_ context.Context, seed uint64) (Metrics, error) {
		r := rand.New(rand.NewPCG(seed, 11))
		return Metrics{"x": mean + sd*r.NormFloat64(), "y": 2 * mean * r.ExpFloat64()}, nil
	}
}

// The stopping point and every interval depend on the seed only, not on
// the number of workers; the result meets Eq. 2 at Trials and not before.
func TestEstimateDeterministicAndConverged(t *testing.T) {
	cfg := Config{Margin: 0.02, Seed: 100, Targets: []string{"x"}}
	var first *Result
	for _, w := range []int{1, 2, 7} {
		cfg.Workers = w
		res, err := Estimate(context.Background(), normalTrial(10, 1), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
			continue
		}
		if !reflect.DeepEqual(res, first) {
			t.Errorf("workers %d: result differs from workers 1", w)
		}
	}
	m := first.Metrics[0]
	if !first.Converged() || m.Trials != len(first.Trials) || m.Trials < 20 {
		t.Fatalf("not converged properly: %d trials, metric %+v", len(first.Trials), m.Interval)
	}
	if !m.Interval.Converged(0.02) || m.Trace[m.Trials-2] != m.Interval {
		t.Errorf("final interval %v does not meet the margin or is not the trace's last", m.Interval)
	}
	for _, iv := range m.Trace[18 : m.Trials-2] { // N = 20 .. Trials-1
		if iv.Converged(0.02) {
			t.Errorf("converged at N=%d already, but stopped at %d", iv.N, m.Trials)
		}
	}
	// sd/mean = 0.1 at 2%: Eq. 3 gives 1.96² x 25 = 96 trials.
	if m.Trials < 60 || m.Trials > 140 || m.Forecast < 50 || m.Forecast > 160 {
		t.Errorf("real %d and forecast %d trials, expected near 96", m.Trials, m.Forecast)
	}
}

// Repeated model-free estimates at 95% contain the true mean 93-97% of the
// time (4000 repetitions: the binomial standard error is 0.34%). The
// sequential stopping rule is part of what is tested.
func TestEstimateCoverage(t *testing.T) {
	for _, c := range []struct {
		name  string
		trial Trial
		key   string
		mean  float64
	}{
		{"normal", normalTrial(10, 2), "x", 10},
		// Skewed (exponential): the mean's sampling distribution is not
		// yet normal at ~100 trials; t intervals under-cover slightly.
		{"exponential", normalTrial(0.5, 0), "y", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			const reps = 4000
			margin := map[string]float64{"x": 0.05, "y": 0.2}[c.key]
			hit, trials := 0, 0
			for rep := range reps {
				res, err := Estimate(context.Background(), c.trial, Config{Margin: margin, Workers: 1, Seed: uint64(rep) << 20, Targets: []string{c.key}})
				if err != nil {
					t.Fatal(err)
				}
				m := res.Metrics[0]
				if !m.Converged() {
					t.Fatalf("rep %d did not converge", rep)
				}
				trials += m.Trials
				if m.Interval.Contains(c.mean) {
					hit++
				}
			}
			cov := float64(hit) / reps
			t.Logf("%s: coverage %.2f%% over %d repetitions, mean %.1f trials", c.name, 100*cov, reps, float64(trials)/reps)
			if cov < 0.93 || cov > 0.97 {
				t.Errorf("coverage %.2f%%, want 93-97%%", 100*cov)
			}
		})
	}
}

func TestEstimateErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, c := range []struct {
		name  string
		trial Trial
		cfg   Config
		want  string
	}{
		{"nil trial", nil, Config{}, "nil trial"},
		{"bad level", normalTrial(1, 1), Config{Level: 95}, "confidence level"},
		{"bad margin", normalTrial(1, 1), Config{Margin: -1}, "margin"},
		{"tiny exploratory", normalTrial(1, 1), Config{Exploratory: 1}, "exploratory"},
		{"max below exploratory", normalTrial(1, 1), Config{MaxTrials: 5}, "max trials"},
		{"failing trial", func(_ context.Context, seed uint64) (Metrics, error) {
			if seed == 7 {
				return nil, boom
			}
			return Metrics{"x": 1}, nil
		}, Config{Margin: 1e-9}, "trial 7 (seed 7): boom"},
		{"missing metric", func(_ context.Context, seed uint64) (Metrics, error) {
			if seed == 3 {
				return Metrics{"z": 1}, nil
			}
			return Metrics{"x": float64(seed)}, nil
		}, Config{}, `trial 3 (seed 3): metric "x" missing`},
		{"NaN metric", func(_ context.Context, seed uint64) (Metrics, error) { return Metrics{"x": math.NaN()}, nil }, Config{}, "NaN"},
		{"zero mean", func(_ context.Context, seed uint64) (Metrics, error) { return Metrics{"x": 0}, nil }, Config{}, "mean is 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Estimate(context.Background(), c.trial, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %v, want one containing %q", err, c.want)
			}
		})
	}
}

// A metric that cannot converge stops at MaxTrials and says so.
func TestEstimateMaxTrials(t *testing.T) {
	res, err := Estimate(context.Background(), normalTrial(1, 5), Config{MaxTrials: 30, Margin: 0.001})
	if err != nil {
		t.Fatal(err)
	}
	if res.Converged() || len(res.Trials) != 30 || res.Metrics[0].Interval.N != 30 {
		t.Errorf("converged=%v after %d trials, interval n=%d; want unconverged at 30", res.Converged(), len(res.Trials), res.Metrics[0].Interval.N)
	}
	if _, ok := res.Metric("x"); !ok {
		t.Error("metric x missing")
	}
}

// SyntheticTrial's exponential metric: intervals at a 20% margin contain
// the mean about 95% of the time (1000 repetitions, standard error 0.7%).
func TestSyntheticTrialCoverage(t *testing.T) {
	hit := 0
	for rep := range 1000 {
		res, err := Estimate(context.Background(), SyntheticTrial(ExpDist(3)), Config{Margin: 0.2, Workers: 1, Seed: uint64(rep) << 20})
		if err != nil {
			t.Fatal(err)
		}
		if res.Metrics[0].Interval.Contains(3) {
			hit++
		}
	}
	if cov := float64(hit) / 1000; cov < 0.93 || cov > 0.97 {
		t.Errorf("coverage %.1f%%", 100*cov)
	}
	if _, err := SyntheticTrial(ExpDist(-1))(context.Background(), 1); err == nil {
		t.Error("invalid distribution: no error")
	}
}

// Cancelling the context stops an estimation with the context's error:
// trials see the cancelled context, and no trial starts after it.
func TestEstimateCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var started atomic.Int64
	trial := func(ctx context.Context, seed uint64) (Metrics, error) {
		if started.Add(1) == 30 {
			cancel()
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return normalTrial(10, 1)(ctx, seed)
	}
	// Margin 1e-6 would need millions of trials.
	res, err := Estimate(ctx, trial, Config{Margin: 1e-6, Workers: 2, MaxTrials: 100000})
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("cancelled estimation: result %v, error %v; want none and context.Canceled", res != nil, err)
	}
	if n := started.Load(); n > 32 {
		t.Errorf("%d trials started; the cancel came at the 30th of 2 workers", n)
	}
}
