// Package cceval puts confidence intervals on estimator results, after
// CCEval (Liu et al., seed 001, §3-5). A trial is one workload sampled with a
// fresh seed and run through an estimator; its metrics (FCT or slowdown
// quantiles, RecordMetrics) are one sample of a random variable whose mean
// is wanted.
//
// Model-free estimation (Eq. 1-3, Estimate) runs an exploratory stage of
// trials, forecasts how many trials a relative margin of error needs
// (Forecast), and runs production trials in parallel until every target
// metric's interval is narrow enough. ScenarioTrial runs trials of a
// scenario spec through any estimator of lib/estimator; EstimateSweep runs
// them as resumable sweep tasks of lib/experiment instead.
//
// Model-based tail-quantile estimation (§4.3, TailQuantile) models a
// workload (NewModel: Poisson or log-normal arrivals, log-normal sizes
// fitted to the size CDF by least squares, FitSizes), estimates a
// response-time quantile with the renewal-reward estimator over cycles,
// makes the tail frequent with importance sampling under the switching
// change of measure, whose size distribution an adaptive cross-entropy
// search finds, and gets the interval by the batch method. CompareTail is
// the comparison of Fig. 14; DurationStudy the trial-length analysis of
// Fig. 13 (SplitPhases). The *Table functions turn results into frames
// and lib/plot draws them.
package cceval

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/tailscope/tailscope/lib/metrics"
)

// Interval is a two-sided confidence interval of a mean, metrics.Interval:
// every study's intervals are computed in one place (metrics.MeanCI).
type Interval = metrics.Interval

func checkLevel(level float64) error {
	if !(level > 0 && level < 1) {
		return fmt.Errorf("cceval: confidence level %v must be in (0, 1), e.g. 0.95", level)
	}
	return nil
}

// running accumulates a mean and sum of squared deviations (Welford), so
// that the interval after every trial costs O(1).
type running struct {
	n        int
	mean, m2 float64
}

func (a *running) add(x float64) {
	a.n++
	d := x - a.mean
	a.mean += d / float64(a.n)
	a.m2 += d * (x - a.mean)
}

// interval is Eq. 1 with Student's t; it needs n >= 2.
func (a *running) interval(level float64) Interval {
	s := math.Sqrt(a.m2 / float64(a.n-1))
	return Interval{N: a.n, Mean: a.mean, StdDev: s, Half: metrics.TQuantile(level, a.n) * s / math.Sqrt(float64(a.n)), Level: level}
}

// maxForecast caps Forecast: beyond it the answer is "not feasible", and
// the search below stays bounded.
const maxForecast = 1 << 40

// Forecast is Eq. 3: the trial count N at which the exploratory samples'
// mean and standard deviation would satisfy the convergence condition
// (Eq. 2), t_{N-1}·s ≤ margin·|mean|·√N. With the normal quantile this is
// N = z²s²/(margin²·mean²); the t quantile adds a little for small N.
// The result may be below len(xs) when the samples have converged already.
func Forecast(xs []float64, level, margin float64) (int, error) {
	if !(margin > 0) {
		return 0, fmt.Errorf("cceval: relative margin %v must be positive, e.g. 0.01", margin)
	}
	iv, err := metrics.MeanCI(xs, level)
	if err != nil {
		return 0, err
	}
	if iv.Mean == 0 {
		return 0, errors.New("cceval: the samples' mean is 0; a relative margin cannot be met")
	}
	r := iv.StdDev / (margin * math.Abs(iv.Mean)) // N = (q·r)²
	z := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	ne := math.Ceil(z * z * r * r)
	if ne > maxForecast {
		return maxForecast, nil
	}
	n := max(2, int(ne))
	// t > z, so the t condition needs at least the normal answer: step up.
	for q := metrics.TQuantile(level, n); q*q*r*r > float64(n); q = metrics.TQuantile(level, n) {
		n++
	}
	return n, nil
}
