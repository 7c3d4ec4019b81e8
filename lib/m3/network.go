package m3

import (
	"context"
	"fmt"
	"math"

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
	// Data names the data set the network came from (its gendata space),
	// so that held-out errors can be reported per data set.
	Data string
}

// NetworkGroup draws o.Samples paths of flows on net as Run does,
// simulates their parking lots with flowSim (capped at the window if
// o.WindowCap), and returns them as a Group:
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

// check reports a group whose parts do not fit together: groupLoss and
// Pool then cannot fail.
func (g *Group) check() error {
	nb := outputLen() / NumPercentiles
	flows := 0
	for _, c := range g.TruthCount {
		flows += c
	}
	if len(g.Samples) == 0 || len(g.Draws) != len(g.Samples) || len(g.Truth) != nb || len(g.TruthCount) != nb || len(g.Overall) != NumPercentiles || flows == 0 {
		return fmt.Errorf("m3: a network group has %d samples, %d draws, %d truth rows, %d counts (%d flows) and %d overall percentiles",
			len(g.Samples), len(g.Draws), len(g.Truth), len(g.TruthCount), flows, len(g.Overall))
	}
	for i, s := range g.Samples {
		if len(s.Base) != nb || len(s.Count) != nb {
			return fmt.Errorf("m3: path %d of a network group has %d buckets of percentiles and %d counts, want %d", i, len(s.Base), len(s.Count), nb)
		}
	}
	return nil
}

// Pool is the network-wide distribution m3 reports from the group's
// paths, their percentiles pooled by Aggregate as Run pools them: the
// model's predictions, or flowSim's alone when m is nil. Its Flows are
// the network's flows per output bucket.
func (g *Group) Pool(m *Model) (*Distribution, error) {
	var pct [][][]float64
	if m != nil {
		pct = m.Predict(g.Samples)
	} else {
		for _, s := range g.Samples {
			pct = append(pct, s.Base)
		}
	}
	return Aggregate(g.estimates(pct), g.TruthCount)
}

// estimates is the group's paths with percentiles pct[i] for path i.
func (g *Group) estimates(pct [][][]float64) []PathEstimate {
	est := make([]PathEstimate, len(g.Samples))
	for i, s := range g.Samples {
		est[i] = PathEstimate{Draws: g.Draws[i], Count: s.Count, Percentiles: pct[i]}
	}
	return est
}

// groupLoss is the mean relative error of the percentiles 1..100 of the
// group's pooled prediction against the network's, per output
// bucket with at least MinTargetFlows flows and over all flows, and its
// gradient. The prediction is pooled by Aggregate's own mixture
// from the paths' predicted percentiles Base x exp(out) (out holds the
// group's samples' rows in order), so a pooled percentile is one path's
// predicted percentile and each term's gradient goes to that one output.
func groupLoss(out *mat.Dense, g *Group) (float64, *mat.Dense) {
	rows, cols := out.Dims()
	grad := mat.NewDense(rows, cols, nil)
	pct := make([][][]float64, len(g.Samples))
	for i, s := range g.Samples {
		for b, row := range s.Base {
			q := make([]float64, len(row))
			for p, base := range row {
				q[p] = base * math.Exp(out.At(i, b*NumPercentiles+p))
			}
			pct[i] = append(pct[i], q)
		}
	}
	buckets, overall, err := mixture(g.estimates(pct), g.TruthCount)
	if err != nil { // Train checks every group first (Group.check)
		panic(err)
	}
	var sum float64
	n := 0
	fit := func(q []point, truth []float64) {
		for p, x := range q {
			t := truth[p]
			sum += math.Abs(x.v-t) / t
			sign := 1.0
			if x.v < t {
				sign = -1
			}
			grad.Set(x.path, x.col, grad.At(x.path, x.col)+sign*x.v/t)
			n++
		}
	}
	for b, q := range buckets {
		if g.TruthCount[b] >= MinTargetFlows {
			fit(q, g.Truth[b])
		}
	}
	fit(overall, g.Overall)
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
