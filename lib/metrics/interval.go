package metrics

import (
	"fmt"
	"math"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a two-sided confidence interval of a mean.
type Interval struct {
	N      int     // samples
	Mean   float64 // empirical mean
	StdDev float64 // empirical standard deviation (divisor N-1)
	Half   float64 // half-width: the accuracy of the interval (§4.1.1)
	Level  float64 // confidence level 1-rho
}

// Lo is the lower bound.
func (iv Interval) Lo() float64 { return iv.Mean - iv.Half }

// Hi is the upper bound.
func (iv Interval) Hi() float64 { return iv.Mean + iv.Half }

// Contains reports whether x lies in the interval.
func (iv Interval) Contains(x float64) bool { return x >= iv.Lo() && x <= iv.Hi() }

// Relative is the half-width relative to |Mean| (+Inf for a zero mean).
func (iv Interval) Relative() float64 { return iv.Half / math.Abs(iv.Mean) }

// Converged is CCEval's Eq. 2: the half-width is at most margin x |mean|.
func (iv Interval) Converged(margin float64) bool {
	return iv.N >= 2 && iv.Half <= margin*math.Abs(iv.Mean)
}

// String formats the interval as mean ± half (relative half-width, n).
func (iv Interval) String() string {
	return fmt.Sprintf("%.6g ± %.3g (%.2f%%, n=%d)", iv.Mean, iv.Half, 100*iv.Relative(), iv.N)
}

// TQuantile is the two-sided critical value of Student's t with n-1
// degrees of freedom at the given level. CCEval's Eq. 1 uses the normal
// quantile; t keeps the coverage right for few samples (a few seeds, a
// small exploratory stage) and tends to the normal value as n grows.
func TQuantile(level float64, n int) float64 {
	k := tKey{level, n}
	if q, ok := tCache.Load(k); ok {
		return q.(float64)
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(1 - (1-level)/2)
	tCache.Store(k, q)
	return q
}

// tCache memoizes TQuantile: the inverse incomplete beta function costs
// about 15 us, and CCEval's estimation needs one per metric per trial.
var tCache sync.Map

type tKey struct {
	level float64
	n     int
}

// MeanCI is the Student-t confidence interval of the mean of the samples
// xs at the given level (CCEval's Eq. 1 with t): mean ± t·s/√N, s the
// standard deviation with divisor N-1. It needs two finite samples or
// more. Every study's interval over seeds or trials is this one.
func MeanCI(xs []float64, level float64) (Interval, error) {
	if !(level > 0 && level < 1) {
		return Interval{}, fmt.Errorf("metrics: confidence level %v must be in (0, 1), e.g. 0.95", level)
	}
	if len(xs) < 2 {
		return Interval{}, fmt.Errorf("metrics: a confidence interval needs at least 2 samples, got %d", len(xs))
	}
	var n int
	var mean, m2 float64
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Interval{}, fmt.Errorf("metrics: sample %d is %v", i, x)
		}
		// Welford's update: no cancellation for large means.
		n++
		d := x - mean
		mean += d / float64(n)
		m2 += d * (x - mean)
	}
	s := math.Sqrt(m2 / float64(n-1))
	return Interval{N: n, Mean: mean, StdDev: s, Half: TQuantile(level, n) * s / math.Sqrt(float64(n)), Level: level}, nil
}
