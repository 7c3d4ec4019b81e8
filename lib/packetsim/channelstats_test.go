package packetsim

import (
	"math"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Two one-packet flows from two senders reach the dumbbell's left switch
// at the same instant: the second waits one serialization (1048 B at 10
// Gbps, 838.4 ns) at the bottleneck port, and nowhere else does a packet
// wait. Every packet is counted once per channel it crosses.
func TestChannelQueueDelay(t *testing.T) {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 2})
	must(t, net, err)
	flows := []workload.Flow{{ID: 0, Src: 0, Dst: 2, Size: 1000}, {ID: 1, Src: 1, Dst: 3, Size: 1000}}
	res, err := Run(net, flows, netcfg.Default(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	bottleneck := 2 * (len(net.Links) - 1)
	var total float64
	var packets int64
	for c, q := range res.ChannelQueueNanos {
		total += q
		packets += res.ChannelPackets[c]
		if c != bottleneck && q != 0 {
			t.Errorf("channel %d: packets waited %.1f ns", c, q)
		}
	}
	if math.Abs(res.ChannelQueueNanos[bottleneck]-838.4) > 1e-9 || math.Abs(total-838.4) > 1e-9 {
		t.Errorf("bottleneck wait %.3f ns (all channels %.3f), want 838.4", res.ChannelQueueNanos[bottleneck], total)
	}
	if res.ChannelPackets[bottleneck] != 2 || packets != res.PacketHops {
		t.Errorf("bottleneck carried %d packets (want 2); %d per-channel packets vs %d packet hops", res.ChannelPackets[bottleneck], packets, res.PacketHops)
	}
}

// Drops are counted at the port that dropped them: an incast into a small
// buffer drops only at the switch port toward the receiver.
func TestChannelDrops(t *testing.T) {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 8, Receivers: 1, BottleneckBandwidth: 80 * topo.Gbps})
	must(t, net, err)
	cfg := netcfg.Default()
	cfg.BufferBytes = 20_000
	var flows []workload.Flow
	for i := 0; i < 8; i++ {
		flows = append(flows, workload.Flow{ID: i, Src: i, Dst: 8, Size: 100_000, Start: int64(i)})
	}
	res, err := Run(net, flows, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	down := 2*8 + 1 // link 8 joins the receiver to the right switch; its B->A channel leads to the host
	if net.Channels[down].Dst != 8 {
		t.Fatalf("channel %d leads to node %d, not the receiver", down, net.Channels[down].Dst)
	}
	if res.Drops == 0 || res.ChannelDrops[down] != res.Drops {
		t.Errorf("%d drops, %d of them at the receiver's port", res.Drops, res.ChannelDrops[down])
	}
}
