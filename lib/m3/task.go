package m3

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Task is one synthetic parking-lot scenario of the training set (m3
// Table 2): a chain of Hops links, foreground flows over the whole chain
// and background flows over every shorter segment, with a size
// distribution, log-normal arrivals, a target max load and DCTCP settings.
// It is self-contained and serializable, so that a task runs the same in a
// goroutine or as a Slurm array element.
type Task struct {
	Index      int               `json:"index"`
	Seed       uint64            `json:"seed"`
	Hops       int               `json:"hops"`
	Bandwidths []int64           `json:"bandwidths"` // per hop, bps
	Sizes      workload.SizeSpec `json:"sizes"`
	Sigma      float64           `json:"sigma"`    // log-normal arrival shape
	MaxLoad    float64           `json:"max_load"` // of the busiest hop
	// ForegroundShare is the expected share of flows that are foreground.
	ForegroundShare float64       `json:"foreground_share"`
	Flows           int           `json:"flows"`
	BackgroundHosts int           `json:"background_hosts"`
	Network         netcfg.Config `json:"network"`
	// InnerWeight, when above 1, makes background segments that touch
	// neither end hop (the fabric links of a fabric path) that many times
	// as likely as the others, so that the contention sits on the inner
	// hops rather than on the host links. With uniform segments the end
	// hops (10 Gbps, crossed by the foreground and every segment from or
	// to a host) are always the busiest; on the 6,144-host fabric about
	// half of the sampled paths have a 40 Gbps inner hop busiest
	// (BENCHMARKS.md, "At the papers' scale"). 0 and 1 are uniform.
	InnerWeight int `json:"inner_weight,omitempty"`
}

// fabricChain is the hop bandwidths of a Meta-fabric path of h hops:
// 10 Gbps host links at the ends, 40 Gbps in between.
func fabricChain(h int) []int64 {
	bw := make([]int64, h)
	for i := range bw {
		bw[i] = 40 * topo.Gbps
		if i == 0 || i == h-1 {
			bw[i] = 10 * topo.Gbps
		}
	}
	return bw
}

// taskSizes are the size distributions tasks draw from: m3's four
// parametric families (mean 5-50 KB) and, in a quarter of the tasks, the
// Meta distributions the fabric scenarios use.
var (
	paramSizes = []string{"pareto", "exp", "gaussian", "lognormal"}
	metaSizes  = []string{"webserver", "cachefollower", "hadoop"}
)

// RandomTask draws task index of a training set from m3 Table 2's space,
// widened where the fabric scenarios need it: 2, 4 or 6 hops, sizes as in
// taskSizes, arrival sigma in [1, 2], foreground share in [0.2, 0.5], and
// max load log-uniform in [0.05, 0.8] rather than m3's uniform [0.2, 0.8]:
// the busiest link of a fabric scenario sets its max load, and most hops
// of its paths carry a fifth to a half of that (5-20% at a 30% max load).
// Two tasks in three draw the ECN threshold K in [1, 4] KB per Gbps
// (10-40 KB at 10 Gbps) and the DCTCP window in [8, 30] KB; the third
// keeps the default network model (30 KB, 18 KB), the one every scenario
// uses unless it says otherwise, so that the model is densest there. The
// draw depends only on (seed, index).
func RandomTask(seed uint64, index, flows int) Task {
	r := rand.New(rand.NewPCG(seed, uint64(index)))
	h := []int{2, 4, 6}[r.IntN(3)]
	t := Task{
		Index:           index,
		Seed:            r.Uint64(),
		Hops:            h,
		Bandwidths:      fabricChain(h),
		Sigma:           1 + r.Float64(),
		MaxLoad:         0.05 * math.Pow(16, r.Float64()),
		ForegroundShare: 0.2 + 0.3*r.Float64(),
		Flows:           flows,
		BackgroundHosts: DefaultBackgroundHosts,
		Network:         netcfg.Default(),
	}
	if r.IntN(4) == 0 {
		t.Sizes = workload.SizeSpec{Dist: metaSizes[r.IntN(len(metaSizes))]}
	} else {
		t.Sizes = workload.SizeSpec{Dist: paramSizes[r.IntN(len(paramSizes))], Mean: math.Round(5000 + 45000*r.Float64())}
	}
	if r.IntN(3) != 0 {
		t.Network.KBytesPerGbps = math.Round(1000 + 3000*r.Float64())
		t.Network.DCTCP.WindowBytes = int64(8000 + r.IntN(22001))
	}
	return t
}

// Spaces names the configuration spaces RandomTaskIn draws from: "dctcp"
// (RandomTask's, the papers' rate-based DCTCP over infinite buffers),
// "table4" (m3's Table 4, plus the stock-TCP DCTCP ns-3 runs, with
// per-port buffers), "table4-pfc" (the same with the switch buffers of
// the papers' ns-3 fork: shared, and PFC on or off) and "table4-fork"
// (table4-pfc with DCQCN, TIMELY and HPCC under the fork's rules,
// on its wire, as m3's own ground truth runs them), "presets"
// (table4-pfc with each congestion control's parameters drawn over
// ranges that also hold tailscope's network presets: PresetsNetwork) and
// "presets-fork" (presets under the fork's rules, as table4-fork).
var Spaces = []string{"dctcp", "table4", "table4-pfc", "table4-fork", "presets", "presets-fork"}

// RandomTaskIn draws task index from the named space (Spaces): a table4,
// table4-pfc or table4-fork task is RandomTask's parking lot and workload
// with the network Table4NetworkIn draws.
func RandomTaskIn(space string, seed uint64, index, flows int) (Task, error) {
	t := RandomTask(seed, index, flows)
	switch space {
	case "", "dctcp":
	default:
		n, err := Table4NetworkIn(space, seed, index)
		if err != nil {
			return Task{}, err
		}
		t.Network = n
	}
	return t, nil
}

// Table4NetworkIn draws network index of the named Table-4 space (table4,
// table4-pfc, table4-fork, presets or presets-fork; Spaces):
// Table4Network's draw, in presets PresetsNetwork's, in table4-fork and
// presets-fork under the HPCC ns-3 fork's rules on its wire
// (netcfg.Config.WithForkRules, ForkWire).
func Table4NetworkIn(space string, seed uint64, index int) (netcfg.Config, error) {
	switch space {
	case "presets":
		return PresetsNetwork(seed, index), nil
	case "presets-fork":
		return PresetsNetwork(seed, index).WithForkRules().ForkWire(), nil
	case "table4", "table4-pfc":
		return Table4Network(seed, index, space == "table4-pfc"), nil
	case "table4-fork":
		return Table4Network(seed, index, true).WithForkRules().ForkWire(), nil
	}
	return netcfg.Config{}, fmt.Errorf("m3: unknown training space %q (known: %v)", space, Spaces)
}

// Table4Network draws network index of m3's Table 4 space, on a stream of
// its own: the congestion control uniformly from DCTCP (rate-based, the
// papers'), window DCTCP as stock ns-3 runs it (netcfg.NS3: marked at
// enqueue, 54 B headers), DCQCN, TIMELY and HPCC; the initial window in
// [5, 30] KB; DCTCP's K in [5, 20] KB; DCQCN's (Kmin, Kmax) in [20, 50] x
// [50, 100] KB; HPCC's (eta, rate AI) in [0.70, 0.95] x [500, 1000] Mbps;
// TIMELY's (Tlow, Thigh) in [40, 60] x [100, 150] us. Without shared
// buffers (the table4 space) half the networks have a [200, 500] KB
// buffer per switch port, the other half infinite buffers. With them
// (table4-pfc) the buffer is drawn again, as the papers' ns-3 fork has
// it, on a stream of its own: infinite (the default network's) in a
// quarter of the networks, else [200, 500] KB shared by each switch's
// ports (netcfg.Buffer, alpha 1), with PFC on in half of those (m3 Table
// 4's PFC on/off). The draw depends only on (seed, index, shared).
func Table4Network(seed uint64, index int, shared bool) netcfg.Config {
	r := rand.New(rand.NewPCG(seed^0x7461626c6534, uint64(index))) // "table4"
	uniform := func(lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }
	kb := func(lo, hi float64) int64 { return int64(math.Round(uniform(lo, hi))) * 1000 }
	cc := []string{"dctcp", "dctcp-window", "dcqcn", "timely", "hpcc"}[r.IntN(5)]
	cfg := netcfg.Default()
	if cc == "dctcp-window" {
		cfg = netcfg.NS3()
		cfg.HostNIC = "" // the papers' round-robin NICs, as m3 was trained
	}
	cfg.CC = cc
	window := kb(5, 30)
	cfg.KBytes = kb(5, 20)
	switch cc {
	case "dctcp":
		cfg.DCTCP.WindowBytes = window
	case "dctcp-window":
		cfg.DCTCP.InitWindow = max(1, window/cfg.PayloadBytes)
	default:
		setRateCC(&cfg, window, rateDraws{
			dcqcn:  func() (int64, int64) { return kb(20, 50), kb(50, 100) },
			timely: func() (int64, int64) { return int64(uniform(40, 60) * 1000), int64(uniform(100, 150) * 1000) },
			hpcc:   func() (float64, int64) { return uniform(0.70, 0.95), int64(uniform(500, 1000)) * 1_000_000 },
		})
	}
	if r.IntN(2) == 0 {
		cfg.BufferBytes = kb(200, 500)
	}
	if shared {
		r = rand.New(rand.NewPCG(seed^0x706663, uint64(index))) // "pfc"
		cfg.BufferBytes = 0
		if u := r.IntN(8); u >= 2 {
			cfg.Buffer.SharedBytes = kb(200, 500)
			cfg.PFC.Enabled = u >= 5
		}
	}
	return cfg
}

// PresetsNetwork draws network index of the presets space: Table4Network's
// draw with shared buffers (its congestion control and buffers), with the
// control's parameters drawn again, on a stream of their own, over ranges
// that hold both m3 Table 4's and the presets' (netcfg.Preset "dcqcn",
// "hpcc", "timely" and their fork-* versions: no window, DCQCN's (Kmin, Kmax) = (5, 200)
// KB, HPCC's 50 Mbps rate AI, TIMELY's 500 us Thigh) and the atlas's
// counterfactual changes of them (TIMELY's Tlow of 25 us): no window in a
// third of the DCQCN, TIMELY and HPCC networks, else [5, 30] KB as
// Table 4; DCQCN's (Kmin, Kmax) in [5, 50] x [50, 200] KB; HPCC's eta in
// [0.70, 0.95] and rate AI log-uniform in [40, 1000] Mbps; TIMELY's
// (Tlow, Thigh) in [20, 60] x [100, 500] us. DCTCP's draws are
// Table4Network's.
func PresetsNetwork(seed uint64, index int) netcfg.Config {
	cfg := Table4Network(seed, index, true)
	r := rand.New(rand.NewPCG(seed^0x70726573, uint64(index))) // "pres"
	uniform := func(lo, hi float64) float64 { return lo + (hi-lo)*r.Float64() }
	kb := func(lo, hi float64) int64 { return int64(math.Round(uniform(lo, hi))) * 1000 }
	window := int64(0)
	if r.IntN(3) > 0 {
		window = kb(5, 30)
	}
	setRateCC(&cfg, window, rateDraws{
		dcqcn:  func() (int64, int64) { return kb(5, 50), kb(50, 200) },
		timely: func() (int64, int64) { return int64(uniform(20, 60) * 1000), int64(uniform(100, 500) * 1000) },
		hpcc: func() (float64, int64) {
			return uniform(0.70, 0.95), int64(math.Round(40*math.Pow(1000.0/40, r.Float64()))) * 1_000_000
		},
	})
	return cfg
}

// rateDraws draw the parameters of the rate-based controls: DCQCN's
// (Kmin, Kmax) in bytes, TIMELY's (Tlow, Thigh) in ns, HPCC's (eta, rate
// AI in bps). Only the network's own control's is called, so a space's
// random stream is drawn as far as its control needs.
type rateDraws struct {
	dcqcn, timely func() (int64, int64)
	hpcc          func() (float64, int64)
}

// setRateCC sets cfg's window and parameters of DCQCN, TIMELY or HPCC
// (whichever cfg runs; other controls are left alone) from d.
func setRateCC(cfg *netcfg.Config, window int64, d rateDraws) {
	switch cfg.CC {
	case "dcqcn":
		cfg.DCQCN.WindowBytes = window
		cfg.DCQCN.KminBytes, cfg.DCQCN.KmaxBytes = d.dcqcn()
	case "timely":
		cfg.TIMELY.WindowBytes = window
		cfg.TIMELY.TLowNanos, cfg.TIMELY.THighNanos = d.timely()
	case "hpcc":
		cfg.HPCC.WindowBytes = window
		cfg.HPCC.Eta, cfg.HPCC.AIRateBps = d.hpcc()
	}
}

// Build makes the task's parking lot and flows. Flow pairs are drawn
// uniformly from a list holding every background segment (first..last hop,
// one pair per background host slot) once, the inner ones InnerWeight
// times, and the foreground pair as often as ForegroundShare asks. A background flow joining at hop a enters from
// a host a links away and one leaving after hop b goes to a host
// Hops-1-b links away, so that every flow has the foreground's base round
// trip, as on a fabric where most routes have the same length.
func (t Task) Build() (*PathSim, error) {
	switch {
	case t.Hops < 1 || len(t.Bandwidths) != t.Hops:
		return nil, fmt.Errorf("m3: task %d: %d hops with %d bandwidths", t.Index, t.Hops, len(t.Bandwidths))
	case !(t.ForegroundShare > 0 && t.ForegroundShare < 1):
		return nil, fmt.Errorf("m3: task %d: foreground share %g must be in (0, 1)", t.Index, t.ForegroundShare)
	case t.Flows <= 0:
		return nil, fmt.Errorf("m3: task %d: needs a positive number of flows, got %d", t.Index, t.Flows)
	case t.BackgroundHosts <= 0:
		return nil, fmt.Errorf("m3: task %d: needs background hosts, got %d", t.Index, t.BackgroundHosts)
	case t.InnerWeight < 0:
		return nil, fmt.Errorf("m3: task %d: inner segment weight %d must not be negative", t.Index, t.InnerWeight)
	}
	spec := topo.ParkingLotSpec{Hops: t.Hops, Bandwidths: t.Bandwidths, HostBandwidth: 10 * topo.Gbps,
		Delay: topo.Microsecond, GroupHosts: t.BackgroundHosts}
	type span struct{ first, last int }
	var pairs [][2]int
	spans := map[[2]int]span{}
	for a := 0; a < t.Hops; a++ {
		for b := a; b < t.Hops; b++ {
			if a == 0 && b == t.Hops-1 {
				continue
			}
			copies := 1
			if a > 0 && b < t.Hops-1 {
				copies = max(1, t.InnerWeight)
			}
			for j := 0; j < t.BackgroundHosts; j++ {
				src, dst := endpoints(&spec, a, b, int64(a)*spec.Delay, int64(t.Hops-1-b)*spec.Delay, j, j)
				for range copies {
					pairs = append(pairs, [2]int{src, dst})
				}
				spans[[2]int{src, dst}] = span{a, b}
			}
		}
	}
	// The foreground pair goes in as often as the share asks. A share
	// below one copy per background list (a fabric path's, down to
	// 1e-4) repeats the list until the foreground has ten copies, within
	// 5% of the share; the shares RandomTask draws ask for two copies or
	// more, so their lists are as they were.
	x := float64(len(pairs)) * t.ForegroundShare / (1 - t.ForegroundShare)
	if x < 1 {
		reps := int(math.Ceil(10 / x))
		bg := pairs
		pairs = make([][2]int, 0, reps*len(bg)+10)
		for range reps {
			pairs = append(pairs, bg...)
		}
		x *= float64(reps)
	}
	fg := max(1, int(math.Round(x)))
	for range fg {
		pairs = append(pairs, [2]int{0, 1})
	}
	spans[[2]int{0, 1}] = span{0, t.Hops - 1}
	net, err := topo.ParkingLot(spec)
	if err != nil {
		return nil, fmt.Errorf("m3: task %d: %w", t.Index, err)
	}
	flows, err := workload.Generate(net, workload.Spec{Flows: t.Flows, Components: []workload.Component{{
		Pairs: pairs, Sizes: t.Sizes, Arrival: workload.Arrival{Process: "lognormal", Sigma: t.Sigma}, MaxLoad: t.MaxLoad,
	}}}, t.Seed)
	if err != nil {
		return nil, fmt.Errorf("m3: task %d: %w", t.Index, err)
	}
	sim := &PathSim{Spec: spec, Net: net, Flows: flows}
	for _, f := range flows {
		s := spans[[2]int{f.Src, f.Dst}]
		sim.First, sim.Last = append(sim.First, s.first), append(sim.Last, s.last)
		sim.Foreground = append(sim.Foreground, f.Src == 0 && f.Dst == 1)
		sim.Orig = append(sim.Orig, -1)
	}
	return sim, nil
}
