package ns3_test

import (
	"context"
	"fmt"
	"log"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/ns3"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// A 100 KB flow and a 1 KB flow sharing a dumbbell's bottleneck in ns-3.
// The first run builds the scenario program (it needs `make ns3`).
func Example() {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 1})
	if err != nil {
		log.Fatal(err)
	}
	flows := []workload.Flow{
		{ID: 0, Src: 0, Dst: 2, Size: 100_000, Start: 0},
		{ID: 1, Src: 1, Dst: 2, Size: 1_000, Start: 20_000},
	}
	recs, err := ns3.Run(context.Background(), net, flows, netcfg.Default(), ns3.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range recs {
		fmt.Printf("flow %d: %d B, FCT %.1f us, slowdown %.2f\n", r.FlowID, r.Size, float64(r.FCT)/1e3, r.Slowdown)
	}
	// Output:
	// flow 0: 100000 B, FCT 90.2 us, slowdown 1.02
	// flow 1: 1000 B, FCT 6.2 us, slowdown 1.12
}
