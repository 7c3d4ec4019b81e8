package dscale

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// chain is senders 0..ns-1 on switch A, receivers on switch C, and A-B-C
// with the given bandwidths; every host link is 10 Gbps and every link 1
// us. Node ids: hosts, then A, B, C.
func chain(t testing.TB, ns, nr int, ab, bc int64) *topo.Network {
	t.Helper()
	h := ns + nr
	a, b, c := h, h+1, h+2
	var nodes []topo.Node
	var links []topo.Link
	for i := 0; i < h; i++ {
		nodes = append(nodes, topo.Node{ID: i, Kind: topo.Host, Rack: -1, Pod: -1})
		sw := a
		if i >= ns {
			sw = c
		}
		links = append(links, topo.Link{A: i, B: sw, Bandwidth: 10 * topo.Gbps, Delay: 1000})
	}
	for _, id := range []int{a, b, c} {
		nodes = append(nodes, topo.Node{ID: id, Kind: topo.Switch, Rack: -1, Pod: -1})
	}
	links = append(links, topo.Link{A: a, B: b, Bandwidth: ab, Delay: 1000}, topo.Link{A: b, B: c, Bandwidth: bc, Delay: 1000})
	net, err := topo.New("chain", nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	return net
}

// bottleneck is a chain of four senders and two receivers whose 1 Gbps
// B-C link is fed by 10 Gbps links, with n flows loading it to load.
func bottleneck(t testing.TB, n int, load float64, seed uint64) (*topo.Network, []workload.Flow) {
	t.Helper()
	net := chain(t, 4, 2, 10*topo.Gbps, topo.Gbps)
	var pairs [][2]int
	for s := 0; s < 4; s++ {
		pairs = append(pairs, [2]int{s, 4 + s%2})
	}
	flows, err := workload.Generate(net, workload.Spec{Flows: n, Components: []workload.Component{{Pairs: pairs,
		Sizes: workload.SizeSpec{Dist: "pareto", Mean: 20_000, Shape: 1.5}, Arrival: workload.Arrival{Process: "poisson"}, MaxLoad: load}}}, seed)
	if err != nil {
		t.Fatal(err)
	}
	return net, flows
}

// The definition on a constructed run (its per-channel counters written by
// hand): on a path of three channels with mean queueing delays 50, 4 and
// 0.5 us, the first is congested (over 10% of the path's 54.5 us), the
// others not; a channel that dropped a packet is congested whatever its
// delay; a channel under the floor is not, even when it is all of its
// path's queueing.
func TestDetectDefinition(t *testing.T) {
	net := chain(t, 1, 1, 10*topo.Gbps, 10*topo.Gbps)
	flows := []workload.Flow{{ID: 0, Src: 0, Dst: 1, Size: 1000}, {ID: 1, Src: 1, Dst: 0, Size: 1000, Start: 10}}
	path, _ := net.Path(0, 0, 1) // 0->A, A->B, B->C, C->1
	back, _ := net.Path(1, 1, 0) // the reverse channels
	res := &packetsim.Result{
		ChannelPackets:    make([]int64, len(net.Channels)),
		ChannelQueueNanos: make([]float64, len(net.Channels)),
		ChannelDrops:      make([]int64, len(net.Channels)),
		ChannelBytes:      make([]int64, len(net.Channels)),
	}
	set := func(c int, meanNs float64, drops int64) {
		res.ChannelPackets[c] = 100
		res.ChannelQueueNanos[c] = 100 * meanNs
		res.ChannelDrops[c] = drops
	}
	set(path[0], 0, 0)
	set(path[1], 50_000, 0)
	set(path[2], 4_000, 0)
	set(path[3], 500, 0)
	set(back[0], 0, 0)
	set(back[1], 0, 3)   // drops
	set(back[2], 500, 0) // all of its path's queueing, but under one packet (838.4 ns at 10 Gbps)
	set(back[3], 0, 0)
	stats, err := Detect(net, flows, netcfg.Default(), res, DetectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{path[1]: "queueing", back[1]: "drops"}
	for _, s := range stats {
		if s.Reason != want[s.Channel] || s.Congested != (want[s.Channel] != "") {
			t.Errorf("channel %d (mean %.0f ns, path %.0f ns, %d drops): congested %v (%q), want %q", s.Channel, s.MeanQueueNs, s.PathQueueNs, s.Drops, s.Congested, s.Reason, want[s.Channel])
		}
	}
	for _, s := range stats {
		if s.Channel == path[2] && s.PathQueueNs != 54_500 {
			t.Errorf("channel %d: path queueing %.1f ns, want 54500", s.Channel, s.PathQueueNs)
		}
	}
	if len(stats) != 8 {
		t.Errorf("%d stats, want one per channel that carried packets (8)", len(stats))
	}
	if got := Congested(stats); len(got) != 2 || got[0] != min(path[1], back[1]) {
		t.Errorf("Congested = %v", got)
	}
	// A higher ratio spares the 50 us channel: 50/54.5 < 0.95.
	stats, _ = Detect(net, flows, netcfg.Default(), res, DetectOptions{Ratio: 0.95})
	for _, s := range stats {
		if s.Channel == path[1] && s.Congested {
			t.Errorf("ratio 0.95: channel %d still congested", s.Channel)
		}
	}
}

// On a real run, a 1 Gbps link fed by 10 Gbps links at 90% load is the one
// congested link.
func TestDetectBottleneck(t *testing.T) {
	net, flows := bottleneck(t, 3000, 0.9, 3)
	cfg := netcfg.Default()
	res, err := packetsim.Run(context.Background(), net, flows, cfg, packetsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stats, err := Detect(net, flows, cfg, res, DetectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	bc := 2 * (len(net.Links) - 1) // B->C
	got := Congested(stats)
	if len(got) != 1 || got[0] != bc {
		for _, s := range stats {
			t.Logf("%+v", s)
		}
		t.Fatalf("congested %v, want [%d] (B->C)", got, bc)
	}
}

// DSCALEs's equations: each group's RTT shrinks exactly by its factor,
// the largest factor is alpha, and every link keeps its traffic intensity
// (offered bits over capacity) with the sampled traffic on the scaled
// capacity. Groups with one RTT and one link all get alpha, and the link
// alpha times its capacity: SHRiNK's time downscaling.
func TestSolveIdentities(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 50; trial++ {
		n := 1 + r.IntN(30)
		var ds []Demand
		for i := 0; i < n; i++ {
			d := Demand{RTTNs: 1e5 + 1e7*r.Float64(), Bits: 1e6 * r.Float64()}
			for l := 0; l < 4; l++ {
				if r.IntN(2) == 0 || (l == 3 && len(d.Kept) == 0) {
					d.Kept = append(d.Kept, l)
				}
			}
			ds = append(ds, d)
		}
		alpha := 0.05 + 0.95*r.Float64()
		s, err := Solve(ds, alpha)
		if err != nil {
			t.Fatal(err)
		}
		top := 0.0
		cap := map[int]float64{0: 1e9, 1: 4e8, 2: 1e10, 3: 2.5e9}
		orig, scaled := map[int]float64{}, map[int]float64{}
		for i, d := range ds {
			top = max(top, s.Alpha[i])
			rttScaled := 2 * s.DelayNs * float64(len(d.Kept))
			if math.Abs(s.Alpha[i]*rttScaled-d.RTTNs) > 1e-9*d.RTTNs {
				t.Fatalf("group %d: alpha %g x scaled RTT %g != RTT %g", i, s.Alpha[i], rttScaled, d.RTTNs)
			}
			for _, l := range d.Kept {
				orig[l] += d.Bits / cap[l]
				scaled[l] += s.Alpha[i] * d.Bits / (s.Factor[l] * cap[l])
			}
		}
		if math.Abs(top-alpha) > 1e-12 {
			t.Fatalf("largest factor %g, want alpha %g", top, alpha)
		}
		for l := range orig {
			if math.Abs(orig[l]-scaled[l]) > 1e-9*orig[l] {
				t.Fatalf("link %d: intensity %g in the original, %g in the replica", l, orig[l], scaled[l])
			}
		}
	}
	s, err := Solve([]Demand{{RTTNs: 4e6, Kept: []int{7}, Bits: 1}, {RTTNs: 4e6, Kept: []int{7}, Bits: 5}}, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	if s.Alpha[0] != 0.2 || s.Alpha[1] != 0.2 || math.Abs(s.Factor[7]-0.2) > 1e-15 || math.Abs(s.DelayNs-1e7) > 1e-6 {
		t.Errorf("uniform groups: %+v, want alpha 0.2, factor 0.2, delay 10 ms", s)
	}
	for _, bad := range [][]Demand{nil, {{RTTNs: 0, Kept: []int{1}}}, {{RTTNs: 1, Kept: nil}}} {
		if _, err := Solve(bad, 0.5); err == nil {
			t.Errorf("demands %+v accepted", bad)
		}
	}
	if _, err := Solve([]Demand{{RTTNs: 1, Kept: []int{1}}}, 1.5); err == nil {
		t.Error("alpha 1.5 accepted")
	}
}

// DSCALEd keeps every group's propagation and transmission delays: a lone
// flow of a kept group finishes in the replica when it does in the
// original, and its ideal FCT on the replica route is its original one.
// The chain's A-B link is congested by fiat; flows from senders to
// receivers cross it, the reverse groups cross nothing and are dropped.
func TestReplicaKeepsDelays(t *testing.T) {
	net := chain(t, 2, 2, topo.Gbps, 10*topo.Gbps)
	cfg := netcfg.Default()
	ab := 2 * (len(net.Links) - 2)
	flows := []workload.Flow{{ID: 0, Src: 0, Dst: 2, Size: 1000}, {ID: 1, Src: 1, Dst: 3, Size: 30_000, Start: 1_000_000}, {ID: 2, Src: 3, Dst: 1, Size: 5000, Start: 2_000_000}}
	r, err := Build(net, flows, cfg, []int{ab}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Groups) != 2 || len(r.Flows) != 2 {
		t.Fatalf("%d groups and %d flows kept, want 2 and 2", len(r.Groups), len(r.Flows))
	}
	orig, err := packetsim.Run(context.Background(), net, flows, cfg, packetsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := packetsim.Run(context.Background(), r.Net, r.Flows, r.Config, packetsim.Options{Paths: r.Paths(), KBytes: r.KBytes})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := r.Extrapolate(net, flows, cfg, rep)
	if err != nil {
		t.Fatal(err)
	}
	for i, rec := range recs {
		o := orig.Records[i]
		if rec.FlowID != o.FlowID || rec.Ideal != o.Ideal || math.Abs(float64(rec.FCT-o.FCT)) > 2 {
			t.Errorf("flow %d: replica FCT %d ns, ideal %d; original %d, %d", rec.FlowID, rec.FCT, rec.Ideal, o.FCT, o.Ideal)
		}
		ideal := metrics.IdealFCT(r.Net, r.Groups[r.Group[i]].Route, flows[i].Size, cfg)
		if math.Abs(float64(ideal-o.Ideal)) > 2 {
			t.Errorf("flow %d: ideal FCT on the replica route %d ns, original %d", rec.FlowID, ideal, o.Ideal)
		}
	}
}

// HSM: identical histograms score 1, disjoint ones 0, and a 2-bin case by
// hand: counts (3, 1) and (1, 3), chi^2 = 2, N = 8, V = 0.5.
func TestHSM(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5}
	if h := HSM(a, append(a, a...), 5, false); math.Abs(h-1) > 1e-12 {
		t.Errorf("proportional samples: HSM %g, want 1", h)
	}
	if h := HSM([]float64{0, 0}, []float64{10, 10}, 4, false); math.Abs(h) > 1e-12 {
		t.Errorf("disjoint samples: HSM %g, want 0", h)
	}
	if h := HSM([]float64{0, 0, 0, 1}, []float64{0, 1, 1, 1}, 2, false); math.Abs(h-0.5) > 1e-12 {
		t.Errorf("2-bin case: HSM %g, want 0.5", h)
	}
	if !math.IsNaN(HSM(nil, a, 3, true)) {
		t.Error("empty sample: want NaN")
	}
}

// End to end on a small CENIC-like run: the congested set is the
// Sunnyvale/Los Angeles interconnects and access links the traffic
// loads; DSCALEd predicts the kept groups' FCT percentiles and the
// congested queues closely, DSCALEs with alpha 0.5 less so (tolerances
// from measured runs plus margin).
func TestEvaluateCENIC(t *testing.T) {
	sc, err := scenario.Build(scenario.CENIC(12000, 0.85, 1))
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Evaluate(context.Background(), sc.Net, sc.Flows, sc.Spec.Network, EvalOptions{Alphas: []float64{0.5}, Detect: DetectOptions{MinQueueNs: 100_000}})
	if err != nil {
		t.Fatal(err)
	}
	if n := keptLinks(ev.Congested); n < 2 || n > 20 {
		t.Errorf("%d congested links of 66", n)
	}
	for _, s := range ev.Systems {
		for _, r := range s.Records {
			if r.FCT <= 0 || r.Ideal <= 0 {
				t.Fatalf("%s: flow %d has FCT %d ns, ideal %d ns", s.Name, r.FlowID, r.FCT, r.Ideal)
			}
		}
	}
	cmp := ev.Compare(metrics.AllSizes())
	for _, c := range cmp {
		t.Logf("%s: flows %.2f, links %.2f, FCT HSM %.3f, queue HSM %.3f, p50 %+.3f, p99 %+.3f, speedup %.1f", c.System, c.FlowShare, c.LinkShare, c.FCTHSM, c.QueueHSM, c.P50.ErrorAll, c.P99.ErrorAll, c.Speedup)
	}
	d := cmp[0]
	if d.FCTHSM < 0.9 || d.QueueHSM < 0.75 || math.Abs(d.P50.ErrorAll) > 0.05 || math.Abs(d.P99.ErrorAll) > 0.3 {
		t.Errorf("DSCALEd: FCT HSM %.3f, queue HSM %.3f, p50 error %+.3f, p99 error %+.3f", d.FCTHSM, d.QueueHSM, d.P50.ErrorAll, d.P99.ErrorAll)
	}
	if s := cmp[1]; s.FlowShare >= d.FlowShare || s.FCTHSM < 0.7 || math.Abs(s.P50.ErrorAll) > 0.1 {
		t.Errorf("DSCALEs: flow share %.2f (DSCALEd %.2f), FCT HSM %.3f, p50 error %+.3f", s.FlowShare, d.FlowShare, s.FCTHSM, s.P50.ErrorAll)
	}
}

// Estimate from a pilot: the pilot's first fifth of the flows finds the
// chain's bottleneck; DSCALEd then reports every flow, DSCALEs only the
// sampled ones, and DSCALEd's p99 slowdown is the full run's within 15%.
func TestEstimatePilot(t *testing.T) {
	net, flows := bottleneck(t, 4000, 0.8, 5)
	cfg := netcfg.Default()
	full, err := packetsim.Run(context.Background(), net, flows, cfg, packetsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, est, err := Estimate(context.Background(), net, flows, cfg, EstimateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if bc := 2 * (len(net.Links) - 1); len(est.Congested) != 1 || est.Congested[0] != bc || len(d) != len(flows) {
		t.Fatalf("pilot found %v (want [%d]); %d records for %d flows", est.Congested, bc, len(d), len(flows))
	}
	c := metrics.Compare(d, full.Records, metrics.AllSizes(), 99)
	if math.Abs(c.ErrorAll) > 0.15 {
		t.Errorf("DSCALEd p99 slowdown %.3f vs %.3f (%+.1f%%)", c.All, c.BaseAll, 100*c.ErrorAll)
	}
	s, _, err := Estimate(context.Background(), net, flows, cfg, EstimateOptions{Options: Options{Method: Sampling, Alpha: 0.3, Seed: 1}, Congested: est.Congested})
	if err != nil {
		t.Fatal(err)
	}
	if share := float64(len(s)) / float64(len(flows)); share < 0.2 || share > 0.4 {
		t.Errorf("DSCALEs with alpha 0.3 on groups of one RTT reported %.2f of the flows", share)
	}
}

// A cancelled context stops Estimate with the context's error (its
// packetsim runs check it on every record).
func TestEstimateCancelled(t *testing.T) {
	net, flows := bottleneck(t, 1000, 0.8, 5)
	cfg := netcfg.Default()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Estimate(ctx, net, flows, cfg, EstimateOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Estimate: error %v; want context.Canceled", err)
	}
}
