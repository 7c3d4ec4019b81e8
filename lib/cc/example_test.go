package cc_test

import (
	"fmt"

	"github.com/tailscope/tailscope/lib/cc"
	"github.com/tailscope/tailscope/lib/netcfg"
)

// A controller driven by hand, as a simulator drives it: rate-based DCTCP
// on a 10 Gbps NIC cuts its rate by alpha/2 (alpha starts at 1) at the
// first ECN echo and holds further cuts for a window.
func ExampleByName() {
	newCC, err := cc.ByName("dctcp")
	if err != nil {
		fmt.Println(err)
		return
	}
	c := newCC(netcfg.Default(), 10e9)
	fmt.Printf("start: %.1f Gbps\n", c.RateBps()/1e9)
	c.OnAck(cc.Ack{Now: 1_000_000, Acked: 1000, AckSeq: 1000, NextSeq: 10_000, ECE: true})
	fmt.Printf("after an echo: %.1f Gbps\n", c.RateBps()/1e9)
	c.OnAck(cc.Ack{Now: 2_000_000, Acked: 1000, AckSeq: 2000, NextSeq: 11_000, ECE: true})
	fmt.Printf("another echo within the window: %.1f Gbps\n", c.RateBps()/1e9)
	_, err = cc.ByName("cubic")
	fmt.Println(err)
	// Output:
	// start: 10.0 Gbps
	// after an echo: 5.0 Gbps
	// another echo within the window: 5.0 Gbps
	// cc: unknown congestion control "cubic" (known: dctcp, dctcp-window, dcqcn, timely, hpcc)
}
