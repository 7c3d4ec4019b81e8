package scenario

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// The named scenarios of tailscope's studies live here, once: the CLI, the
// notebooks and the study packages (cceval, pfs, dscale, validate) build
// their scenarios from these functions, and Named looks them up by name
// with their default sizes.

// Default is the scenario `make reproduce` and the quickstart use: the
// 32-rack 2:1 fabric with matrix B, WebServer sizes, bursty arrivals
// (sigma 2) at 50% max load, as in Parsimon's large-scale setting but small.
func Default() Spec {
	return Spec{
		Name:     "default",
		Topology: Topology{Preset: "meta32-2:1"},
		Workload: workload.Spec{
			Flows: 20_000,
			Components: []workload.Component{{
				Matrix:  "B",
				Sizes:   workload.SizeSpec{Dist: "webserver"},
				Arrival: workload.Arrival{Process: "lognormal", Sigma: 2},
				MaxLoad: 0.5,
			}},
		},
		Network: netcfg.Default(),
		Seed:    1,
	}
}

// CCEvalDumbbell is the setting of CCEval's dumbbell experiments
// (§6.4-6.5) at our scale: 10 senders and 10 receivers on one 10 Gbps
// bottleneck (10 Gbps hosts), DCTCP, flows from every left host to every
// right host with the named size distribution, Poisson arrivals at the
// given bottleneck load, flows flows (set Workload.DurationNs instead for
// a fixed duration).
func CCEvalDumbbell(flows int, load float64, sizes string) Spec {
	d := topo.DumbbellSpec{Senders: 10, Receivers: 10}
	return Spec{
		Name:     "cceval-dumbbell",
		Topology: Topology{Dumbbell: &d},
		Workload: workload.Spec{Flows: flows, Components: []workload.Component{{
			Pairs: d.CrossPairs(), Sizes: workload.SizeSpec{Dist: sizes},
			Arrival: workload.Arrival{Process: "poisson"}, MaxLoad: load,
		}}},
		Network: netcfg.Default(),
		Seed:    1,
	}
}

// PFSDumbbell is the pfs paper's simple configuration (§IV-A, Fig. 2,
// extended to eight source-destination pairs as in §IV-C/D): senders
// 0..pairs-1 each send to their own receiver across one shared 10 Gbps
// bottleneck, flow sizes Pareto with offset 10 KB and alpha 1.2 (mean 60
// KB), Poisson arrivals. The paper modulates the number of active sources
// over time; here the load is stationary at maxLoad of the bottleneck.
func PFSDumbbell(pairs, flows int, maxLoad float64, seed uint64) Spec {
	ps := make([][2]int, pairs)
	for i := range ps {
		ps[i] = [2]int{i, pairs + i}
	}
	return Spec{
		Name:     "pfs-dumbbell",
		Topology: Topology{Dumbbell: &topo.DumbbellSpec{Senders: pairs, Receivers: pairs}},
		Workload: workload.Spec{Flows: flows, Components: []workload.Component{{
			Pairs:   ps,
			Sizes:   workload.SizeSpec{Dist: "pareto", Mean: 60_000, Shape: 1.2},
			Arrival: workload.Arrival{Process: "poisson"},
			MaxLoad: maxLoad,
		}}},
		Network: netcfg.Default(),
		Seed:    seed,
	}
}

// PFSFabric is the fabric counterpart of PFSDumbbell: the 32-rack 2:1
// Meta fabric with matrix B, CacheFollower sizes and bursty log-normal
// arrivals (sigma 2) at maxLoad, the kind of scenario tailscope's users
// estimate tails on.
func PFSFabric(flows int, maxLoad float64, seed uint64) Spec {
	s := Default()
	s.Name = "pfs-fabric"
	s.Workload.Flows = flows
	s.Workload.Components[0].Sizes = workload.SizeSpec{Dist: "cachefollower"}
	s.Workload.Components[0].MaxLoad = maxLoad
	s.Seed = seed
	return s
}

// CENIC is DSCALE's backbone experiment (§IV-C, V-B) on the CENIC-like
// topology: every host pair a flow group (600 groups), Poisson flow
// arrivals, Pareto sizes with a mean of 12 packets and shape 1.2,
// 400-packet buffers. The paper's congested links are HPR-DC
// interconnects; here those run at 40% of the 1 Gbps backbone so that
// they are the busiest, and the arrival rate puts the busiest channel at
// maxLoad. TCP is window-based DCTCP (self-clocked, as the paper's TCP)
// with a 50 ms minimum RTO.
func CENIC(flows int, maxLoad float64, seed uint64) Spec {
	cfg := netcfg.Default()
	cfg.CC = "dctcp-window"
	cfg.BufferBytes = 400 * (cfg.PayloadBytes + cfg.HeaderBytes)
	cfg.DCTCP.MinRTONanos = 50_000_000 // above the backbone's RTTs, as a WAN TCP's
	cfg.KBytes = 100_000               // mark late, like RED's lower threshold: queues build as in the paper's runs
	return Spec{
		Name:     "dscale-cenic",
		Topology: Topology{CENIC: &topo.CENICSpec{BackboneBandwidth: topo.Gbps, InterconnectBandwidth: 400_000_000, AccessBandwidth: topo.Gbps}},
		Workload: workload.Spec{Flows: flows, Components: []workload.Component{{
			Matrix:  "uniform",
			Sizes:   workload.SizeSpec{Dist: "pareto", Mean: 12_000, Shape: 1.2},
			Arrival: workload.Arrival{Process: "poisson"},
			MaxLoad: maxLoad,
		}}},
		Network: cfg,
		Seed:    seed,
	}
}

// HotFabric is a fabric with a few hot links (DSCALE's setting on a data
// center): the 32-rack 2:1 Meta fabric under light all-to-all WebServer
// traffic (background maxLoad of the busiest channel), plus traffic from
// the hosts of other racks into hot hosts (the first host of the first hot
// racks), log-normal sizes of mean 20 KB, that loads their downlinks to
// hotLoad. It runs for durationNs with Poisson arrivals, window-based
// DCTCP and 200 KB port buffers.
func HotFabric(hot int, background, hotLoad float64, durationNs int64, seed uint64) Spec {
	s := Default()
	s.Name = "dscale-hot-fabric"
	s.Network.CC = "dctcp-window"
	s.Network.BufferBytes = 200_000
	fab, err := topo.Preset(s.Topology.Preset)
	if err != nil {
		panic(err) // Default names a preset that exists
	}
	var pairs [][2]int
	hosts := fab.Pods * fab.RacksPerPod * fab.HostsPerRack
	for h := 0; h < hot; h++ {
		dst := h * fab.HostsPerRack
		for src := 0; src < hosts; src++ {
			if src/fab.HostsPerRack != dst/fab.HostsPerRack {
				pairs = append(pairs, [2]int{src, dst})
			}
		}
	}
	s.Workload = workload.Spec{DurationNs: durationNs, Components: []workload.Component{
		{Name: "background", Matrix: "uniform", Sizes: workload.SizeSpec{Dist: "webserver"}, Arrival: workload.Arrival{Process: "poisson"}, MaxLoad: background},
		// Light-tailed sizes keep the hot links' realized load near
		// hotLoad even over a few milliseconds.
		{Name: "hot", Pairs: pairs, Sizes: workload.SizeSpec{Dist: "lognormal", Mean: 20_000}, Arrival: workload.Arrival{Process: "poisson"}, MaxLoad: hotLoad},
	}}
	s.Seed = seed
	return s
}

// Validation topologies: the three networks of `tailscope validate ns3`,
// and the 6,144-host fabric of the papers' large-scale tables, which it
// runs when asked.
const (
	ValidationDumbbell    = "dumbbell"
	ValidationParkingLot  = "parking-lot-4"
	ValidationFabric      = "meta32-2:1"
	ValidationLargeFabric = "meta384-2:1"
)

// Validation is one case of the ns-3 comparison: WebServer flows with
// log-normal (sigma 2) arrivals at max load on one of the validation
// topologies, with the network model ns-3 runs (netcfg.NS3). On the
// dumbbell (4 senders, 4 receivers, 10 Gbps) every flow crosses the
// bottleneck; on the parking lot (4 hops of 10 Gbps, 2 background hosts
// per switch) flows run between every pair of attachment points in chain
// order, so paths of 1 to 4 hops share links; on the fabrics the traffic
// is Meta's matrix B.
func Validation(topology string, flows int, load float64, seed uint64) (Spec, error) {
	comp := workload.Component{
		Sizes:   workload.SizeSpec{Dist: "webserver"},
		Arrival: workload.Arrival{Process: "lognormal", Sigma: 2},
		MaxLoad: load,
	}
	spec := Spec{
		Name:    fmt.Sprintf("validate-ns3 %s load %g", topology, load),
		Network: netcfg.NS3(),
		Seed:    seed,
	}
	switch topology {
	case ValidationDumbbell:
		d := topo.DumbbellSpec{Senders: 4, Receivers: 4}
		spec.Topology.Dumbbell = &d
		comp.Pairs = d.CrossPairs()
	case ValidationParkingLot:
		p := topo.ParkingLotSpec{Hops: 4, BackgroundHosts: 2}
		spec.Topology.ParkingLot = &p
		comp.Pairs = p.ChainPairs()
	case ValidationFabric, ValidationLargeFabric:
		spec.Topology.Preset = topology
		comp.Matrix = "B"
	default:
		return Spec{}, fmt.Errorf("scenario: unknown validation topology %q (known: %s, %s, %s, %s)",
			topology, ValidationDumbbell, ValidationParkingLot, ValidationFabric, ValidationLargeFabric)
	}
	spec.Workload = workload.Spec{Flows: flows, Components: []workload.Component{comp}}
	return spec, nil
}

// WhatIfHPCC is the setting of m3's counterfactual search (§5.4, Fig. 13
// and 14): the 32-rack, 256-host fabric (2:1; the paper does not say),
// WebServer sizes, matrix C, log-normal arrivals (sigma 2) at 50% max
// load, PFC on and a 200 KB buffer shared by each switch's ports, HPCC
// with eta 0.9 and a 20 KB initial window (each figure's fixed setting),
// flows flows. HPCC's rate AI, which the paper does not give, lies inside
// m3's Table 4, on which its model is trained: 750 Mbps, the middle of
// Table 4's 500-1000 Mbps (at the HPCC fork's configured 50 Mbps,
// netcfg's default, the model would extrapolate, and there packetsim
// shows none of the initial window's effect on small flows that the
// paper's Fig. 13 is about; BENCHMARKS.md, "Inside m3's Table 4").
func WhatIfHPCC(flows int, seed uint64) Spec {
	s := Default()
	s.Name = "whatif-hpcc"
	s.Workload.Flows = flows
	s.Workload.Components[0].Matrix = "C"
	n := &s.Network
	n.CC, n.HPCC.Eta, n.HPCC.WindowBytes, n.HPCC.AIRateBps = "hpcc", 0.9, 20_000, 750_000_000
	n.Buffer.SharedBytes, n.PFC.Enabled = 200_000, true
	s.Seed = seed
	return s
}

// WhatIfHPCCFork is WhatIfHPCC as m3 ran it: the same flows, with HPCC
// under the HPCC ns-3 fork's rules and on its wire (T from the network,
// the queue over the window, 42 B of INT; netcfg.Config.WithForkRules,
// ForkWire), which m3's own ground truth was. The embedded m3 model
// table4-fork answers it; table4-pfc refuses it.
func WhatIfHPCCFork(flows int, seed uint64) Spec {
	s := WhatIfHPCC(flows, seed)
	s.Name = "whatif-hpcc-fork"
	s.Network = s.Network.WithForkRules().ForkWire()
	return s
}

// named maps the names Named accepts to their presets at default sizes.
var named = map[string]func() Spec{
	"default":           Default,
	"cceval-dumbbell":   func() Spec { return CCEvalDumbbell(400, 0.3, "webserver") },
	"pfs-dumbbell":      func() Spec { return PFSDumbbell(8, 50_000, 0.6, 1) },
	"pfs-fabric":        func() Spec { return PFSFabric(50_000, 0.5, 1) },
	"dscale-cenic":      func() Spec { return CENIC(20_000, 0.85, 1) },
	"dscale-hot-fabric": func() Spec { return HotFabric(2, 0.2, 0.7, 40_000_000, 1) },
	"whatif-hpcc":       func() Spec { return WhatIfHPCC(20_000, 1) },
	"whatif-hpcc-fork":  func() Spec { return WhatIfHPCCFork(20_000, 1) },
}

// Named returns the preset called name (see PresetNames) at its default
// size; the CLI's --spec accepts these names beside spec files.
func Named(name string) (Spec, error) {
	f, ok := named[name]
	if !ok {
		return Spec{}, fmt.Errorf("scenario: unknown preset %q (known: %s)", name, strings.Join(PresetNames(), ", "))
	}
	return f(), nil
}

// PresetNames lists the names Named accepts, sorted.
func PresetNames() []string {
	names := make([]string, 0, len(named))
	for n := range named {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
