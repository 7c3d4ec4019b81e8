package parsimon_test

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Estimate the FCTs of a small workload on a dumbbell, then query the
// delay network for a flow that was never simulated.
func ExampleRun() {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 2})
	if err != nil {
		log.Fatal(err)
	}
	flows, err := workload.Generate(net, workload.Spec{Flows: 500, Components: []workload.Component{{
		Pairs: [][2]int{{0, 2}, {1, 3}}, Sizes: workload.SizeSpec{Dist: "webserver"},
		Arrival: workload.Arrival{Process: "poisson"}, MaxLoad: 0.5,
	}}}, 1)
	if err != nil {
		log.Fatal(err)
	}
	res, err := parsimon.Run(context.Background(), net, flows, netcfg.Default(), parsimon.Options{Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d estimates, %d link simulations:", len(res.Records), res.Simulated)
	for _, c := range res.Channels {
		if c.Flows > 0 {
			fmt.Printf(" %v", c.Kind)
		}
	}
	fmt.Println()
	// A 10 KB flow from host 0 to host 3, which the workload never had.
	est, err := res.Net.Estimate(10_000, 0, 3, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("estimate no faster than ideal:", est.FCT >= est.Ideal)
	// Output:
	// 500 estimates, 5 link simulations: uplink uplink downlink downlink core
	// estimate no faster than ideal: true
}
