package m3

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// A Group is the drawn paths of one network with that network's own
// packet-level outcome: the model can then learn the quantity m3 reports,
// the paths' predictions pooled as Aggregate pools them, against the
// network's slowdowns per output bucket, where a path's one or two flows
// say little about its own tail.
type Group struct {
	Samples []*Sample // the drawn paths, each with its own flows' targets (TargetFlows)
	Draws   []int     // how often each was drawn
	// Truth holds the packet-level slowdown percentiles 1..100 of the
	// network's flows per output bucket, TruthCount the flows behind each
	// row.
	Truth      [][]float64
	TruthCount []int
	Overall    []float64 // the same over all flows
}

// NetworkGroup draws o.Samples paths of flows on net as Run does,
// simulates their parking lots with flowSim, and returns them as a Group:
// each drawn path's sample gets, as its target, the slowdowns slowdown[i]
// that a packet-level run of the whole network gave the path's foreground
// flows (Sample.TargetFlows), and the group the whole network's. Training
// tasks (Task) are synthetic parking lots whose foreground is a stream of
// hundreds of flows; a fabric path carries a handful, and these samples
// show the model such paths with their packet-level outcome.
func NetworkGroup(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, slowdown []float64, o Options) (*Group, error) {
	if err := workload.Check(net, flows); err != nil {
		return nil, fmt.Errorf("m3: %w", err)
	}
	if len(slowdown) != len(flows) {
		return nil, fmt.Errorf("m3: %d slowdowns for %d flows", len(slowdown), len(flows))
	}
	for i, s := range slowdown {
		if !(s >= 1) || math.IsInf(s, 1) {
			return nil, fmt.Errorf("m3: flow %d (id %d) has slowdown %v; a packet-level slowdown is finite and at least 1", i, flows[i].ID, s)
		}
	}
	var st Stats
	d, draws, todo, samples, err := simulateDrawn(ctx, net, flows, cfg, o.withDefaults(), &st)
	if err != nil {
		return nil, err
	}
	g := &Group{Samples: samples, Draws: make([]int, len(todo))}
	for i, s := range samples {
		g.Draws[i] = draws[todo[i]]
		var sizes []int64
		var sd []float64
		for _, j := range d.Foreground(todo[i]) {
			sizes = append(sizes, flows[j].Size)
			sd = append(sd, slowdown[j])
		}
		if err := s.setTargetFlows(sizes, sd); err != nil {
			return nil, fmt.Errorf("m3: path %d: %w", todo[i], err)
		}
	}
	sizes := make([]int64, len(flows))
	for i, f := range flows {
		sizes[i] = f.Size
	}
	out := metrics.M3OutputBins()
	g.Truth = FeatureMap(sizes, slowdown, out)
	g.TruthCount = make([]int, out.Len())
	for _, sz := range sizes {
		g.TruthCount[out.Index(sz)]++
	}
	ps := make([]float64, NumPercentiles)
	for i := range ps {
		ps[i] = float64(i + 1)
	}
	g.Overall = metrics.Percentiles(slowdown, ps)
	return g, nil
}

// Pool is the network-wide distribution m3 reports from the group's
// paths, their percentiles pooled by Aggregate as Run pools them: the
// model's predictions, or flowSim's alone when m is nil. Its Flows are
// the network's flows per output bucket.
func (g *Group) Pool(m *Model) (*Distribution, error) {
	est := make([]PathEstimate, len(g.Samples))
	var pred [][][]float64
	if m != nil {
		pred = m.Predict(g.Samples)
	}
	for i, s := range g.Samples {
		est[i] = PathEstimate{Draws: g.Draws[i], Count: s.Count, Percentiles: s.Base}
		if pred != nil {
			est[i].Percentiles = pred[i]
		}
	}
	return Aggregate(est, g.TruthCount)
}

// groupFrom is the lowest percentile groupLoss fits: the tail, which m3
// is asked for, rather than the body, where flowSim is already close.
const groupFrom = 1

// pooled is one percentile of a group's pooled prediction: its value, its
// mass in the mixture, and the output (sample row, column) it is.
type pooled struct {
	v, w float64
	i, j int
}

// poolQuantiles sorts pts by value and returns the percentiles 1..100 of
// their mixture as quantiles does: the smallest point whose cumulative
// mass reaches p% of the total.
func poolQuantiles(pts []pooled) []pooled {
	slices.SortStableFunc(pts, func(a, b pooled) int { return cmp.Compare(a.v, b.v) })
	var total float64
	for _, p := range pts {
		total += p.w
	}
	q := make([]pooled, NumPercentiles)
	cum, k := 0.0, 0
	for p := range q {
		target := total * float64(p+1) / NumPercentiles * (1 - 1e-12)
		for k < len(pts)-1 && cum+pts[k].w < target {
			cum += pts[k].w
			k++
		}
		q[p] = pts[k]
	}
	return q
}

// groupLoss is the mean relative error of the percentiles groupFrom..100
// of the group's pooled prediction against the network's, per output
// bucket with at least MinTargetFlows flows and over all flows, and its
// gradient. The prediction is pooled exactly as Aggregate pools the paths'
// predicted percentiles Base x exp(out) (out holds the group's samples'
// rows in order), so a pooled percentile is one path's predicted
// percentile and each term's gradient goes to that one output.
func groupLoss(out *mat.Dense, g *Group) (float64, *mat.Dense) {
	rows, cols := out.Dims()
	grad := mat.NewDense(rows, cols, nil)
	var sum float64
	n := 0
	fit := func(q []pooled, truth []float64) {
		for p := groupFrom - 1; p < NumPercentiles; p++ {
			x, t := q[p], truth[p]
			sum += math.Abs(x.v-t) / t
			sign := 1.0
			if x.v < t {
				sign = -1
			}
			grad.Set(x.i, x.j, grad.At(x.i, x.j)+sign*x.v/t)
			n++
		}
	}
	var all []pooled
	for b, truth := range g.Truth {
		var pts, fallback []pooled
		for i, s := range g.Samples {
			flows := 0
			for _, c := range s.Count {
				flows += c
			}
			for p, base := range s.Base[b] {
				j := b*NumPercentiles + p
				v := base * math.Exp(out.At(i, j))
				if s.Count[b] > 0 {
					pts = append(pts, pooled{v, float64(g.Draws[i]) * float64(s.Count[b]) / float64(flows), i, j})
				}
				fallback = append(fallback, pooled{v, float64(g.Draws[i]), i, j})
			}
		}
		if len(pts) == 0 {
			pts = fallback
		}
		q := poolQuantiles(pts)
		if g.TruthCount[b] >= MinTargetFlows {
			fit(q, truth)
		}
		if g.TruthCount[b] > 0 {
			for _, x := range q {
				all = append(all, pooled{x.v, float64(g.TruthCount[b]), x.i, x.j})
			}
		}
	}
	if len(all) > 0 {
		fit(poolQuantiles(all), g.Overall)
	}
	if n == 0 {
		return 0, grad
	}
	grad.Scale(1/float64(n), grad)
	return sum / float64(n), grad
}

// setTargetFlows makes the packet-level slowdowns sd of the foreground
// flows of sizes (the sample's own, in any order) s's target, flow by
// flow.
func (s *Sample) setTargetFlows(sizes []int64, sd []float64) error {
	out := metrics.M3OutputBins()
	s.TargetFlows = make([][]float64, out.Len())
	s.TargetCount = make([]int, out.Len())
	for k, sz := range sizes {
		b := out.Index(sz)
		s.TargetFlows[b] = append(s.TargetFlows[b], sd[k])
		s.TargetCount[b]++
	}
	for b, n := range s.TargetCount {
		if n != s.Count[b] {
			return fmt.Errorf("%d foreground flows of output bucket %d have targets, the sample has %d", n, b, s.Count[b])
		}
	}
	s.Target = FeatureMap(sizes, sd, out)
	return nil
}
