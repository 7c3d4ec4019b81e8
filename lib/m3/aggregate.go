package m3

import (
	"fmt"
	"sort"
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

// point is one percentile value of a path with its share of the mass.
type point struct{ v, w float64 }

// quantiles returns the percentiles 1..100 of the mixture in which every
// point carries mass w: the smallest value whose cumulative mass reaches
// p% of the total.
func quantiles(pts []point) []float64 {
	sort.Slice(pts, func(a, b int) bool { return pts[a].v < pts[b].v })
	var total float64
	for _, p := range pts {
		total += p.w
	}
	out := make([]float64, NumPercentiles)
	cum, i := 0.0, 0
	for k := range out {
		target := total * float64(k+1) / NumPercentiles * (1 - 1e-12)
		for i < len(pts)-1 && cum+pts[i].w < target {
			cum += pts[i].w
			i++
		}
		out[k] = pts[i].v
	}
	return out
}

// Aggregate pools sampled paths into network-wide distributions (m3 §3.5).
// Within bucket b, path i's percentiles each carry mass
// Draws_i x Count_i[b] / sum_b Count_i[b] / 100: paths are drawn in
// proportion to their foreground flows, so this weights every path by its
// flows in bucket b. A bucket no sampled path has flows in falls back to
// the paths' predictions for it weighted by draws alone. Overall mixes the
// buckets in proportion to flows, the network's flow counts per bucket.
func Aggregate(paths []PathEstimate, flows []int) (*Distribution, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("m3: nothing to aggregate")
	}
	nb := len(flows)
	d := &Distribution{Flows: flows}
	for b := range nb {
		var pts, fallback []point
		for i, p := range paths {
			if len(p.Percentiles) != nb || len(p.Count) != nb {
				return nil, fmt.Errorf("m3: path estimate %d has %d buckets, want %d", i, len(p.Percentiles), nb)
			}
			n := 0
			for _, c := range p.Count {
				n += c
			}
			for _, v := range p.Percentiles[b] {
				if n > 0 && p.Count[b] > 0 {
					pts = append(pts, point{v, float64(p.Draws) * float64(p.Count[b]) / float64(n)})
				}
				fallback = append(fallback, point{v, float64(p.Draws)})
			}
		}
		if len(pts) == 0 {
			pts = fallback
		}
		d.Buckets = append(d.Buckets, quantiles(pts))
	}
	var all []point
	for b, q := range d.Buckets {
		for _, v := range q {
			if flows[b] > 0 {
				all = append(all, point{v, float64(flows[b])})
			}
		}
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("m3: no flows in any bucket")
	}
	d.Overall = quantiles(all)
	return d, nil
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
