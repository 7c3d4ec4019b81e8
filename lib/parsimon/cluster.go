package parsimon

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
)

// ClusterOptions are the thresholds of Parsimon's greedy link clustering
// (Alg. 1, App. D). Zero fields take the defaults of DefaultClusterOptions.
type ClusterOptions struct {
	// MaxWMAPE bounds the WMAPE between the quantiles of flow sizes and
	// between those of inter-arrival times (default 0.1).
	MaxWMAPE float64 `json:"max_wmape,omitempty"`
	// MaxLoadDiff bounds the absolute difference of loads (default 0.005).
	MaxLoadDiff float64 `json:"max_load_diff,omitempty"`
	// MaxLoadError, when positive, also bounds the relative load error
	// |a-b|/a against the representative's load a (the paper's e; it uses
	// 0.001-0.002 at high load).
	MaxLoadError float64 `json:"max_load_error,omitempty"`
	// Quantiles is the number of quantiles compared (default 1000).
	Quantiles int `json:"quantiles,omitempty"`
}

// DefaultClusterOptions returns the thresholds of REFERENCE.md.
func DefaultClusterOptions() ClusterOptions {
	return ClusterOptions{MaxWMAPE: 0.1, MaxLoadDiff: 0.005, Quantiles: 1000}
}

func (o ClusterOptions) withDefaults() ClusterOptions {
	d := DefaultClusterOptions()
	if o.MaxWMAPE == 0 {
		o.MaxWMAPE = d.MaxWMAPE
	}
	if o.MaxLoadDiff == 0 {
		o.MaxLoadDiff = d.MaxLoadDiff
	}
	if o.Quantiles == 0 {
		o.Quantiles = d.Quantiles
	}
	return o
}

func (o ClusterOptions) validate() error {
	if o.MaxWMAPE < 0 || o.MaxLoadDiff < 0 || o.MaxLoadError < 0 || o.Quantiles < 2 {
		return fmt.Errorf("parsimon: cluster thresholds must be >= 0 and quantiles >= 2, got %+v", o)
	}
	return nil
}

// Features describe a channel's workload for clustering (App. D): its
// load, the quantiles of its flow sizes and of its flows' inter-arrival
// times. Channels of different link-level shape or bandwidth never
// cluster: their delays are not interchangeable whatever their workloads.
type Features struct {
	Kind      Kind
	Bandwidth int64
	Load      float64
	Sizes     []float64
	Gaps      []float64
}

// NewFeatures computes a channel's features from its flows' sizes and
// start times (starts sorted ascending), keeping q quantiles of each.
func NewFeatures(kind Kind, bandwidth int64, load float64, sizes, starts []int64, q int) Features {
	s := slices.Clone(sizes)
	var g []int64
	for i := 1; i < len(starts); i++ {
		g = append(g, starts[i]-starts[i-1])
	}
	return Features{Kind: kind, Bandwidth: bandwidth, Load: load, Sizes: quantiles(s, q), Gaps: quantiles(g, q)}
}

// quantiles returns q quantiles of v at probabilities i/(q-1), i = 0..q-1,
// by nearest rank, not metrics.Percentile's interpolation: these are
// clustering features, compared between links as Parsimon's clustering
// defines them, and never reported. All zero for an empty v. It sorts v. Sizes and gaps
// are sorted as integers, not as floats: a third of Parsimon/C's setup at
// millions of flows was sorting them (perf), and float64 conversion keeps
// their order, so the quantiles are the same.
func quantiles(v []int64, q int) []float64 {
	out := make([]float64, q)
	if len(v) == 0 {
		return out
	}
	sortInts(v)
	for i := range out {
		out[i] = float64(v[int(math.Round(float64(i)/float64(q-1)*float64(len(v)-1)))])
	}
	return out
}

// sortInts sorts v ascending: by bytes, least significant first, when
// every value is non-negative (sizes and gaps are), skipping bytes that
// are the same in every value; else by comparison.
func sortInts(v []int64) {
	var or, and uint64 = 0, math.MaxUint64
	for _, x := range v {
		if x < 0 {
			slices.Sort(v)
			return
		}
		or, and = or|uint64(x), and&uint64(x)
	}
	if len(v) < 64 {
		slices.Sort(v)
		return
	}
	buf := make([]int64, len(v))
	src, dst := v, buf
	for shift := uint(0); shift < 64; shift += 8 {
		if (or^and)>>shift&0xff == 0 {
			continue // the same byte in every value
		}
		var count [257]int
		for _, x := range src {
			count[uint64(x)>>shift&0xff+1]++
		}
		for b := 1; b < 257; b++ {
			count[b] += count[b-1]
		}
		for _, x := range src {
			d := uint64(x) >> shift & 0xff
			dst[count[d]] = x
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &v[0] {
		copy(v, src)
	}
}

// WMAPE is the weighted mean absolute percentage error of b against a:
// sum |a_i - b_i| / sum |a_i|. It is 0 for two all-zero sequences and +Inf
// when only a is all zero. The sequences must be equally long.
func WMAPE(a, b []float64) float64 {
	var num, den float64
	for i := range a {
		num += math.Abs(a[i] - b[i])
		den += math.Abs(a[i])
	}
	if den == 0 {
		if num == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return num / den
}

// Close reports whether candidate c may join the cluster of representative
// r under o (zero thresholds taking their defaults).
func (o ClusterOptions) Close(r, c Features) bool {
	return o.withDefaults().close(r, c, [2]float64{absSum(r.Sizes), absSum(r.Gaps)})
}

// close is Close with defaults set and r's quantile sums (WMAPE's
// denominators) given.
func (o ClusterOptions) close(r, c Features, sums [2]float64) bool {
	if r.Kind != c.Kind || r.Bandwidth != c.Bandwidth || len(r.Sizes) != len(c.Sizes) || len(r.Gaps) != len(c.Gaps) {
		return false
	}
	if math.Abs(r.Load-c.Load) >= o.MaxLoadDiff {
		return false
	}
	if o.MaxLoadError > 0 && !(math.Abs(r.Load-c.Load) < o.MaxLoadError*r.Load) {
		return false
	}
	return wmapeBelow(r.Sizes, c.Sizes, sums[0], o.MaxWMAPE) && wmapeBelow(r.Gaps, c.Gaps, sums[1], o.MaxWMAPE)
}

// wmapeBelow reports whether WMAPE(a, b) < t, given den = absSum(a). It
// stops once a partial sum decides: the terms are not negative, so a
// partial numerator over den at or above t stays there, and most pairs
// compared are far apart (Cluster spent most of its time here).
func wmapeBelow(a, b []float64, den, t float64) bool {
	if den == 0 {
		return WMAPE(a, b) < t
	}
	var num float64
	for i := range a {
		num += math.Abs(a[i] - b[i])
		if i&63 == 63 && !(num/den < t) {
			return false
		}
	}
	return num/den < t
}

// Cluster groups items greedily (Parsimon Alg. 1): the first unclustered
// item becomes a representative and takes every later unclustered item
// close enough to it. It returns each item's representative (an index into
// feats; representatives are their own), or an error wrapping ctx.Err()
// once ctx is done.
func Cluster(ctx context.Context, feats []Features, o ClusterOptions) ([]int, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	// Only items of one shape and bandwidth whose loads differ by less
	// than MaxLoadDiff can be close. Sorted by load within such groups, a
	// representative compares with a window of its group instead of every
	// later item: the same clusters as the all-pairs loop of Alg. 1 (the
	// window is wider than the bound and Close decides), at a small part
	// of its cost on fabrics with thousands of channels.
	for i, f := range feats {
		if math.IsNaN(f.Load) || math.IsInf(f.Load, 0) {
			return nil, fmt.Errorf("parsimon: clustering item %d has load %g", i, f.Load)
		}
	}
	type group struct {
		kind Kind
		bw   int64
	}
	groups := map[group][]int{}
	for i, f := range feats {
		g := group{f.Kind, f.Bandwidth}
		groups[g] = append(groups[g], i)
	}
	for _, m := range groups {
		slices.SortStableFunc(m, func(a, b int) int { return cmp.Compare(feats[a].Load, feats[b].Load) })
	}
	sums := make([][2]float64, len(feats))
	for i, f := range feats {
		sums[i] = [2]float64{absSum(f.Sizes), absSum(f.Gaps)}
	}
	rep := make([]int, len(feats))
	for i := range rep {
		rep[i] = -1
	}
	for i, f := range feats {
		if rep[i] >= 0 {
			continue
		}
		if err := interrupted(ctx); err != nil {
			return nil, err
		}
		rep[i] = i
		m := groups[group{f.Kind, f.Bandwidth}]
		lo, hi := f.Load-2*o.MaxLoadDiff, f.Load+2*o.MaxLoadDiff
		k, _ := slices.BinarySearchFunc(m, lo, func(j int, v float64) int { return cmp.Compare(feats[j].Load, v) })
		for ; k < len(m) && !(feats[m[k]].Load > hi); k++ {
			if j := m[k]; j > i && rep[j] < 0 && !far(sums[i], sums[j], o.MaxWMAPE) && o.close(f, feats[j], sums[i]) {
				rep[j] = i
			}
		}
	}
	return rep, nil
}

// far reports whether two items' quantile sums alone rule out a WMAPE
// below t, which spares the comparison of their quantiles: WMAPE(a, b) =
// sum |a_i - b_i| / sum |a_i| is at least |sum a_i - sum b_i| / sum |a_i|
// for the non-negative quantiles of sizes and gaps. The margin keeps the
// test on the safe side of rounding; Close decides the rest exactly.
func far(r, c [2]float64, t float64) bool {
	for k := range r {
		if math.Abs(r[k]-c[k]) > t*r[k]*(1+1e-9) {
			return true
		}
	}
	return false
}

// absSum is sum |v_i|, WMAPE's denominator.
func absSum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += math.Abs(x)
	}
	return s
}
