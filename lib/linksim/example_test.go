package linksim_test

import (
	"context"
	"fmt"

	"github.com/tailscope/tailscope/lib/linksim"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/workload"
)

// Two 1 MB flows from two hosts meet at a 10G switch-to-host channel (a
// Parsimon downlink): DCTCP shares the target between them, so they finish
// within 1.59-1.68 ms, about twice the 0.84 ms each would take alone. The
// target never idles once the first packet reaches it (838 ns + 1 us), so
// the later flow ends when both flows' 2 x 1048 x 1000 wire bytes have
// crossed it (1.677 ms) and its 1 us delay: 1679638 ns.
func ExampleRun() {
	link := linksim.Link{
		Target:  linksim.Hop{Bandwidth: 10_000_000_000, Delay: 1000},
		KBytes:  30_000,
		Sources: []linksim.Hop{{Bandwidth: 10_000_000_000, Delay: 1000}, {Bandwidth: 10_000_000_000, Delay: 3000}},
	}
	flows := []workload.Flow{
		{ID: 0, Src: 0, Size: 1_000_000, Start: 0},
		{ID: 1, Src: 1, Size: 1_000_000, Start: 0},
	}
	res, err := linksim.Run(context.Background(), link, flows, netcfg.Default(), linksim.Options{})
	if err != nil {
		panic(err)
	}
	for i, fct := range res.FCT {
		fmt.Printf("flow %d: FCT %d ns\n", i, fct)
	}
	fmt.Println("delivered bytes:", res.DeliveredBytes)
	// Output:
	// flow 0: FCT 1586576 ns
	// flow 1: FCT 1679638 ns
	// delivered bytes: 2000000
}
