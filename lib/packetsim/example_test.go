package packetsim_test

import (
	"context"
	"fmt"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Two 1 MB flows share a dumbbell's 10G bottleneck under the papers'
// DCTCP: each takes about twice its ideal FCT, the time for both flows'
// 2 x 1048 x 1000 wire bytes to cross one 10G link (1.677 ms).
func ExampleRun() {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 2})
	if err != nil {
		panic(err)
	}
	flows := []workload.Flow{
		{ID: 0, Src: 0, Dst: 2, Size: 1_000_000, Start: 0},
		{ID: 1, Src: 1, Dst: 3, Size: 1_000_000, Start: 0},
	}
	res, err := packetsim.Run(context.Background(), net, flows, netcfg.Default(), packetsim.Options{})
	if err != nil {
		panic(err)
	}
	for _, r := range res.Records {
		fmt.Printf("flow %d: FCT %d ns, ideal %d ns, slowdown %.2f\n", r.FlowID, r.FCT, r.Ideal, r.Slowdown)
	}
	fmt.Println("delivered bytes:", res.DeliveredBytes)
	// Output:
	// flow 0: FCT 1680638 ns, ideal 843077 ns, slowdown 1.99
	// flow 1: FCT 1681477 ns, ideal 843077 ns, slowdown 1.99
	// delivered bytes: 2000000
}

// A generated workload streams through the simulation: flows are drawn
// as the simulation reaches them and each record is handed over, in flow
// order, once its flow and all before it have finished (here to a
// counter; the command line hands them to a frame.RecordWriter). Only
// the flows in flight are held.
func ExampleStream() {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 4, Receivers: 4})
	if err != nil {
		panic(err)
	}
	spec := workload.Spec{Flows: 5000, Components: []workload.Component{{
		Pairs: [][2]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}}, Sizes: workload.SizeSpec{Dist: "webserver"},
		Arrival: workload.Arrival{Process: "poisson"}, MaxLoad: 0.5,
	}}}
	src, err := workload.NewSource(net, spec, 1)
	if err != nil {
		panic(err)
	}
	n, next := 0, 0
	res, err := packetsim.Stream(context.Background(), net, src, netcfg.Default(), packetsim.Options{}, func(r metrics.Record) error {
		if r.FlowID != next {
			return fmt.Errorf("record of flow %d, expected %d", r.FlowID, next)
		}
		n, next = n+1, next+1
		return nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d records in flow order; at most %d flows held at once\n", n, res.PeakFlows)
	// Output:
	// 5000 records in flow order; at most 10 flows held at once
}

// The network block's cc picks the congestion control, with its
// parameters in the block of its name: here the same two 1 MB flows as in
// ExampleRun under each algorithm, HPCC aiming at 90% of the bottleneck.
// TIMELY's first gradient cuts take both flows near its rate floor, from
// which it climbs by 10 Mbps per 16 KB completion event.
func ExampleRun_congestionControl() {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 2})
	if err != nil {
		panic(err)
	}
	flows := []workload.Flow{
		{ID: 0, Src: 0, Dst: 2, Size: 1_000_000, Start: 0},
		{ID: 1, Src: 1, Dst: 3, Size: 1_000_000, Start: 0},
	}
	for _, cc := range []string{"dctcp", "dcqcn", "timely", "hpcc"} {
		cfg := netcfg.Default()
		cfg.CC = cc
		cfg.HPCC.Eta = 0.9
		res, err := packetsim.Run(context.Background(), net, flows, cfg, packetsim.Options{Seed: 1})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-6s slowdowns %.2f %.2f, %d marks\n", cc, res.Records[0].Slowdown, res.Records[1].Slowdown, res.Marks)
	}
	// Output:
	// dctcp  slowdowns 1.99 1.99, 0 marks
	// dcqcn  slowdowns 1.97 2.18, 89 marks
	// timely slowdowns 23.98 24.90, 273 marks
	// hpcc   slowdowns 1.98 2.24, 0 marks
}

// Workers splits one run among cores: on the 256-host fabric, two
// workers (a pod each) give the records of one, bit for bit.
func ExampleOptions_workers() {
	spec, err := topo.Preset("meta32-2:1")
	if err != nil {
		panic(err)
	}
	net, err := topo.Fabric(spec)
	if err != nil {
		panic(err)
	}
	flows, err := workload.Generate(net, workload.Spec{
		Flows: 500,
		Components: []workload.Component{{
			Matrix: "A", Sizes: workload.SizeSpec{Dist: "webserver"},
			Arrival: workload.Arrival{Process: "poisson"}, MaxLoad: 0.5,
		}},
	}, 1)
	if err != nil {
		panic(err)
	}
	one, err := packetsim.Run(context.Background(), net, flows, netcfg.Default(), packetsim.Options{})
	if err != nil {
		panic(err)
	}
	two, err := packetsim.Run(context.Background(), net, flows, netcfg.Default(), packetsim.Options{Workers: 2})
	if err != nil {
		panic(err)
	}
	same := len(one.Records) == len(two.Records)
	for i := range one.Records {
		same = same && one.Records[i] == two.Records[i]
	}
	p := two.Parallel
	fmt.Printf("%d records, the same: %v; %d partitions, %.0f ns windows\n", len(two.Records), same, p.Partitions, p.LookaheadNanos)
	// Output:
	// 500 records, the same: true; 2 partitions, 1000 ns windows
}
