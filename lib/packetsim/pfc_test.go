package packetsim

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tailscope/tailscope/lib/cc"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// sharedBuffer is netcfg.Default with a shared buffer of b bytes per
// switch, PFC on or off.
func sharedBuffer(b int64, pfc bool) netcfg.Config {
	cfg := netcfg.Default()
	cfg.Buffer.SharedBytes = b
	cfg.PFC.Enabled = pfc
	return cfg
}

// A 16-to-1 incast of 100 KB flows into a dumbbell whose switches have a
// 200 KB shared buffer: with PFC no packet is lost, the left switch
// pauses the senders' NICs (and only channels into a switch are paused);
// without it the bottleneck port drops and the senders recover. Either
// way every byte arrives, and every data packet sent is delivered,
// dropped or a discarded duplicate. For every congestion control.
func TestPFCIncast(t *testing.T) {
	const senders = 16
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: senders, Receivers: 1})
	must(t, net, err)
	var flows []workload.Flow
	var total, pkts int64
	for i := range senders {
		flows = append(flows, workload.Flow{ID: i, Src: i, Dst: senders, Size: 100_000 + int64(i)*333, Start: int64(i)})
		total += flows[i].Size
		pkts += netcfg.Default().Packets(flows[i].Size)
	}
	for _, cc := range netcfg.CCs {
		for _, pfc := range []bool{true, false} {
			cfg := sharedBuffer(200_000, pfc)
			cfg.CC = cc
			res, err := Run(context.Background(), net, flows, cfg, Options{Seed: 1})
			if err != nil {
				t.Fatalf("%s, pfc %v: %v", cc, pfc, err)
			}
			if len(res.Records) != len(flows) || res.DeliveredBytes != total {
				t.Fatalf("%s, pfc %v: %d records, %d bytes delivered of %d", cc, pfc, len(res.Records), res.DeliveredBytes, total)
			}
			if res.DataPackets != pkts+res.Drops+res.Duplicates {
				t.Errorf("%s, pfc %v: %d data packets sent, but %d delivered + %d dropped + %d duplicates", cc, pfc, res.DataPackets, pkts, res.Drops, res.Duplicates)
			}
			var pauses int64
			for c, n := range res.ChannelPauses {
				pauses += n
				if n > 0 && net.IsHost(net.Channels[c].Dst) {
					t.Errorf("%s, pfc %v: channel %d into a host was paused %d times", cc, pfc, c, n)
				}
				if (n > 0) != (res.ChannelPausedNanos[c] > 0) {
					t.Errorf("%s, pfc %v: channel %d: %d pauses but paused for %d ns", cc, pfc, c, n, res.ChannelPausedNanos[c])
				}
			}
			if pauses != res.PauseFrames {
				t.Errorf("%s, pfc %v: %d pauses per channel, %d in all", cc, pfc, pauses, res.PauseFrames)
			}
			if pfc {
				var nics int
				for s := range senders {
					path, err := net.Path(s, s, senders)
					if err != nil {
						t.Fatal(err)
					}
					if res.ChannelPauses[path[0]] > 0 {
						nics++
					}
				}
				if res.Drops != 0 || res.Retransmits != 0 || nics == 0 {
					t.Errorf("%s with PFC: %d drops, %d retransmits; %d of %d sender NICs paused", cc, res.Drops, res.Retransmits, nics, senders)
				}
			} else if res.Drops == 0 || res.Retransmits == 0 || res.PauseFrames != 0 {
				t.Errorf("%s without PFC: %d drops, %d retransmits, %d pauses", cc, res.Drops, res.Retransmits, res.PauseFrames)
			}
			t.Logf("%s, pfc %v: drops %d, pause frames %d, paused %d ns, max slowdown %.1f", cc, pfc, res.Drops, res.PauseFrames, res.PausedNanos, maxSlowdown(res))
		}
	}
}

// Congestion spreading, the classic harm of PFC: 16 senders incast into
// one receiver behind a 200 Gbps bottleneck, so the queue builds only at the
// right switch's port to that receiver; a victim flow from a 17th sender
// to another receiver shares only the bottleneck with them. With PFC the
// right switch pauses the bottleneck (its ingress port holds the
// incast's bytes), the left switch in turn pauses the senders' NICs, and
// the victim, stuck behind the incast's packets at the paused bottleneck
// port, is slowed well beyond its ideal; without PFC the incast loses
// packets at the right switch and the victim runs at nearly line rate.
func TestPFCCongestionSpreading(t *testing.T) {
	const incast = 16
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: incast + 1, Receivers: 2, BottleneckBandwidth: 200 * topo.Gbps})
	must(t, net, err)
	var flows []workload.Flow
	for i := range incast {
		flows = append(flows, workload.Flow{ID: i, Src: i, Dst: incast + 1, Size: 200_000})
	}
	victim := workload.Flow{ID: incast, Src: incast, Dst: incast + 2, Size: 200_000, Start: 1_000}
	flows = append(flows, victim)
	bottleneck := 2 * (len(net.Links) - 1) // left to right switch
	if c := net.Channels[bottleneck]; net.IsHost(c.Src) || net.IsHost(c.Dst) {
		t.Fatalf("channel %d is not the bottleneck", bottleneck)
	}
	slowdown := map[bool]float64{}
	for _, pfc := range []bool{true, false} {
		res, err := Run(context.Background(), net, flows, sharedBuffer(200_000, pfc), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Records) != len(flows) {
			t.Fatalf("pfc %v: %d records of %d", pfc, len(res.Records), len(flows))
		}
		slowdown[pfc] = res.Records[incast].Slowdown
		// Channel 2i is host i's NIC (the dumbbell's links start at the hosts).
		var nics int64
		for i := range incast + 1 {
			nics += res.ChannelPauses[2*i]
		}
		if pfc && (res.ChannelPauses[bottleneck] == 0 || nics == 0 || res.Drops != 0) {
			t.Errorf("with PFC: the bottleneck was paused %d times, the senders' NICs %d times; %d drops", res.ChannelPauses[bottleneck], nics, res.Drops)
		}
		if !pfc && res.Drops == 0 {
			t.Errorf("without PFC the incast lost no packet")
		}
		t.Logf("pfc %v: victim slowdown %.2f; bottleneck paused %d times for %d ns, sender NICs %d times; %d drops", pfc, slowdown[pfc], res.ChannelPauses[bottleneck], res.ChannelPausedNanos[bottleneck], nics, res.Drops)
	}
	if slowdown[false] > 1.1 || slowdown[true] < 1.5*slowdown[false] {
		t.Errorf("victim slowdown %.2f with PFC, %.2f without: want it near 1 without and at least 1.5 times that with", slowdown[true], slowdown[false])
	}
}

// The per-channel frame of a PFC run (frame.ChannelStatsTable), written
// and read back, holds the pause counts and times of Result, channel by
// channel.
func TestChannelsTable(t *testing.T) {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 8, Receivers: 1})
	must(t, net, err)
	var flows []workload.Flow
	for i := range 8 {
		flows = append(flows, workload.Flow{ID: i, Src: i, Dst: 8, Size: 100_000})
	}
	cfg := sharedBuffer(100_000, true)
	cfg.CC = "dcqcn"
	res, err := Run(context.Background(), net, flows, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.PauseFrames == 0 {
		t.Fatal("no pause: the test shows nothing")
	}
	path := filepath.Join(t.TempDir(), "channels.parquet")
	tab, err := frame.ChannelStatsTable(frame.ChannelStats{
		Packets: res.ChannelPackets, WireBytes: res.ChannelBytes, QueueNs: res.ChannelQueueNanos,
		Drops: res.ChannelDrops, PauseFrames: res.ChannelPauses, PausedNs: res.ChannelPausedNanos,
	}, frame.Meta{Estimator: Name})
	if err != nil {
		t.Fatal(err)
	}
	if err := frame.WriteTable(path, tab); err != nil {
		t.Fatal(err)
	}
	tab, err = frame.ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		want []int64
	}{{frame.ColPauseFrames, res.ChannelPauses}, {frame.ColPausedNs, res.ChannelPausedNanos}, {frame.ColDrops, res.ChannelDrops}, {frame.ColPackets, res.ChannelPackets}} {
		got, err := tab.Int64s(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("column %s: %v, want %v", c.name, got, c.want)
		}
	}
}

// PFC alone throttles a sender that never slows down (a CC fixed at line
// rate) to its bottleneck: a 10 Gbps host sending 2 MB through a 1 Gbps
// bottleneck loses nothing, finishes at its ideal FCT (the bottleneck's
// serialization) within 1%, and its NIC spends the time it is not
// sending, 1 - 1/10 of the run, paused. Without PFC the same sender
// overflows the buffer and pays for the losses.
func TestPFCThrottlesToBottleneck(t *testing.T) {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 1, Receivers: 1, BottleneckBandwidth: topo.Gbps})
	must(t, net, err)
	flows := []workload.Flow{{ID: 0, Src: 0, Dst: 1, Size: 2_000_000}}
	greedy := func(cfg netcfg.Config, line int64) cc.CC { return &echoRecorder{line: float64(line)} }
	for _, pfc := range []bool{true, false} {
		res, err := Run(context.Background(), net, flows, sharedBuffer(100_000, pfc), Options{CC: greedy})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Records) != 1 {
			t.Fatalf("pfc %v: %d records", pfc, len(res.Records))
		}
		r := res.Records[0]
		paused := float64(res.ChannelPausedNanos[0]) / float64(r.FCT) // channel 0: the sender's NIC
		t.Logf("pfc %v: slowdown %.4f, NIC paused %.3f of the FCT, %d pause frames, %d drops", pfc, r.Slowdown, paused, res.PauseFrames, res.Drops)
		if !pfc {
			if res.Drops == 0 || r.Slowdown < 1.1 {
				t.Errorf("without PFC: %d drops, slowdown %.3f", res.Drops, r.Slowdown)
			}
			continue
		}
		if res.Drops != 0 || r.Slowdown > 1.01 || math.Abs(paused-0.9) > 0.02 {
			t.Errorf("with PFC: %d drops, slowdown %.4f (want <= 1.01), NIC paused %.3f of the FCT (want 0.90)", res.Drops, r.Slowdown, paused)
		}
	}
}
