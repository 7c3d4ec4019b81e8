package netcfg_test

import (
	"fmt"

	"github.com/tailscope/tailscope/lib/netcfg"
)

// The papers' network model, and what it implies for a 10 kB flow and a
// 40 Gbps port.
func ExampleDefault() {
	c := netcfg.Default()
	fmt.Println(c.CC, c.Packets(10_000), "packets,", c.WireBytes(10_000), "bytes on the wire")
	fmt.Println("K at 40G:", c.KBytesFor(40e9), "bytes")
	fmt.Println(netcfg.NS3().CC, "in ns-3")
	// Output:
	// dctcp 10 packets, 10480 bytes on the wire
	// K at 40G: 120000 bytes
	// dctcp-window in ns-3
}

// A named configuration, changed by one field's JSON path, as a what-if
// sweep changes it.
func ExamplePreset() {
	c, err := netcfg.Preset("hpcc")
	if err != nil {
		panic(err)
	}
	c, err = c.Set("hpcc.window_bytes", []byte("20000"))
	if err != nil {
		panic(err)
	}
	fmt.Println(c.CC, c.HPCC.Eta, c.HPCC.WindowBytes)
	fmt.Println(netcfg.Presets())
	// Output:
	// hpcc 0.95 20000
	// [dcqcn dctcp fork-dcqcn fork-dctcp fork-hpcc fork-timely hpcc ns3 timely]
}
