package flowsim

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

const gbps = 1e9

// ratesAt applies the jobs arriving at time 0 and returns each job's
// max-min rate in Gbps (bits per ns): the engine's state after its first
// re-allocation.
func ratesAt0(t *testing.T, capBps []int64, jobs []Job) []float64 {
	t.Helper()
	e := newEngine(capBps, len(jobs))
	for _, j := range jobs {
		if j.Start != 0 {
			t.Fatalf("job %d starts at %d; ratesAt0 needs starts at 0", j.ID, j.Start)
		}
		e.add(j.ID, e.intern(j.Route, j.CapBps), j.Bytes, 0)
	}
	e.begin()
	for j := range jobs {
		e.arrive(j, 0)
	}
	e.refill(0)
	rates := make([]float64, len(jobs))
	for j := range jobs {
		rates[j] = e.routes[e.route[j]].rate
	}
	return rates
}

// Two flows on one link get half its rate each, whether or not they share
// a route; a third flow on a disjoint link keeps its full rate.
func TestTwoFlowsHalfRate(t *testing.T) {
	caps := []int64{10 * gbps, 10 * gbps}
	cases := []struct {
		name string
		jobs []Job
		want []float64
	}{
		{"same route", []Job{{ID: 1, Route: []int{0}, Bytes: 1}, {ID: 2, Route: []int{0}, Bytes: 1}}, []float64{5, 5}},
		{"different routes", []Job{{ID: 1, Route: []int{0, 1}, Bytes: 1}, {ID: 2, Route: []int{0}, Bytes: 1}}, []float64{5, 5}},
		{"plus disjoint", []Job{{ID: 1, Route: []int{0}, Bytes: 1}, {ID: 2, Route: []int{0}, Bytes: 1}, {ID: 3, Route: []int{1}, Bytes: 1}}, []float64{5, 5, 10}},
	}
	for _, c := range cases {
		got := ratesAt0(t, caps, c.jobs)
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: rates %v Gbps, want %v", c.name, got, c.want)
				break
			}
		}
	}
}

// A 3-hop parking lot (10, 4, 10 Gbps along the chain) with cross traffic
// from background hosts, routed by the topology. By hand: hop 1 (4G) has
// F, B2, B4: 4/3 each. Hop 0 then has 10-4/3 left for the two B1 flows:
// 13/3 each; hop 2 has 10-2*4/3 left for the three B3 flows: 22/9 each.
// The lowest of those, 22/9, freezes B3 first; B1 follows at 13/3. With
// a 3 Gbps host rate B1 stops at 3 and nothing else changes (hop 0's slack
// bottlenecks nobody).
func TestParkingLotMaxMin(t *testing.T) {
	spec := topo.ParkingLotSpec{Hops: 3, Bandwidths: []int64{10 * gbps, 4 * gbps, 10 * gbps}, BackgroundHosts: 2}
	net, err := topo.ParkingLot(spec)
	if err != nil {
		t.Fatal(err)
	}
	bg := spec.BackgroundHost
	type fl struct {
		name     string
		src, dst int
		n        int // parallel flows
		want     float64
		want3    float64 // with a 3 Gbps host rate
	}
	flows := []fl{
		{"F", 0, 1, 1, 4.0 / 3, 4.0 / 3},
		{"B1", 0, bg(0, 0), 2, 13.0 / 3, 3},
		{"B2", bg(0, 0), bg(1, 1), 1, 4.0 / 3, 4.0 / 3},
		{"B4", bg(0, 1), 1, 1, 4.0 / 3, 4.0 / 3},
		{"B3", bg(1, 0), 1, 3, 22.0 / 9, 22.0 / 9},
	}
	caps := make([]int64, len(net.Channels))
	for i, ch := range net.Channels {
		caps[i] = ch.Bandwidth
	}
	for _, host := range []int64{0, 3 * gbps} {
		var jobs []Job
		var want []float64
		var names []string
		for _, f := range flows {
			for k := 0; k < f.n; k++ {
				id := len(jobs)
				path, err := net.Path(id, f.src, f.dst)
				if err != nil {
					t.Fatal(err)
				}
				capBps := host
				if capBps == 0 {
					capBps = net.Channels[path[0]].Bandwidth
				}
				jobs = append(jobs, Job{ID: id, Route: path, Bytes: 1e6, CapBps: capBps})
				names = append(names, f.name)
				if host == 0 {
					want = append(want, f.want)
				} else {
					want = append(want, f.want3)
				}
			}
		}
		got := ratesAt0(t, caps, jobs)
		for i := range jobs {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("host rate %g: %s gets %.6f Gbps, want %.6f", float64(host)/gbps, names[i], got[i], want[i])
			}
		}
	}
}

// Completion times of a small case, by hand. Links: 10G and 2G. A sends
// 10 KB on the 10G link from 0; B sends 5 KB over both links from 2 us; C
// sends 1 KB alone on the 2G link from 0.
//
// By 2 us A has sent 20,000 of its 80,000 bits, C 4,000 of its 8,000.
// Then B and C share the 2G link (1 Gbps each) and A gets the other 9 Gbps
// of the 10G link: C is done at 6 us, when A has 24,000 bits left and B
// 36,000. Then B gets 2 Gbps and A 8: A is done at 9 us, B has 30,000 left
// and, alone but held to 2 Gbps by its slower link, finishes at 24 us.
func TestHandComputedCompletions(t *testing.T) {
	caps := []int64{10 * gbps, 2 * gbps}
	jobs := []Job{
		{ID: 1, Route: []int{0}, Bytes: 10_000, Start: 0},
		{ID: 2, Route: []int{0, 1}, Bytes: 5_000, Start: 2_000},
		{ID: 3, Route: []int{1}, Bytes: 1_000, Start: 0},
	}
	got, err := Simulate(caps, jobs, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{9_000, 24_000, 6_000}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-6 {
			t.Errorf("job %d finishes at %.6f ns, want %.0f", jobs[i].ID, got[i], want[i])
		}
	}
}

// A lone flow's FCT is its ideal FCT to the nanosecond, on parking lots of
// 1-6 hops (all 10G) and fabric paths of 2, 4 and 6 hops (10/40/.../10G),
// for sizes around the packet boundary and a large one. A host rate below
// the path's slowest link slows the flow by exactly the extra
// transmission time.
func TestLoneFlowIdeal(t *testing.T) {
	spec, err := topo.Preset("meta32-2:1")
	if err != nil {
		t.Fatal(err)
	}
	fab, err := topo.Fabric(spec)
	if err != nil {
		t.Fatal(err)
	}
	type tc struct {
		net      *topo.Network
		src, dst int
	}
	cases := []tc{{fab, 0, 1}, {fab, 0, 8}, {fab, 0, 255}}
	for _, h := range []int{1, 2, 4, 6} {
		pl, err := topo.ParkingLot(topo.ParkingLotSpec{Hops: h})
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{pl, 0, 1})
	}
	cfg := netcfg.Default()
	for _, c := range cases {
		for _, size := range []int64{1, 999, 1000, 1001, 12_345, 10_000_000} {
			fl := []workload.Flow{{ID: 7, Src: c.src, Dst: c.dst, Size: size, Start: 12_345}}
			path, err := c.net.Path(7, c.src, c.dst)
			if err != nil {
				t.Fatal(err)
			}
			ideal := metrics.IdealFCT(c.net, path, size, cfg)
			recs, err := Run(context.Background(), c.net, fl, cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r := recs[0]; r.FCT != ideal || r.Ideal != ideal || r.Slowdown != 1 {
				t.Errorf("%s %d hops, %d B: FCT %d, ideal %d, slowdown %g; want FCT = ideal = %d", c.net.Name, len(path), size, r.FCT, r.Ideal, r.Slowdown, ideal)
			}
			recs, err = Run(context.Background(), c.net, fl, cfg, Options{HostRateBps: 4 * gbps})
			if err != nil {
				t.Fatal(err)
			}
			bits := float64(cfg.WireBytes(size) * 8)
			want := ideal + int64(math.Round(bits/4-bits/10)) // every path's slowest link is 10G
			if r := recs[0]; r.FCT != want {
				t.Errorf("%s %d hops, %d B at 4 Gbps host rate: FCT %d, want %d", c.net.Name, len(path), size, r.FCT, want)
			}
		}
	}
}

// Work conservation on one link: the link never idles while a job is
// active, so its busy periods are those of a FIFO queue with the same
// arrivals, and the last job of each busy period finishes when the FIFO
// queue would empty. For a batch starting together that is the total work
// over the capacity, and equal jobs all finish then.
func TestSingleLinkWorkConservation(t *testing.T) {
	const capBps = 10 * gbps
	// A batch of equal jobs at time 0.
	batch := make([]Job, 50)
	for i := range batch {
		batch[i] = Job{ID: i, Route: []int{0}, Bytes: 3_000}
	}
	got, err := Simulate([]int64{capBps}, batch, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range got {
		if want := 50 * 3_000 * 8 / 10.0; math.Abs(f-want) > 1e-6 {
			t.Fatalf("batch job %d finishes at %g ns, want %g", i, f, want)
		}
	}
	// Random arrivals at load about 0.65, sizes, and host caps above the
	// link rate.
	r := rand.New(rand.NewPCG(11, 2))
	for trial := 0; trial < 20; trial++ {
		jobs := make([]Job, 300)
		var at int64
		for i := range jobs {
			at += int64(r.ExpFloat64() * 1_000)
			jobs[i] = Job{ID: i, Route: []int{0}, Bytes: 1 + int64(r.ExpFloat64()*800), CapBps: 40 * gbps, Start: at}
		}
		fin, err := Simulate([]int64{capBps}, jobs, nil)
		if err != nil {
			t.Fatal(err)
		}
		// FIFO: departure of job i = max(arrival, previous departure) +
		// work; a busy period ends when the next job arrives after it.
		periods := 0
		first, dep := 0, 0.0
		for i := range jobs {
			dep = math.Max(dep, float64(jobs[i].Start)) + float64(jobs[i].Bytes*8)/10
			if i+1 < len(jobs) && float64(jobs[i+1].Start) <= dep {
				continue
			}
			last := 0.0
			for k := first; k <= i; k++ {
				if fin[k] > dep*(1+1e-12) || fin[k] < float64(jobs[k].Start) {
					t.Fatalf("trial %d: job %d finishes at %.3f ns, outside its busy period [%d, %.3f]", trial, k, fin[k], jobs[first].Start, dep)
				}
				last = math.Max(last, fin[k])
			}
			if math.Abs(last-dep) > 1e-9*dep {
				t.Fatalf("trial %d: a busy period ends at %.3f ns in the simulation, %.3f ns by FIFO", trial, last, dep)
			}
			periods++
			first = i + 1
		}
		if periods < 5 {
			t.Fatalf("trial %d: only %d busy periods; the test needs idle gaps", trial, periods)
		}
	}
}

// A fabric run gives one record per flow, in input order, describing it;
// no flow beats its ideal FCT; and a second run gives identical records.
func TestFabricRecords(t *testing.T) {
	spec, err := topo.Preset("meta32-1:1")
	if err != nil {
		t.Fatal(err)
	}
	net, err := topo.Fabric(spec)
	if err != nil {
		t.Fatal(err)
	}
	flows, err := workload.Generate(net, workload.Spec{Flows: 5_000, Components: []workload.Component{{
		Matrix: "B", Sizes: workload.SizeSpec{Dist: "cachefollower"}, Arrival: workload.Arrival{Sigma: 2}, MaxLoad: 0.6}}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	cfg := netcfg.Default()
	recs, err := Run(context.Background(), net, flows, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(flows) {
		t.Fatalf("%d records for %d flows", len(recs), len(flows))
	}
	for i, r := range recs {
		f := flows[i]
		if r.FlowID != f.ID || r.Size != f.Size || r.Start != f.Start || r.Class != f.Class {
			t.Fatalf("record %d %+v is not flow %+v", i, r, f)
		}
		if r.FCT < r.Ideal || r.Slowdown < 1 || math.IsNaN(r.Slowdown) {
			t.Fatalf("flow %d: FCT %d below ideal %d (slowdown %g)", f.ID, r.FCT, r.Ideal, r.Slowdown)
		}
	}
	again, err := Run(context.Background(), net, flows, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if recs[i] != again[i] {
			t.Fatalf("run is not deterministic: flow %d %+v then %+v", flows[i].ID, recs[i], again[i])
		}
	}
}

// Byte conservation: rates are constant between the engine's instants, so
// integrating each job's rate over them must give back exactly its wire
// bytes, and no link may carry more than its capacity at any time.
func TestByteConservation(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for trial := 0; trial < 50; trial++ {
		caps, jobs := randomInstance(r, 8, 40)
		e := newEngine(caps, len(jobs))
		order := make([]int, len(jobs))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return jobs[order[a]].Start < jobs[order[b]].Start })
		for _, i := range order {
			j := jobs[i]
			e.add(j.ID, e.intern(j.Route, j.CapBps), j.Bytes, j.Start)
		}
		e.begin()
		sent := make([]float64, len(jobs))
		rate := make([]float64, len(jobs)) // per job (engine order), since prev
		prev := 0.0
		for {
			now, ok := e.step()
			if !ok {
				break
			}
			// The rates set at the previous instant held until now.
			for k, x := range rate {
				sent[k] += x * (now - prev)
				rate[k] = 0
			}
			load := make([]float64, len(caps))
			for _, rt := range e.routes {
				if rt.routeState == nil {
					continue // idle: no jobs, no rate
				}
				for _, p := range rt.jobs {
					rate[p.job] = rt.rate
				}
				for _, l := range rt.links {
					load[l] += rt.rate * float64(rt.count)
				}
			}
			for l, u := range load {
				if u > float64(caps[l])/1e9*(1+1e-9) {
					t.Fatalf("trial %d: link %d carries %g Gbps at %g ns, capacity %g", trial, l, u, now, float64(caps[l])/1e9)
				}
			}
			prev = now
		}
		for k, i := range order {
			if want := float64(jobs[i].Bytes * 8); math.Abs(sent[k]-want) > 1e-6*want {
				t.Fatalf("trial %d: job %d was sent %.3f bits, has %.0f", trial, jobs[i].ID, sent[k], want)
			}
		}
	}
}

// Bad input gets an error naming the problem.
func TestErrors(t *testing.T) {
	pl, err := topo.ParkingLot(topo.ParkingLotSpec{Hops: 2, BackgroundHosts: 1})
	if err != nil {
		t.Fatal(err)
	}
	ok := []workload.Flow{{ID: 1, Src: 0, Dst: 1, Size: 10}}
	bad := netcfg.Default()
	bad.PayloadBytes = 0
	runCases := []struct {
		name  string
		net   *topo.Network
		flows []workload.Flow
		cfg   netcfg.Config
		opts  Options
		want  string
	}{
		{"nil network", nil, ok, netcfg.Default(), Options{}, "nil network"},
		{"payload", pl, ok, bad, Options{}, "payload_bytes"},
		{"host rate", pl, ok, netcfg.Default(), Options{HostRateBps: -1}, "negative host rate"},
		{"size", pl, []workload.Flow{{ID: 1, Src: 0, Dst: 1}}, netcfg.Default(), Options{}, "size 0"},
		{"switch endpoint", pl, []workload.Flow{{ID: 1, Src: 0, Dst: 3, Size: 1}}, netcfg.Default(), Options{}, "not a host"},
		{"order", pl, []workload.Flow{{ID: 1, Src: 0, Dst: 1, Size: 1, Start: 5}, {ID: 2, Src: 0, Dst: 1, Size: 1}}, netcfg.Default(), Options{}, "sorted by start"},
	}
	for _, c := range runCases {
		_, err := Run(context.Background(), c.net, c.flows, c.cfg, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Run %s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
	simCases := []struct {
		name string
		caps []int64
		jobs []Job
		want string
	}{
		{"capacity", []int64{0}, []Job{{Route: []int{0}, Bytes: 1}}, "capacity 0"},
		{"bytes", []int64{1}, []Job{{ID: 4, Route: []int{0}}}, "job 4 has 0 bytes"},
		{"start", []int64{1}, []Job{{ID: 4, Route: []int{0}, Bytes: 1, Start: -1}}, "negative time"},
		{"cap", []int64{1}, []Job{{ID: 4, Route: []int{0}, Bytes: 1, CapBps: -1}}, "negative rate cap"},
		{"empty route", []int64{1}, []Job{{ID: 4, Bytes: 1}}, "empty route"},
		{"no such link", []int64{1}, []Job{{ID: 4, Route: []int{1}, Bytes: 1}}, "link 1, which does not exist"},
		{"link twice", []int64{1, 1}, []Job{{ID: 4, Route: []int{0, 1, 0}, Bytes: 1}}, "crosses link 0 twice"},
	}
	for _, c := range simCases {
		_, err := Simulate(c.caps, c.jobs, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Simulate %s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
}

// A cancelled context stops a run with the context's error instead of
// records; the same run under a live context finishes (its records are
// checked by TestFabricRecords).
func TestRunCancelled(t *testing.T) {
	spec, err := topo.Preset("meta32-1:1")
	if err != nil {
		t.Fatal(err)
	}
	net, err := topo.Fabric(spec)
	if err != nil {
		t.Fatal(err)
	}
	// Each flow is an arrival and a completion: well over checkEvery instants.
	flows, err := workload.Generate(net, workload.Spec{Flows: 2 * checkEvery, Components: []workload.Component{{
		Matrix: "B", Sizes: workload.SizeSpec{Dist: "cachefollower"}, Arrival: workload.Arrival{Sigma: 2}, MaxLoad: 0.5}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), net, flows, netcfg.Default(), Options{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	recs, err := Run(ctx, net, flows, netcfg.Default(), Options{})
	if !errors.Is(err, context.Canceled) || recs != nil {
		t.Fatalf("cancelled run: %d records, error %v; want none and context.Canceled", len(recs), err)
	}
}

// A lone flow under a window cap sends window x (payload + header) /
// payload wire bytes per base round trip when that is under line rate, so
// its FCT has a closed form; a window over the bandwidth-delay product
// changes nothing, and a CC without a window is not capped.
func TestWindowCap(t *testing.T) {
	for _, tc := range []struct {
		hops   int
		cc     string
		window int64
		gbps   float64 // the flow's rate, 0: line rate (no cap)
	}{
		// base RTT per hop: 2 x 1 us + 1048 B and 60 B at 10 Gbps = 2886.4 ns
		{2, "dctcp", 5_000, 5_000 * 1.048 * 8 / (2 * 2886.4)},
		{6, "hpcc", 5_000, 5_000 * 1.048 * 8 / (6 * 2886.4)},
		{4, "timely", 10_000, 10_000 * 1.048 * 8 / (4 * 2886.4)},
		{1, "dcqcn", 30_000, 0},
		{2, "dcqcn", 0, 0},
		{2, "dctcp-window", 5_000, 0},
	} {
		pl, err := topo.ParkingLot(topo.ParkingLotSpec{Hops: tc.hops})
		if err != nil {
			t.Fatal(err)
		}
		cfg := netcfg.Default()
		cfg.CC = tc.cc
		cfg.DCTCP.WindowBytes, cfg.DCQCN.WindowBytes, cfg.TIMELY.WindowBytes, cfg.HPCC.WindowBytes = tc.window, tc.window, tc.window, tc.window
		const size = 1_000_000
		fl := []workload.Flow{{ID: 1, Src: 0, Dst: 1, Size: size, Start: 0}}
		path, err := pl.Path(1, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(path) != tc.hops {
			t.Fatalf("%d-hop parking lot: path of %d channels", tc.hops, len(path))
		}
		recs, err := Run(context.Background(), pl, fl, cfg, Options{WindowCap: true})
		if err != nil {
			t.Fatal(err)
		}
		ideal := metrics.IdealFCT(pl, path, size, cfg)
		want := ideal
		if tc.gbps > 0 {
			bits := float64(cfg.WireBytes(size) * 8)
			want += int64(math.Round(bits/tc.gbps - bits/10))
		}
		// The cap is rounded down to a whole bps: a few ns over 1 MB.
		if r := recs[0]; math.Abs(float64(r.FCT-want)) > 5 {
			t.Errorf("%s window %d on %d hops: FCT %d, want %d", tc.cc, tc.window, tc.hops, r.FCT, want)
		}
	}
}

// packetsim, a second implementation of the window (and of everything
// else), agrees on a lone window-limited flow.
func TestWindowCapMatchesPacketsim(t *testing.T) {
	pl, err := topo.ParkingLot(topo.ParkingLotSpec{Hops: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, window := range []int64{2_000, 3_000, 5_000} {
		cfg := netcfg.Default()
		cfg.DCTCP.WindowBytes = window
		fl := []workload.Flow{{ID: 1, Src: 0, Dst: 1, Size: 1_000_000, Start: 0}}
		fs, err := Run(context.Background(), pl, fl, cfg, Options{WindowCap: true})
		if err != nil {
			t.Fatal(err)
		}
		ps, err := packetsim.Run(context.Background(), pl, fl, cfg, packetsim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		f, p := fs[0].FCT, ps.Records[0].FCT
		if rel := math.Abs(float64(f-p)) / float64(p); rel > 0.03 {
			t.Errorf("window %d B: flowSim FCT %d ns, packetsim %d ns (%.1f%% apart)", window, f, p, 100*rel)
		}
		plain, err := Run(context.Background(), pl, fl, cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if plain[0].FCT >= f {
			t.Errorf("window %d B: the cap does not slow the flow (FCT %d, uncapped %d)", window, f, plain[0].FCT)
		}
	}
}
