package packetsim

import (
	"context"
	"fmt"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// fabricScenario is the 256-host 2:1 fabric with n WebServer flows on
// matrix A at 50% max load, log-normal arrivals (sigma 1), seed 1.
func fabricScenario(t testing.TB, n int) (*topo.Network, []workload.Flow) {
	return presetScenario(t, "meta32-2:1", "A", 1, n)
}

// presetScenario is a fabric preset with n WebServer flows on a matrix at
// 50% max load, log-normal arrivals of the given sigma, seed 1.
func presetScenario(t testing.TB, preset, matrix string, sigma float64, n int) (*topo.Network, []workload.Flow) {
	t.Helper()
	net := fabric(t, preset)
	flows, err := workload.Generate(net, workload.Spec{
		Flows: n,
		Components: []workload.Component{{
			Matrix:  matrix,
			Sizes:   workload.SizeSpec{Dist: "webserver"},
			Arrival: workload.Arrival{Process: "lognormal", Sigma: sigma},
			MaxLoad: 0.5,
		}},
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return net, flows
}

// Conservation on a full fabric run: every flow finishes exactly once,
// every payload byte is delivered once, every data packet and ACK crosses
// exactly the channels of its route (so each channel's byte count equals
// what the routes predict), and no flow beats its ideal FCT (the fabric's
// slowest links are the first and last hops).
func TestFabricConservation(t *testing.T) {
	n := 100_000
	if testing.Short() {
		n = 10_000
	}
	net, flows := fabricScenario(t, n)
	checkConservation(t, net, flows, netcfg.Default(), Options{Seed: 1})
}

// Conservation holds for every congestion control, on 5,000 flows of the
// same fabric.
func TestFabricConservationEveryCC(t *testing.T) {
	net, flows := fabricScenario(t, 5_000)
	for _, cc := range netcfg.CCs {
		t.Run(cc, func(t *testing.T) {
			cfg := netcfg.Default()
			cfg.CC = cc
			checkConservation(t, net, flows, cfg, Options{Seed: 1})
		})
	}
}

// Conservation holds with a 200 KB shared buffer per switch for every
// congestion control: with PFC nothing is lost, so every law holds as
// with infinite buffers; without it packets are dropped and resent, yet
// every flow finishes once with every byte delivered once, and every data
// packet sent is delivered, dropped or discarded as a duplicate.
func TestFabricConservationSharedBuffer(t *testing.T) {
	net, flows := fabricScenario(t, 5_000)
	for _, cc := range netcfg.CCs {
		for _, pfc := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/pfc=%v", cc, pfc), func(t *testing.T) {
				cfg := sharedBuffer(200_000, pfc)
				cfg.CC = cc
				res := checkConservation(t, net, flows, cfg, Options{Seed: 1})
				t.Logf("%d drops, %d pause frames", res.Drops, res.PauseFrames)
			})
		}
	}
}

// checkConservation runs flows on net and checks TestFabricConservation's
// laws; when cfg may drop packets (a finite buffer without PFC), those
// that count packets and bytes on channels are replaced by the one above.
func checkConservation(t *testing.T, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, opts Options) *Result {
	t.Helper()
	lossy := (cfg.BufferBytes > 0 || cfg.SharedBuffer()) && !cfg.PFC.Enabled
	res, err := Run(context.Background(), net, flows, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != len(flows) || len(res.Unfinished) != 0 {
		t.Fatalf("%d flows, %d records, %d unfinished", len(flows), len(res.Records), len(res.Unfinished))
	}
	var bytes, pkts int64
	wantCh := make([]int64, len(net.Channels))
	for i, r := range res.Records {
		f := flows[i]
		if r.FlowID != f.ID || r.Src != f.Src || r.Dst != f.Dst || r.Size != f.Size || r.Start != f.Start {
			t.Fatalf("record %d %+v does not match flow %+v", i, r, f)
		}
		if r.FCT < r.Ideal {
			t.Errorf("flow %d: FCT %d ns below its ideal %d ns", f.ID, r.FCT, r.Ideal)
		}
		bytes += f.Size
		np := cfg.Packets(f.Size)
		pkts += np
		path, err := net.Path(f.ID, f.Src, f.Dst)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range path {
			wantCh[c] += cfg.WireBytes(f.Size)
			wantCh[c^1] += np * cfg.AckBytes
		}
	}
	if res.DeliveredBytes != bytes {
		t.Errorf("delivered %d payload bytes, flows hold %d", res.DeliveredBytes, bytes)
	}
	if lossy {
		if res.DataPackets != pkts+res.Drops-res.AckDrops+res.Duplicates {
			t.Errorf("%d data packets sent, but %d delivered + %d dropped + %d duplicates", res.DataPackets, pkts, res.Drops-res.AckDrops, res.Duplicates)
		}
		return res
	}
	if res.DataPackets != pkts || res.AckPackets != pkts {
		t.Errorf("sent %d data packets and %d ACKs, flows need %d of each", res.DataPackets, res.AckPackets, pkts)
	}
	if res.Drops != 0 || res.Retransmits != 0 || res.Duplicates != 0 {
		t.Errorf("infinite buffers, yet %d drops, %d retransmits, %d duplicates", res.Drops, res.Retransmits, res.Duplicates)
	}
	for c := range wantCh {
		if res.ChannelBytes[c] != wantCh[c] {
			t.Errorf("channel %d carried %d bytes, routes predict %d", c, res.ChannelBytes[c], wantCh[c])
		}
	}
	t.Logf("%d flows, %d events, %d packet-hops, %d marks, %.3f s simulated", len(flows), res.Events, res.PacketHops, res.Marks, float64(res.EndNanos)/1e9)
	return res
}
