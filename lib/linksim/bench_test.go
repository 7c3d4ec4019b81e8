package linksim

import (
	"context"
	"testing"

	"github.com/tailscope/tailscope/internal/cputime"
	"github.com/tailscope/tailscope/lib/netcfg"
)

// BenchmarkRun is a busy core channel: 20k flows from 16 sources to 16
// destinations at about 75% of the target's rate, under each congestion
// control. It reports data packets per second of run time, events and
// data packets per CPU second of the process (what to compare on a
// shared machine), and events per data packet (what an event-saving
// change should lower).
func BenchmarkRun(b *testing.B) {
	link := Link{Target: Hop{40 * gbps, 1000}, KBytes: 120_000}
	for range 16 {
		link.Sources = append(link.Sources, Hop{10 * gbps, 1000})
		link.Dests = append(link.Dests, Hop{100 * gbps, 2000})
	}
	flows := randomFlows(20_000, 16, 16, 8000, 1) // mean 30 KB every 8 us: 30 Gbps
	for _, cc := range netcfg.CCs {
		b.Run(cc, func(b *testing.B) {
			cfg := netcfg.Default()
			cfg.CC = cc
			var pkts, events int64
			cpu0 := cputime.Used()
			for i := 0; i < b.N; i++ {
				res, err := Run(context.Background(), link, flows, cfg, Options{Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				pkts += res.DataPackets
				events += res.Events
			}
			cpu := (cputime.Used() - cpu0).Seconds()
			b.ReportMetric(float64(pkts)/b.Elapsed().Seconds(), "packets/s")
			b.ReportMetric(float64(pkts)/cpu, "packets/cpu-s")
			b.ReportMetric(float64(events)/cpu, "events/cpu-s")
			b.ReportMetric(float64(events)/float64(pkts), "events/packet")
		})
	}
}
