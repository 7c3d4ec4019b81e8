package m3_test

import (
	"context"
	"fmt"

	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Estimate the slowdown distribution of a small dumbbell's flows from 100
// sampled paths. Without a model (nil) the estimate is flowSim's; with
// m3.DefaultModel() it is corrected towards packet-level behaviour.
func ExampleRun() {
	net, _ := topo.Dumbbell(topo.DumbbellSpec{Senders: 4, Receivers: 4})
	flows, _ := workload.Generate(net, workload.Spec{Flows: 2000, Components: []workload.Component{{
		Pairs:   [][2]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {0, 5}},
		Sizes:   workload.SizeSpec{Dist: "webserver"},
		Arrival: workload.Arrival{Sigma: 1},
		MaxLoad: 0.5,
	}}}, 1)
	est, err := m3.Run(context.Background(), net, flows, netcfg.Default(), m3.Options{Samples: 100, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d paths, %d simulated\n", est.Paths, est.Simulated)
	for b, label := range []string{"<=1KB", "1KB-10KB", "10KB-50KB", ">50KB"} {
		fmt.Printf("%-9s %4d flows, p99 slowdown %.2f\n", label, est.Dist.Flows[b], est.Dist.Buckets[b][98])
	}
	fmt.Printf("all flows p99 slowdown %.2f\n", est.Dist.Overall[98])
	// Output:
	// 5 paths, 5 simulated
	// <=1KB      689 flows, p99 slowdown 1.55
	// 1KB-10KB   908 flows, p99 slowdown 3.22
	// 10KB-50KB  202 flows, p99 slowdown 4.46
	// >50KB      201 flows, p99 slowdown 4.64
	// all flows p99 slowdown 3.77
}
