package flowsim_test

import (
	"context"
	"fmt"

	"github.com/tailscope/tailscope/lib/flowsim"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Two 100 KB flows from different senders share a dumbbell's 10G
// bottleneck. Each puts 838,400 bits on the wire (headers included), 83.84
// us alone at 10 Gbps. Flow 0 runs alone for 20 us, then both get 5 Gbps
// until flow 0 is done at 147.68 us; flow 1 finishes its last 200,000 bits
// alone by 167.68 us. Both took 147.68 us, 63.84 us more than alone, on
// top of their ideal FCT. Flow 2 runs the other way, shares nothing and
// finishes in its ideal time.
func ExampleRun() {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 2})
	if err != nil {
		panic(err)
	}
	flows := []workload.Flow{
		{ID: 0, Src: 0, Dst: 2, Size: 100_000, Start: 0},
		{ID: 1, Src: 1, Dst: 3, Size: 100_000, Start: 20_000},
		{ID: 2, Src: 3, Dst: 1, Size: 100_000, Start: 20_000},
	}
	recs, err := flowsim.Run(context.Background(), net, flows, netcfg.Default(), flowsim.Options{})
	if err != nil {
		panic(err)
	}
	for _, r := range recs {
		fmt.Printf("flow %d: FCT %.2f us, ideal %.2f us, slowdown %.2f\n", r.FlowID, float64(r.FCT)/1e3, float64(r.Ideal)/1e3, r.Slowdown)
	}
	// Output:
	// flow 0: FCT 152.36 us, ideal 88.52 us, slowdown 1.72
	// flow 1: FCT 152.36 us, ideal 88.52 us, slowdown 1.72
	// flow 2: FCT 88.52 us, ideal 88.52 us, slowdown 1.00
}
