package parsimon

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// uniformBucket is a one-bucket distribution holding step*k, k = 0..n-1.
func uniformBucket(n int, step float64) *Buckets {
	d := make([]float64, n)
	for k := range d {
		d[k] = step * float64(k)
	}
	return &Buckets{Lower: []int64{1}, Upper: []int64{math.MaxInt64}, Delays: [][]float64{d}}
}

// The convolution of two channels with discrete uniform delays: on
// h0 -> s -> h1, channel h0->s draws U{0..99} ns per packet and s->h1
// draws 2*U{0..99}. Per packet the sum has mean 49.5 + 99 = 148.5 and
// variance (100^2-1)/12 * (1 + 4) = 4166.25; a 3-packet flow scales both
// by 3 and 9. The idle reverse channels add nothing.
func TestConvolutionUniform(t *testing.T) {
	net, err := topo.New("line", []topo.Node{{ID: 0}, {ID: 1}, {ID: 2, Kind: topo.Switch}},
		[]topo.Link{{A: 0, B: 2, Bandwidth: 10 * gbps, Delay: 1000}, {A: 2, B: 1, Bandwidth: 10 * gbps, Delay: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := netcfg.Default()
	dn := NewDelayNet(net, cfg)
	dn.Channel[0] = uniformBucket(100, 1) // h0->s
	dn.Channel[2] = uniformBucket(100, 2) // s->h1
	for _, size := range []int64{1000, 2500} {
		p := float64(cfg.Packets(size))
		wantMean, wantVar := 148.5*p, 4166.25*p*p
		const n = 200_000
		r := rand.New(rand.NewPCG(7, 0))
		var sum, sum2 float64
		for i := 0; i < n; i++ {
			rec, err := dn.Estimate(size, 0, 1, r)
			if err != nil {
				t.Fatal(err)
			}
			path, _ := net.Path(0, 0, 1)
			if ideal := metrics.IdealFCT(net, path, size, cfg); rec.Ideal != ideal {
				t.Fatalf("ideal %d, want %d", rec.Ideal, ideal)
			}
			x := float64(rec.FCT - rec.Ideal)
			sum += x
			sum2 += x * x
		}
		mean := sum / n
		variance := sum2/n - mean*mean
		// 5 standard errors of the mean; the variance's relative standard
		// error is about sqrt(2/n) (0.3%) for a light-tailed sum: allow 2%.
		if se := math.Sqrt(wantVar / n); math.Abs(mean-wantMean) > 5*se {
			t.Errorf("size %d: mean delay %.2f ns, want %.2f +- %.2f", size, mean, wantMean, 5*se)
		}
		if math.Abs(variance-wantVar) > 0.02*wantVar {
			t.Errorf("size %d: delay variance %.1f, want %.1f", size, variance, wantVar)
		}
	}
	// Reverse direction: no records, the estimate is the ideal FCT.
	rec, err := dn.Estimate(5000, 1, 0, rand.New(rand.NewPCG(1, 1)))
	if err != nil || rec.FCT != rec.Ideal || rec.Slowdown != 1 {
		t.Errorf("idle path: %+v, %v; want FCT == ideal", rec, err)
	}
	if _, err := dn.Estimate(0, 0, 1, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("size 0 accepted")
	}
	if _, err := dn.Estimate(10, 0, 2, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("switch destination accepted")
	}
}

// Pair and class queries give exactly the estimates the flows get in a
// whole-workload query: each flow's draws depend only on (seed, flow id).
func TestQueriesConsistent(t *testing.T) {
	net := handNet(t)
	cfg := netcfg.Default()
	dn := NewDelayNet(net, cfg)
	for c := range dn.Channel {
		dn.Channel[c] = uniformBucket(50, float64(c+1))
	}
	flows := append([]workload.Flow(nil), handFlows...)
	for i := range flows {
		flows[i].Class = i % 2
	}
	all, err := dn.EstimateFlows(context.Background(), flows, 42)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[int]metrics.Record{}
	for i, r := range all {
		if r.FlowID != flows[i].ID || r.FCT < r.Ideal {
			t.Fatalf("record %d: %+v", i, r)
		}
		byID[r.FlowID] = r
	}
	check := func(name string, recs []metrics.Record, want int) {
		if len(recs) != want {
			t.Errorf("%s: %d records, want %d", name, len(recs), want)
		}
		for _, r := range recs {
			if !reflect.DeepEqual(r, byID[r.FlowID]) {
				t.Errorf("%s: flow %d estimated %+v, whole query %+v", name, r.FlowID, r, byID[r.FlowID])
			}
		}
	}
	pair, err := dn.EstimatePair(context.Background(), flows, 0, 3, 42)
	if err != nil {
		t.Fatal(err)
	}
	check("pair 0->3", pair, 1)
	class, err := dn.EstimateClass(context.Background(), flows, 1, 42)
	if err != nil {
		t.Fatal(err)
	}
	check("class 1", class, 2)
	other, _ := dn.EstimateFlows(context.Background(), flows, 43)
	if reflect.DeepEqual(other, all) {
		t.Error("seeds 42 and 43 gave identical estimates")
	}
}

// The convolution's records are each flow's own draw, in flow order,
// whatever the number of workers: against a flow-by-flow reference on
// several chunks of flows.
func TestEstimateFlowsWorkers(t *testing.T) {
	net, flows := tinyScenario(t, 3*ctxEvery+5)
	dn := NewDelayNet(net, netcfg.Default())
	for c := range dn.Channel {
		dn.Channel[c] = uniformBucket(50, float64(c%7+1))
	}
	want := make([]metrics.Record, len(flows))
	for i, f := range flows {
		path, err := net.AppendPath(nil, f.ID, f.Src, f.Dst)
		if err != nil {
			t.Fatal(err)
		}
		fct, ideal := dn.sample(path, f.Size, rand.New(rand.NewPCG(9, uint64(f.ID))))
		want[i] = metrics.Record{FlowID: f.ID, Src: f.Src, Dst: f.Dst, Size: f.Size, Start: f.Start,
			FCT: fct, Ideal: ideal, Slowdown: float64(fct) / float64(ideal), Class: f.Class}
	}
	for _, workers := range []int{1, 2, 5} {
		dn.Workers = workers
		got, err := dn.EstimateFlows(context.Background(), flows, 9)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d workers: records differ from the flow-by-flow draws", workers)
		}
	}
}
