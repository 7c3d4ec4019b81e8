package metrics

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Percentile returns the p-th percentile (0 <= p <= 100) of xs by linear
// interpolation between order statistics, numpy's default (Hyndman and Fan
// type 7), which the papers' evaluation scripts use: with x sorted
// ascending and h = (n-1)p/100, the result is
// x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]).
// So p = 0 is the minimum, p = 100 the maximum and p = 50 the usual median.
// It is NaN when xs is empty or p is outside [0, 100]. xs is not modified.
// Every percentile a study reports is this one. Two methods keep their
// own, documented where they are used: Parsimon's clustering features
// are nearest-rank quantiles (parsimon's quantiles), and m3 aggregates
// its paths' predictions by mass-weighted percentiles (m3's quantiles).
func Percentile(xs []float64, p float64) float64 {
	return Percentiles(xs, []float64{p})[0]
}

// Percentiles returns Percentile(xs, p) for every p in ps, sorting once.
func Percentiles(xs []float64, ps []float64) []float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = sortedPercentile(s, p)
	}
	return out
}

// sortedPercentile is Percentile on already sorted values.
func sortedPercentile(s []float64, p float64) float64 {
	if len(s) == 0 || !(p >= 0 && p <= 100) {
		return math.NaN()
	}
	h := float64(len(s)-1) * p / 100
	lo := int(math.Floor(h))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// P99Error is the relative error of an estimate against a baseline,
// (est - base) / base, the error Parsimon (§5.3) and m3 report: positive
// is an overestimate. It is NaN when base is not positive.
func P99Error(est, base float64) float64 {
	if !(base > 0) {
		return math.NaN()
	}
	return (est - base) / base
}

// Slowdowns returns the records' slowdowns in record order.
func Slowdowns(recs []Record) []float64 {
	s := make([]float64, len(recs))
	for i, r := range recs {
		s[i] = r.Slowdown
	}
	return s
}

// SlowdownsByBin splits the records' slowdowns by the size bin of each flow.
func SlowdownsByBin(recs []Record, b Bins) [][]float64 {
	out := make([][]float64, b.Len())
	for _, r := range recs {
		i := b.Index(r.Size)
		out[i] = append(out[i], r.Slowdown)
	}
	return out
}

// BinPercentiles returns the p-th percentile of slowdown in each size bin
// (NaN for a bin without flows).
func BinPercentiles(recs []Record, b Bins, p float64) []float64 {
	by := SlowdownsByBin(recs, b)
	out := make([]float64, len(by))
	for i, s := range by {
		out[i] = Percentile(s, p)
	}
	return out
}

// Comparison sets an estimator's slowdown percentile against a baseline's,
// per size bin and over all flows.
type Comparison struct {
	Percentile float64  // e.g. 99
	Labels     []string // the size bins
	// Per bin: flow counts, the estimate's and the baseline's percentile
	// and the relative error (P99Error) between them; NaN where a bin is
	// empty on either side.
	Count, BaseCount []int
	Est, Base, Error []float64
	// The same over all flows.
	All, BaseAll, ErrorAll float64
}

// Compare computes the p-th slowdown percentile of est and base per bin and
// overall, and the relative error of est against base. The two record sets
// need not hold the same flows: estimators that sample may return fewer.
func Compare(est, base []Record, b Bins, p float64) Comparison {
	c := Comparison{Percentile: p, Labels: b.Labels,
		Count: make([]int, b.Len()), BaseCount: make([]int, b.Len()),
		Error: make([]float64, b.Len())}
	eb, bb := SlowdownsByBin(est, b), SlowdownsByBin(base, b)
	c.Est, c.Base = make([]float64, b.Len()), make([]float64, b.Len())
	for i := range eb {
		c.Count[i], c.BaseCount[i] = len(eb[i]), len(bb[i])
		c.Est[i], c.Base[i] = Percentile(eb[i], p), Percentile(bb[i], p)
		c.Error[i] = P99Error(c.Est[i], c.Base[i])
	}
	c.All, c.BaseAll = Percentile(Slowdowns(est), p), Percentile(Slowdowns(base), p)
	c.ErrorAll = P99Error(c.All, c.BaseAll)
	return c
}

// String renders the comparison as a fixed-width text table, one row per
// size bin and one for all flows, so that a notebook cell or a terminal
// shows it readably.
func (c Comparison) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s %8s %10s %10s %8s\n", "size", "flows", fmt.Sprintf("est p%g", c.Percentile), fmt.Sprintf("base p%g", c.Percentile), "error")
	for i, l := range c.Labels {
		fmt.Fprintf(&b, "%-12s %8d %10.3f %10.3f %+7.1f%%\n", l, c.Count[i], c.Est[i], c.Base[i], 100*c.Error[i])
	}
	n := 0
	for _, k := range c.Count {
		n += k
	}
	fmt.Fprintf(&b, "%-12s %8d %10.3f %10.3f %+7.1f%%\n", "all", n, c.All, c.BaseAll, 100*c.ErrorAll)
	return b.String()
}
