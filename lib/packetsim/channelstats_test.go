package packetsim

import (
	"context"
	"math"
	"strings"
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
	res, err := Run(context.Background(), net, flows, netcfg.Default(), Options{})
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
	res, err := Run(context.Background(), net, flows, cfg, Options{})
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

// Pinned paths override routing: on a diamond a flow takes the branch it
// is given, and a path that breaks off or misses the destination is an
// error naming the flow.
func TestPinnedPaths(t *testing.T) {
	nodes := []topo.Node{{ID: 0, Kind: topo.Host}, {ID: 1, Kind: topo.Switch}, {ID: 2, Kind: topo.Switch},
		{ID: 3, Kind: topo.Switch}, {ID: 4, Kind: topo.Switch}, {ID: 5, Kind: topo.Host}}
	var links []topo.Link
	for _, l := range [][2]int{{0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 5}} {
		links = append(links, topo.Link{A: l[0], B: l[1], Bandwidth: 10 * topo.Gbps, Delay: 1000})
	}
	net, err := topo.New("diamond", nodes, links)
	must(t, net, err)
	flows := []workload.Flow{{ID: 7, Src: 0, Dst: 5, Size: 5000}}
	for _, branch := range [][]int{{0, 2, 6, 10}, {0, 4, 8, 10}} {
		res, err := Run(context.Background(), net, flows, netcfg.Default(), Options{Paths: [][]int{branch}})
		if err != nil {
			t.Fatal(err)
		}
		for c, b := range res.ChannelBytes {
			on := c%2 == 0 && (c == branch[1] || c == branch[2] || c == 0 || c == 10)
			if (b > 0 && c%2 == 0) != on {
				t.Errorf("branch %v: channel %d carried %d bytes", branch, c, b)
			}
		}
	}
	for _, bad := range [][]int{{0, 6, 10}, {0, 2, 6}, {}} {
		if _, err := Run(context.Background(), net, flows, netcfg.Default(), Options{Paths: [][]int{bad}}); err == nil || !strings.Contains(err.Error(), "flow 7") {
			t.Errorf("path %v: error %v, want one naming flow 7", bad, err)
		}
	}
}
