package dscale

import (
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// CENICScenario is DSCALE's backbone experiment (§IV-C, V-B) on the
// CENIC-like topology: every host pair a flow group (600 groups), Poisson
// flow arrivals, Pareto sizes with a mean of 12 packets and shape 1.2,
// 400-packet buffers. The paper's congested links are HPR-DC
// interconnects; here those run at 40% of the 1 Gbps backbone so that
// they are the busiest, and the arrival rate puts the busiest channel at
// maxLoad. TCP is window-based DCTCP (self-clocked, as the paper's TCP)
// with a 50 ms minimum RTO.
func CENICScenario(flows int, maxLoad float64, seed uint64) scenario.Spec {
	cfg := netcfg.Default()
	cfg.CC = "dctcp-window"
	cfg.BufferBytes = 400 * (cfg.PayloadBytes + cfg.HeaderBytes)
	cfg.DCTCP.MinRTONanos = 50_000_000 // above the backbone's RTTs, as a WAN TCP's
	cfg.KBytes = 100_000               // mark late, like RED's lower threshold: queues build as in the paper's runs
	return scenario.Spec{
		Name:     "dscale-cenic",
		Topology: scenario.Topology{CENIC: &topo.CENICSpec{BackboneBandwidth: topo.Gbps, InterconnectBandwidth: 400_000_000, AccessBandwidth: topo.Gbps}},
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

// HotFabricScenario is a fabric with a few hot links: the 32-rack 2:1
// Meta fabric under light all-to-all WebServer traffic (background
// maxLoad of the busiest channel), plus traffic from the hosts of other
// racks into hot hosts (the first host of the first hot racks), log-normal
// sizes of mean 20 KB, that loads their downlinks to hotLoad. It runs for
// durationNs with Poisson arrivals, window-based DCTCP and 200 KB port
// buffers.
func HotFabricScenario(hot int, background, hotLoad float64, durationNs int64, seed uint64) scenario.Spec {
	s := scenario.Default()
	s.Name = "dscale-hot-fabric"
	s.Network.CC = "dctcp-window"
	s.Network.BufferBytes = 200_000
	net, err := topo.Preset(s.Topology.Preset)
	if err != nil {
		panic(err) // the default preset exists
	}
	var pairs [][2]int
	hosts := net.Pods * net.RacksPerPod * net.HostsPerRack
	for h := 0; h < hot; h++ {
		dst := h * net.HostsPerRack
		for src := 0; src < hosts; src++ {
			if src/net.HostsPerRack != dst/net.HostsPerRack {
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
