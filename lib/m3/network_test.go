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
// repeated, as many times as the sample counts foreground flows.
func TestNetworkSamplesTargetThePathsFlows(t *testing.T) {
	net, flows := parkingLotFlows(t, 2000, 1, 0.4, 3)
	truth := func(f workload.Flow) float64 { return 1 + float64(f.Src*1000+f.Dst) }
	sd := make([]float64, len(flows))
	for i, f := range flows {
		sd[i] = truth(f)
	}
	samples, err := NetworkSamples(context.Background(), net, flows, netcfg.Default(), sd, Options{Samples: 40, Seed: 2, Workers: 2})
	if err != nil {
		t.Fatal(err)
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
		if _, err := NetworkSamples(context.Background(), net, flows, netcfg.Default(), c.sd, Options{Samples: 5}); err == nil || !strings.Contains(err.Error(), c.want) {
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
