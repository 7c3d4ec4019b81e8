package whatif_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/whatif"
	"github.com/tailscope/tailscope/lib/workload"
)

// HPCC's initial window swept on a small dumbbell, as m3's Fig. 13 sweeps
// it on a fabric: packetsim answers every value, m3's DCTCP model refuses
// HPCC.
func ExampleRun() {
	spec := scenario.Default()
	spec.Topology = scenario.Topology{Dumbbell: &topo.DumbbellSpec{Senders: 2, Receivers: 2}}
	spec.Workload = workload.Spec{Flows: 200, Components: []workload.Component{{
		Pairs: [][2]int{{0, 2}, {1, 3}}, Sizes: workload.SizeSpec{Dist: "webserver"},
		Arrival: workload.Arrival{Process: "poisson"}, MaxLoad: 0.5,
	}}}
	spec.Network, _ = netcfg.Preset("hpcc")
	dir, err := os.MkdirTemp("", "whatif")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	res, err := whatif.Run(context.Background(), whatif.Options{Spec: spec, Param: "hpcc.window_bytes",
		Values: []string{"10000", "30000"}, Estimators: []string{"packetsim", "m3"}, Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(res.Points), "points for", res.Classes)
	for _, r := range res.Refusals {
		fmt.Println(r.Estimator, "refuses", r.Value)
	}
	// Output:
	// 10 points for [<=1KB 1KB-10KB 10KB-100KB >100KB all]
	// m3 refuses 10000
	// m3 refuses 30000
}
