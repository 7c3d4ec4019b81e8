package m3

import (
	"cmp"
	"fmt"
	"slices"
)

// PathEstimate is the prediction for one sampled path: how often it was
// drawn, its foreground flows per output bucket and its predicted
// foreground slowdown percentiles 1..100 per output bucket.
type PathEstimate struct {
	Draws       int
	Count       []int
	Percentiles [][]float64
}

// Distribution is a network-wide slowdown estimate: percentiles 1..100 per
// output bucket (M3OutputBins) and over all flows.
type Distribution struct {
	Buckets [][]float64
	Overall []float64
	// Flows is the number of the network's flows per output bucket, the
	// mixing weights of Overall.
	Flows []int
}

// point is one percentile value of a path with its share of the mass, and
// where it came from: the path's index and the column (bucket x
// NumPercentiles + percentile index) of its prediction.
type point struct {
	v, w      float64
	path, col int
}

// quantiles sorts pts by value and returns the points that are the
// percentiles 1..100 of the mixture in which every point carries mass w:
// the smallest value whose cumulative mass reaches p% of the total. The
// weights are m3's (each sampled path stands for its share of the
// flows), which metrics.Percentile, unweighted, cannot carry.
func quantiles(pts []point) []point {
	slices.SortStableFunc(pts, func(a, b point) int { return cmp.Compare(a.v, b.v) })
	var total float64
	for _, p := range pts {
		total += p.w
	}
	out := make([]point, NumPercentiles)
	cum, i := 0.0, 0
	for k := range out {
		target := total * float64(k+1) / NumPercentiles * (1 - 1e-12)
		for i < len(pts)-1 && cum+pts[i].w < target {
			cum += pts[i].w
			i++
		}
		out[k] = pts[i]
	}
	return out
}

// values is the values of pts.
func values(pts []point) []float64 {
	v := make([]float64, len(pts))
	for i, p := range pts {
		v[i] = p.v
	}
	return v
}

// Aggregate pools sampled paths into network-wide distributions (m3 §3.5).
// Within bucket b, path i's percentiles each carry mass
// Draws_i x Count_i[b] / sum_b Count_i[b] / 100: paths are drawn in
// proportion to their foreground flows, so this weights every path by its
// flows in bucket b. A bucket no sampled path has flows in falls back to
// the paths' predictions for it weighted by draws alone. Overall mixes the
// buckets in proportion to flows, the network's flow counts per bucket.
func Aggregate(paths []PathEstimate, flows []int) (*Distribution, error) {
	buckets, overall, err := mixture(paths, flows)
	if err != nil {
		return nil, err
	}
	d := &Distribution{Flows: flows, Overall: values(overall)}
	for _, q := range buckets {
		d.Buckets = append(d.Buckets, values(q))
	}
	return d, nil
}

// mixture is Aggregate's pooling: the points that are the percentiles of
// each bucket's and of the overall distribution, each naming the path
// percentile it is (so that a loss on them reaches the prediction).
func mixture(paths []PathEstimate, flows []int) (buckets [][]point, overall []point, err error) {
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("m3: nothing to aggregate")
	}
	nb := len(flows)
	total := make([]int, len(paths)) // each path's foreground flows
	for i, p := range paths {
		if len(p.Percentiles) != nb || len(p.Count) != nb {
			return nil, nil, fmt.Errorf("m3: path estimate %d has %d buckets, want %d", i, len(p.Percentiles), nb)
		}
		for _, c := range p.Count {
			total[i] += c
		}
	}
	for b := range nb {
		var pts []point
		for i, p := range paths {
			if p.Count[b] > 0 {
				for k, v := range p.Percentiles[b] {
					pts = append(pts, point{v, float64(p.Draws) * float64(p.Count[b]) / float64(total[i]), i, b*NumPercentiles + k})
				}
			}
		}
		if len(pts) == 0 {
			for i, p := range paths {
				for k, v := range p.Percentiles[b] {
					pts = append(pts, point{v, float64(p.Draws), i, b*NumPercentiles + k})
				}
			}
		}
		buckets = append(buckets, quantiles(pts))
	}
	var all []point
	for b, q := range buckets {
		for _, x := range q {
			if flows[b] > 0 {
				all = append(all, point{x.v, float64(flows[b]), x.path, x.col})
			}
		}
	}
	if len(all) == 0 {
		return nil, nil, fmt.Errorf("m3: no flows in any bucket")
	}
	return buckets, quantiles(all), nil
}

// at reads percentile row q (1..100) at quantile u in (0, 1] by linear
// interpolation between percentile points, flat below the 1st.
func at(q []float64, u float64) float64 {
	x := u*NumPercentiles - 1
	if x <= 0 {
		return q[0]
	}
	i := int(x)
	if i >= len(q)-1 {
		return q[len(q)-1]
	}
	return q[i] + (x-float64(i))*(q[i+1]-q[i])
}
