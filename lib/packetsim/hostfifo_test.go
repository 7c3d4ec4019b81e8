package packetsim

import (
	"context"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// A one-packet flow starting 1 ns after a ten-packet flow on the same
// host: under a FIFO host NIC (host_nic "fifo", or the option HostFIFO) the first flow's whole initial window is already in
// the NIC queue, so the small flow waits for all ten packets; with the
// round-robin NIC it waits only for the packet in transmission (and the
// long flow loses one packet time to it). Behind
// the NIC both packets stream at the same rate, so nothing else queues.
func TestHostFIFO(t *testing.T) {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 1, Receivers: 1})
	must(t, net, err)
	cfg := netcfg.Default()
	cfg.CC = "dctcp-window"
	flows := []workload.Flow{
		{ID: 0, Src: 0, Dst: 1, Size: 10 * cfg.PayloadBytes, Start: 0},
		{ID: 1, Src: 0, Dst: 1, Size: cfg.PayloadBytes, Start: 1},
	}
	txNs := float64(cfg.PayloadBytes+cfg.HeaderBytes) * 8 / 10 // one packet at 10 Gbps
	// The network's host_nic and the older option say the same.
	for _, c := range []struct {
		name       string
		nic        string
		option     bool
		wait, lost float64 // ns the small flow waits at its NIC, ns the long flow loses to it
	}{
		{"round-robin (default)", "", false, txNs - 1, txNs},
		{"host_nic fifo", netcfg.HostNICFIFO, false, 10*txNs - 1, 0},
		{"option host_fifo", "", true, 10*txNs - 1, 0},
		{"both", netcfg.HostNICFIFO, true, 10*txNs - 1, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := cfg
			cfg.HostNIC = c.nic
			res, err := Run(context.Background(), net, flows, cfg, Options{HostFIFO: c.option})
			if err != nil {
				t.Fatal(err)
			}
			r := res.Records[1]
			if got, want := float64(r.FCT), float64(r.Ideal)+c.wait; got < want-1 || got > want+1 {
				t.Errorf("small flow FCT %.0f ns, want ideal %d + wait %.1f = %.1f ns", got, r.Ideal, c.wait, want)
			}
			l := res.Records[0]
			if got, want := float64(l.FCT), float64(l.Ideal)+c.lost; got < want-1 || got > want+1 {
				t.Errorf("long flow FCT %.0f ns, want ideal %d + %.1f = %.1f ns", got, l.Ideal, c.lost, want)
			}
		})
	}
}
