package m3

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/workload"
)

// A path's foreground flows share their hosts (a route starts at the
// source's link and ends at the destination's), so with a truth that
// encodes each flow's host pair, every sample's targets must be one value
// repeated, as many times as the sample counts foreground flows; the
// group's truth is the whole network's, and its draws are the draws.
func TestNetworkGroupTargetsThePathsFlows(t *testing.T) {
	net, flows := parkingLotFlows(t, 2000, 1, 0.4, 3)
	truth := func(f workload.Flow) float64 { return 1 + float64(f.Src*1000+f.Dst) }
	sd := make([]float64, len(flows))
	for i, f := range flows {
		sd[i] = truth(f)
	}
	g, err := NetworkGroup(context.Background(), net, flows, netcfg.Default(), sd, Options{Samples: 40, Seed: 2, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	samples := g.Samples
	draws := 0
	for _, n := range g.Draws {
		draws += n
	}
	if draws != 40 || len(g.Draws) != len(samples) {
		t.Errorf("%d draws over %d paths for %d samples, want 40", draws, len(g.Draws), len(samples))
	}
	sizes := make([]int64, len(flows))
	for i, f := range flows {
		sizes[i] = f.Size
	}
	if want := FeatureMap(sizes, sd, metrics.M3OutputBins()); !slices.EqualFunc(g.Truth, want, slices.Equal) {
		t.Errorf("group truth is not the percentiles of every flow")
	}
	if n := g.TruthCount[0] + g.TruthCount[1] + g.TruthCount[2] + g.TruthCount[3]; n != len(flows) {
		t.Errorf("truth counts %v for %d flows", g.TruthCount, len(flows))
	}
	if p99 := metrics.Percentile(sd, 99); g.Overall[98] != p99 {
		t.Errorf("group's overall p99 %v, every flow's %v", g.Overall[98], p99)
	}
	if len(samples) < 5 {
		t.Fatalf("%d samples from 40 draws", len(samples))
	}
	for k, s := range samples {
		var ys []float64
		for b, fl := range s.TargetFlows {
			if len(fl) != s.Count[b] || s.TargetCount[b] != s.Count[b] {
				t.Fatalf("sample %d bucket %d: %d target flows, count %d, target count %d", k, b, len(fl), s.Count[b], s.TargetCount[b])
			}
			ys = append(ys, fl...)
		}
		if len(ys) == 0 {
			t.Fatalf("sample %d has no target flows", k)
		}
		if slices.Min(ys) != slices.Max(ys) {
			t.Errorf("sample %d: targets %v come from several host pairs", k, ys)
		}
		for b, fl := range s.TargetFlows {
			if len(fl) > 0 && s.Target[b][NumPercentiles-1] != ys[0] {
				t.Errorf("sample %d bucket %d: target map %v, want %v", k, b, s.Target[b][NumPercentiles-1], ys[0])
			}
		}
	}
	for _, c := range []struct {
		name string
		sd   []float64
		want string
	}{
		{"short", sd[1:], "slowdowns for"},
		{"zero", append([]float64{0}, sd[1:]...), "has slowdown 0"},
		{"NaN", append([]float64{math.NaN()}, sd[1:]...), "has slowdown NaN"},
	} {
		if _, err := NetworkGroup(context.Background(), net, flows, netcfg.Default(), c.sd, Options{Samples: 5}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

// The pinball loss of flow-level targets is least where each output
// percentile is the flows' quantile, and its gradient is the loss's.
func TestLossFlowTargetsQuantiles(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	out := metrics.M3OutputBins()
	s := &Sample{TargetFlows: make([][]float64, out.Len()), Base: make([][]float64, out.Len())}
	for b := range s.Base {
		s.Base[b] = make([]float64, NumPercentiles)
		for p := range s.Base[b] {
			s.Base[b][p] = 1 + float64(p)/50
		}
	}
	// 400 flows in bucket 1, log-normal slowdowns: the quantile at level
	// tau is the sorted flows' ceil(400 tau)-th.
	for range 400 {
		s.TargetFlows[1] = append(s.TargetFlows[1], 1+math.Exp(r.NormFloat64()))
	}
	ys := slices.Sorted(slices.Values(s.TargetFlows[1]))
	best := mat.NewDense(1, outputLen(), nil)
	for p := range NumPercentiles {
		level := float64(p+1) / 100 // percentile p+1; the maximum learns the 99.5th
		if p == NumPercentiles-1 {
			level = 0.995
		}
		q := ys[int(math.Ceil(400*level))-1]
		best.Set(0, NumPercentiles+p, math.Log(q/s.Base[1][p]))
	}
	l0, _ := loss(best, []*Sample{s})
	for _, p := range []int{0, 49, 98, 99} {
		for _, d := range []float64{-0.05, 0.05} {
			o := mat.DenseCopyOf(best)
			o.Set(0, NumPercentiles+p, o.At(0, NumPercentiles+p)+d)
			if l, _ := loss(o, []*Sample{s}); l <= l0 {
				t.Errorf("percentile %d moved by %v: loss %v, not above the quantiles' %v", p+1, d, l, l0)
			}
		}
	}
	// Finite differences away from the kinks.
	at := mat.DenseCopyOf(best)
	for j := range outputLen() {
		at.Set(0, j, at.At(0, j)+0.013)
	}
	_, g := loss(at, []*Sample{s})
	for _, j := range []int{NumPercentiles + 3, NumPercentiles + 60, NumPercentiles + 98} {
		const h = 1e-7
		o := mat.DenseCopyOf(at)
		o.Set(0, j, o.At(0, j)+h)
		lp, _ := loss(o, []*Sample{s})
		o.Set(0, j, o.At(0, j)-2*h)
		lm, _ := loss(o, []*Sample{s})
		if num := (lp - lm) / (2 * h); math.Abs(num-g.At(0, j)) > 1e-6 {
			t.Errorf("output %d: gradient %v, finite difference %v", j, g.At(0, j), num)
		}
	}
}

// groupLoss is the relative error of Aggregate's pooled percentiles (checked
// by hand in TestAggregateHandCase), per bucket and overall, against the
// network's, and its gradient is the loss's.
func TestGroupLossPoolsAsAggregate(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	out := metrics.M3OutputBins()
	nb := out.Len()
	g := &Group{TruthCount: []int{500, 300, 200, 100}}
	for b := range nb {
		row := make([]float64, NumPercentiles)
		for p := range row {
			row[p] = 1 + float64(p)/40 + float64(b)/3
		}
		g.Truth = append(g.Truth, row)
		g.Overall = append(g.Overall, 1.1+float64(b)/30)
	}
	for p := nb; p < NumPercentiles; p++ {
		g.Overall = append(g.Overall, 1.2+float64(p)/30)
	}
	for i := range 6 {
		s := &Sample{Count: []int{1 + r.IntN(3), r.IntN(2), 1 + r.IntN(2), 1}}
		for range nb {
			row := make([]float64, NumPercentiles)
			lo := 1.0
			for p := range row {
				lo += r.Float64() / 20
				row[p] = lo
			}
			s.Base = append(s.Base, row)
		}
		g.Samples = append(g.Samples, s)
		g.Draws = append(g.Draws, 1+i%3)
	}
	o := mat.NewDense(len(g.Samples), nb*NumPercentiles, nil)
	for i := range len(g.Samples) {
		for j := range nb * NumPercentiles {
			o.Set(i, j, r.NormFloat64()/5)
		}
	}
	got, grad := groupLoss(o, g)

	est := make([]PathEstimate, len(g.Samples))
	for i, s := range g.Samples {
		est[i] = PathEstimate{Draws: g.Draws[i], Count: s.Count}
		for b := range nb {
			row := make([]float64, NumPercentiles)
			for p := range row {
				row[p] = s.Base[b][p] * math.Exp(o.At(i, b*NumPercentiles+p))
			}
			est[i].Percentiles = append(est[i].Percentiles, row)
		}
	}
	dist, err := Aggregate(est, g.TruthCount)
	if err != nil {
		t.Fatal(err)
	}
	var want float64
	n := 0
	fit := func(q, truth []float64) {
		for p := range NumPercentiles {
			want += math.Abs(q[p]-truth[p]) / truth[p]
			n++
		}
	}
	for b := range nb {
		if g.TruthCount[b] >= MinTargetFlows {
			fit(dist.Buckets[b], g.Truth[b])
		}
	}
	fit(dist.Overall, g.Overall)
	want /= float64(n)
	if math.Abs(got-want) > 1e-12 {
		t.Fatalf("group loss %v, Aggregate's pooled percentiles give %v", got, want)
	}
	// Pool is the same mixture: with no correction, flowSim's.
	flowSim, err := g.Pool(nil)
	if err != nil {
		t.Fatal(err)
	}
	zero, _ := groupLoss(mat.NewDense(len(g.Samples), nb*NumPercentiles, nil), g)
	want, n = 0, 0
	for b := range nb {
		if g.TruthCount[b] >= MinTargetFlows {
			fit(flowSim.Buckets[b], g.Truth[b])
		}
	}
	fit(flowSim.Overall, g.Overall)
	if want /= float64(n); math.Abs(zero-want) > 1e-12 {
		t.Errorf("group loss without correction %v, Pool's flowSim percentiles give %v", zero, want)
	}
	// The loss is piecewise smooth in each output: a small step in a
	// few outputs moves it as the gradient says.
	for k := 0; k < 40; k++ {
		i, j := r.IntN(len(g.Samples)), r.IntN(nb*NumPercentiles)
		const h = 1e-7
		o.Set(i, j, o.At(i, j)+h)
		up, _ := groupLoss(o, g)
		o.Set(i, j, o.At(i, j)-2*h)
		down, _ := groupLoss(o, g)
		o.Set(i, j, o.At(i, j)+h)
		if fd := (up - down) / (2 * h); math.Abs(fd-grad.At(i, j)) > 1e-5 {
			t.Errorf("output (%d, %d): gradient %v, finite difference %v", i, j, grad.At(i, j), fd)
		}
	}
}
