package packetsim

import (
	"testing"

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
			res, err := Run(net, flows, cfg, Options{Seed: 1})
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
