package pfs

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

func build(t testing.TB, spec scenario.Spec) *scenario.Scenario {
	t.Helper()
	sc, err := scenario.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func run(t testing.TB, sc *scenario.Scenario, o Options) *Result {
	t.Helper()
	r, err := Run(context.Background(), sc.Net, sc.Flows, sc.Spec.Network, o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func serial(t testing.TB, sc *scenario.Scenario) *Result {
	t.Helper()
	r, err := Serial(sc.Net, sc.Flows, sc.Spec.Network, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func sameSeries(t *testing.T, name string, a, b *Series, tol float64) {
	t.Helper()
	ta, tb := a.Total(), b.Total()
	if len(ta) != len(tb) {
		t.Fatalf("%s: %d bins vs %d", name, len(ta), len(tb))
	}
	for i := range ta {
		if math.Abs(ta[i]-tb[i]) > tol*(1+tb[i]) {
			t.Fatalf("%s: bin %d received %.3f bytes vs %.3f", name, i, ta[i], tb[i])
		}
	}
}

// One chunk is the serial run: the same records to the nanosecond and the
// same received bytes (up to rounding).
func TestOneChunkIsSerial(t *testing.T) {
	for _, spec := range []scenario.Spec{scenario.PFSDumbbell(4, 3000, 0.7, 1), scenario.PFSFabric(3000, 0.5, 2)} {
		sc := build(t, spec)
		base := serial(t, sc)
		got := run(t, sc, Options{})
		if !reflect.DeepEqual(got.Records, base.Records) {
			t.Errorf("%s: one-chunk records differ from the serial run", spec.Name)
		}
		sameSeries(t, spec.Name, got.Received, base.Received, 1e-9)
	}
}

// Groups that share no channel are independent: spatial chunks on a star
// where every pair has its own links reproduce the serial run exactly,
// whatever the background mode.
func TestDisjointGroupsExact(t *testing.T) {
	nodes := []topo.Node{{ID: 4, Kind: topo.Switch}}
	var links []topo.Link
	for h := 0; h < 4; h++ {
		nodes = append(nodes, topo.Node{ID: h, Kind: topo.Host, Rack: -1, Pod: -1})
		links = append(links, topo.Link{A: h, B: 4, Bandwidth: 10 * topo.Gbps, Delay: 1000})
	}
	net, err := topo.New("star", nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	flows, err := workload.Generate(net, workload.Spec{Flows: 4000, Components: []workload.Component{{
		Pairs: [][2]int{{0, 1}, {2, 3}}, Sizes: workload.SizeSpec{Dist: "pareto", Mean: 30_000, Shape: 1.3},
		Arrival: workload.Arrival{Process: "poisson"}, MaxLoad: 0.8}}}, 7)
	if err != nil {
		t.Fatal(err)
	}
	sc := &scenario.Scenario{Net: net, Flows: flows, Spec: scenario.Spec{Network: netcfg.Default()}}
	base := serial(t, sc)
	for _, bg := range []string{BackgroundOffered, BackgroundNone} {
		got := run(t, sc, Options{Spatial: 2, Background: bg})
		if got.Chunks != 2 {
			t.Fatalf("%d chunks, want 2", got.Chunks)
		}
		if !reflect.DeepEqual(got.Records, base.Records) {
			t.Errorf("background %s: records differ from the serial run", bg)
		}
		sameSeries(t, bg, got.Received, base.Received, 1e-9)
	}
}

// Chunking: every flow is an own flow of exactly one chunk, the one of its
// window and pair group, and pairs never split; the injected flows of
// chunk (w, g) are exactly the flows of group g from earlier windows
// estimated to be active at T_w, each once, starting at T_w with at most
// their bytes; merging finds one record per flow.
func TestChunking(t *testing.T) {
	sc := build(t, scenario.PFSDumbbell(8, 6000, 0.8, 3))
	cfg := sc.Spec.Network
	for _, o := range []Options{{}, {Temporal: 4}, {Spatial: 3}, {Temporal: 5, Spatial: 4}, {Temporal: 40, Spatial: 8}, {Spatial: 50}} {
		p, err := NewPlan(sc.Net, sc.Flows, cfg, o)
		if err != nil {
			t.Fatal(err)
		}
		nw, ng := max(o.Temporal, 1), min(max(o.Spatial, 1), 8)
		if len(p.Chunks) != nw*ng || p.Groups != ng {
			t.Fatalf("%+v: %d chunks in %d groups, want %d x %d", o, len(p.Chunks), p.Groups, nw, ng)
		}
		owner := make([]int, len(sc.Flows))
		for i := range owner {
			owner[i] = -1
		}
		pairGroup := map[[2]int]int{}
		for ci, c := range p.Chunks {
			if c.Index != ci || c.Window != ci/ng || c.Group != ci%ng {
				t.Fatalf("%+v: chunk %d is labelled %d (%d, %d)", o, ci, c.Index, c.Window, c.Group)
			}
			for _, f := range c.Flows {
				if owner[f.Pos] >= 0 {
					t.Fatalf("%+v: flow %d is in chunks %d and %d", o, f.Flow.ID, owner[f.Pos], ci)
				}
				owner[f.Pos] = ci
				if p.Window[f.Pos] != c.Window || p.Group[f.Pos] != c.Group {
					t.Fatalf("%+v: flow %d (window %d group %d) in chunk (%d, %d)", o, f.Flow.ID, p.Window[f.Pos], p.Group[f.Pos], c.Window, c.Group)
				}
				if f.Flow.Start < p.Edges[c.Window] || (f.Flow.Start >= p.Edges[c.Window+1] && c.Window < nw-1) {
					t.Fatalf("%+v: flow %d starts at %d, outside window [%d, %d)", o, f.Flow.ID, f.Flow.Start, p.Edges[c.Window], p.Edges[c.Window+1])
				}
				k := [2]int{f.Flow.Src, f.Flow.Dst}
				if g, ok := pairGroup[k]; ok && g != c.Group {
					t.Fatalf("%+v: pair %v split over groups %d and %d", o, k, g, c.Group)
				}
				pairGroup[k] = c.Group
			}
			var want []int
			for i, f := range sc.Flows {
				if p.Group[i] == c.Group && p.Window[i] < c.Window && p.EstimatedEnd[i] > float64(p.Edges[c.Window]) && f.Start < p.Edges[c.Window] {
					want = append(want, i)
				}
			}
			var got []int
			for _, f := range c.Injected {
				got = append(got, f.Pos)
				if f.Start != p.Edges[c.Window] || f.Bytes <= 0 || f.Bytes > cfg.WireBytes(f.Flow.Size) {
					t.Fatalf("%+v: injected flow %d starts %d with %d bytes (window at %d, flow %d wire bytes)", o, f.Flow.ID, f.Start, f.Bytes, p.Edges[c.Window], cfg.WireBytes(f.Flow.Size))
				}
			}
			sort.Ints(got)
			if !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
				t.Fatalf("%+v: chunk %d injects %v, want %v", o, ci, got, want)
			}
			for k := 1; k < len(got); k++ {
				if got[k] == got[k-1] {
					t.Fatalf("%+v: chunk %d injects flow %d twice", o, ci, got[k])
				}
			}
		}
		for i, ci := range owner {
			if ci < 0 {
				t.Fatalf("%+v: flow %d is in no chunk", o, sc.Flows[i].ID)
			}
		}
		if nw > 4 && ng < 8 {
			inj := 0
			for _, c := range p.Chunks {
				inj += len(c.Injected)
			}
			if inj == 0 {
				t.Errorf("%+v: no boundary flows at 80%% load; the estimate should find some", o)
			}
		}
	}
}

// The activity estimate is processor sharing: on one 10 Gbps bottleneck at
// load 0.6 with Poisson arrivals and exponential sizes (M/M/1-PS), a flow
// of s bits stays s/(C(1-rho)) on average. The estimated mean matches that
// and the serial flowsim run's mean transfer time within 10%.
func TestActivityEstimate(t *testing.T) {
	spec := scenario.PFSDumbbell(1, 40_000, 0.6, 5)
	spec.Workload.Components[0].Sizes = workload.SizeSpec{Dist: "exp", Mean: 100_000}
	sc := build(t, spec)
	p, err := NewPlan(sc.Net, sc.Flows, sc.Spec.Network, Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := serial(t, sc)
	var est, sim, theory float64
	span := float64(sc.Flows[len(sc.Flows)-1].Start - sc.Flows[0].Start)
	var bits float64
	for _, f := range sc.Flows {
		bits += float64(sc.Spec.Network.WireBytes(f.Size)) * 8
	}
	rho := bits / (10 * span) // 10 bits per ns
	for i, f := range sc.Flows {
		w := float64(sc.Spec.Network.WireBytes(f.Size)) * 8
		est += p.EstimatedEnd[i] - float64(f.Start)
		sim += float64(base.Records[i].FCT-base.Records[i].Ideal) + w/10
		theory += w / (10 * (1 - rho))
	}
	if math.Abs(rho-0.6) > 0.03 {
		t.Fatalf("bottleneck load %.3f, want about 0.6", rho)
	}
	if math.Abs(est/theory-1) > 1e-9 {
		t.Errorf("estimated mean transfer %.0f ns, M/M/1-PS %.0f ns", est/float64(len(sc.Flows)), theory/float64(len(sc.Flows)))
	}
	if math.Abs(est/sim-1) > 0.1 {
		t.Errorf("estimated mean transfer %.0f ns, serial run %.0f ns", est/float64(len(sc.Flows)), sim/float64(len(sc.Flows)))
	}
}

// Background reduction on a dumbbell with two pairs in two chunks: the
// shared bottleneck keeps C(1 - rho_other) when underloaded and C
// rho_own/rho when overloaded; links a chunk shares with nobody keep C.
func TestBackgroundCapacity(t *testing.T) {
	for _, load := range []float64{0.5, 0.95} {
		spec := scenario.PFSDumbbell(2, 4000, load, 9)
		spec.Workload.Components[0].Sizes = workload.SizeSpec{Dist: "exp", Mean: 50_000}
		sc := build(t, spec)
		cfg := sc.Spec.Network
		p, err := NewPlan(sc.Net, sc.Flows, cfg, Options{Spatial: 2})
		if err != nil {
			t.Fatal(err)
		}
		bottleneck := 2 * (len(sc.Net.Links) - 1)
		span := float64(sc.Flows[len(sc.Flows)-1].Start - sc.Flows[0].Start)
		rho := make([]float64, 2)
		for i, f := range sc.Flows {
			rho[p.Group[i]] += float64(cfg.WireBytes(f.Size)) * 8 / (10 * span)
		}
		for _, c := range p.Chunks {
			own, other := rho[c.Group], rho[1-c.Group]
			want := 1 - other
			if own+other >= 1 {
				want = own / (own + other)
			}
			for l, ch := range c.Channels {
				got := float64(c.CapBps[l]) / float64(10*topo.Gbps)
				w := 1.0
				if ch == bottleneck {
					w = want
				}
				if math.Abs(got-w) > 1e-6 {
					t.Errorf("load %.2f, chunk %d, channel %d: capacity share %.6f, want %.6f (own %.3f, other %.3f)", load, c.Index, ch, got, w, own, other)
				}
			}
		}
	}
}

// The number of workers changes the speed, never the result.
func TestWorkersDeterministic(t *testing.T) {
	sc := build(t, scenario.PFSFabric(3000, 0.5, 4))
	a := run(t, sc, Options{Temporal: 3, Spatial: 4, Workers: 1})
	b := run(t, sc, Options{Temporal: 3, Spatial: 4, Workers: 2})
	if !reflect.DeepEqual(a.Records, b.Records) || !reflect.DeepEqual(a.Received.Bytes, b.Received.Bytes) {
		t.Error("1 and 2 workers gave different results")
	}
}

// End to end against the serial run, with tolerances from measured runs
// plus margin (the runs are deterministic). Temporal chunks keep the
// received-bytes series and the FCT tail close; spatial chunks lose the
// other groups' burstiness, which shows in the tail. Without the
// background reduction a spatial chunk sees the shared bottleneck idle
// but for its own flows: the offered-load reduction must beat "none" on
// the dumbbell.
func TestAgainstSerial(t *testing.T) {
	bins := metrics.ParsimonBins()
	cases := []struct {
		name             string
		spec             scenario.Spec
		opts             Options
		maxNRMSE, maxP99 float64
	}{
		{"dumbbell temporal 8", scenario.PFSDumbbell(8, 20_000, 0.6, 11), Options{Temporal: 8}, 0.03, 0.05},
		{"dumbbell spatial 8", scenario.PFSDumbbell(8, 20_000, 0.6, 11), Options{Spatial: 8}, 0.2, 0.4},
		{"fabric temporal 8", scenario.PFSFabric(20_000, 0.5, 12), Options{Temporal: 8}, 0.05, 0.05},
		{"fabric spatio-temporal 4x8", scenario.PFSFabric(20_000, 0.5, 12), Options{Temporal: 4, Spatial: 8}, 0.1, 0.35},
	}
	bases := map[string]*Result{}
	for _, c := range cases {
		sc := build(t, c.spec)
		base, ok := bases[sc.ID]
		if !ok {
			base = serial(t, sc)
			bases[sc.ID] = base
		}
		got := run(t, sc, c.opts)
		acc, err := Compare(got, base, bins)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: NRMSE %.4f, p50 error %+.3f, p99 error %+.3f", c.name, acc.NRMSE, acc.P50.ErrorAll, acc.P99.ErrorAll)
		if acc.NRMSE > c.maxNRMSE {
			t.Errorf("%s: NRMSE %.4f above %.2f", c.name, acc.NRMSE, c.maxNRMSE)
		}
		if math.Abs(acc.P99.ErrorAll) > c.maxP99 {
			t.Errorf("%s: p99 slowdown error %+.3f beyond %.2f", c.name, acc.P99.ErrorAll, c.maxP99)
		}
	}
	sc := build(t, scenario.PFSDumbbell(8, 20_000, 0.6, 11))
	base := bases[sc.ID]
	off, err := Compare(run(t, sc, Options{Spatial: 8}), base, bins)
	if err != nil {
		t.Fatal(err)
	}
	none, err := Compare(run(t, sc, Options{Spatial: 8, Background: BackgroundNone}), base, bins)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(off.P50.ErrorAll) >= math.Abs(none.P50.ErrorAll) || off.NRMSE >= none.NRMSE {
		t.Errorf("offered-load background (p50 error %+.3f, NRMSE %.3f) does not beat none (%+.3f, %.3f)",
			off.P50.ErrorAll, off.NRMSE, none.P50.ErrorAll, none.NRMSE)
	}
	// Windowed loads follow the load over time: with 8 windows the tail
	// comes closer than with the run's average.
	win, err := Compare(run(t, sc, Options{Spatial: 8, Temporal: 8, Background: BackgroundWindowed}), base, bins)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(win.P99.ErrorAll) >= math.Abs(off.P99.ErrorAll) {
		t.Errorf("windowed background p99 error %+.3f, not closer than offered's %+.3f", win.P99.ErrorAll, off.P99.ErrorAll)
	}
}

func TestErrors(t *testing.T) {
	sc := build(t, scenario.PFSDumbbell(2, 100, 0.5, 1))
	cfg := sc.Spec.Network
	for _, o := range []Options{{Temporal: -1}, {Background: "magic"}, {MinShare: 2}, {BinNs: -5}} {
		if _, err := NewPlan(sc.Net, sc.Flows, cfg, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	same := append([]workload.Flow(nil), sc.Flows...)
	for i := range same {
		same[i].Start = 0
	}
	if _, err := NewPlan(sc.Net, same, cfg, Options{Temporal: 2}); err == nil {
		t.Error("temporal chunks of flows that all start at once accepted")
	}
	if _, err := NewPlan(sc.Net, nil, cfg, Options{}); err == nil {
		t.Error("no flows accepted")
	}
	p, err := NewPlan(sc.Net, sc.Flows, cfg, Options{Temporal: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Merge(nil); err == nil {
		t.Error("merge of no results accepted")
	}
	r0, err := RunChunk(&p.Chunks[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Merge([]*ChunkResult{r0, r0}); err == nil {
		t.Error("merge with a chunk's result twice accepted")
	}
}

// Compare's per-destination RMSE is the same to the last bit on every
// call: its sum runs in host order, not a map's. With 64 hosts of
// irrational-looking rates, a map order would change the last bits on
// almost every call.
func TestCompareDeterministic(t *testing.T) {
	g := rand.New(rand.NewPCG(7, 7))
	series := func() *Series {
		s := &Series{BinNs: 1000}
		for h := 0; h < 64; h++ {
			row := make([]float64, 50)
			for b := range row {
				row[b] = 1e3 * g.Float64() / 3
			}
			s.Hosts, s.Bytes = append(s.Hosts, h), append(s.Bytes, row)
		}
		return s
	}
	recs := []metrics.Record{{FlowID: 0, Size: 1000, FCT: 2000, Ideal: 1000, Slowdown: 2}}
	est, base := &Result{Records: recs, Received: series()}, &Result{Records: recs, Received: series()}
	first, err := Compare(est, base, metrics.AllSizes())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		acc, err := Compare(est, base, metrics.AllSizes())
		if err != nil {
			t.Fatal(err)
		}
		if acc.HostRMSE != first.HostRMSE {
			t.Fatalf("call %d: host RMSE %v, first %v", i, acc.HostRMSE, first.HostRMSE)
		}
	}
}
