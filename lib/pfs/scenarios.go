package pfs

import (
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// DumbbellScenario is the pfs paper's simple configuration (§IV-A, Fig. 2,
// extended to eight source-destination pairs as in §IV-C/D): senders
// 0..pairs-1 each send to their own receiver across one shared 10 Gbps
// bottleneck, flow sizes Pareto with offset 10 KB and alpha 1.2 (mean 60
// KB), Poisson arrivals. The paper modulates the number of active sources
// over time; here the load is stationary at maxLoad of the bottleneck.
func DumbbellScenario(pairs, flows int, maxLoad float64, seed uint64) scenario.Spec {
	var ps [][2]int
	for i := 0; i < pairs; i++ {
		ps = append(ps, [2]int{i, pairs + i})
	}
	return scenario.Spec{
		Name:     "pfs-dumbbell",
		Topology: scenario.Topology{Dumbbell: &topo.DumbbellSpec{Senders: pairs, Receivers: pairs}},
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

// FabricScenario is the fabric counterpart: the 32-rack 2:1 Meta fabric
// with matrix B, CacheFollower sizes and bursty log-normal arrivals (sigma
// 2) at maxLoad, the kind of scenario tailscope's users estimate tails on.
func FabricScenario(flows int, maxLoad float64, seed uint64) scenario.Spec {
	s := scenario.Default()
	s.Name = "pfs-fabric"
	s.Workload.Flows = flows
	s.Workload.Components[0].Sizes = workload.SizeSpec{Dist: "cachefollower"}
	s.Workload.Components[0].MaxLoad = maxLoad
	s.Seed = seed
	return s
}
