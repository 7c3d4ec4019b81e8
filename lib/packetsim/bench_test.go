//go:build unix

package packetsim

import (
	"context"
	"testing"
	"time"

	"github.com/tailscope/tailscope/internal/cputime"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// benchFabric runs the 256-host 2:1 fabric with n WebServer flows at 50%
// max load and reports packet-hops (a data packet or ACK put on one
// channel) and events per second of wall time, per core: the simulator is
// single-threaded.
func benchFabric(b *testing.B, n int) {
	net, flows := fabricScenario(b, n)
	benchRun(b, net, flows, netcfg.Default())
}

// benchRun runs flows on net under cfg and reports the rates benchFabric
// describes.
func benchRun(b *testing.B, net *topo.Network, flows []workload.Flow, cfg netcfg.Config) {
	b.ResetTimer()
	var hops, events int64
	var wall, cpu time.Duration
	for i := 0; i < b.N; i++ {
		t0, c0 := time.Now(), cputime.Used()
		res, err := Run(context.Background(), net, flows, cfg, Options{Seed: 1})
		wall += time.Since(t0)
		cpu += cputime.Used() - c0
		if err != nil {
			b.Fatal(err)
		}
		hops += res.PacketHops
		events += res.Events
	}
	b.ReportMetric(float64(hops)/wall.Seconds(), "hops/s")
	b.ReportMetric(float64(hops)/cpu.Seconds(), "hops/cpu-s")
	b.ReportMetric(float64(events)/wall.Seconds(), "events/s")
	b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s/run")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/run")
}

// BenchmarkFabric100k is the full run: 100k flows.
func BenchmarkFabric100k(b *testing.B) { benchFabric(b, 100_000) }

// BenchmarkFabric10k is the same scenario with 10k flows, quick enough to
// profile with -cpuprofile.
func BenchmarkFabric10k(b *testing.B) { benchFabric(b, 10_000) }

// BenchmarkFabric10kEnqueue is BenchmarkFabric10k marking at enqueue, the
// model before marking at dequeue became the default: the cost of the
// dequeue marks is the difference.
func BenchmarkFabric10kEnqueue(b *testing.B) {
	net, flows := fabricScenario(b, 10_000)
	cfg := netcfg.Default()
	cfg.ECNMark = "enqueue"
	benchRun(b, net, flows, cfg)
}

// BenchmarkMeta384 is the papers' 6,144-host fabric (meta384-2:1) with
// 300k WebServer flows on matrix B at 50% max load, sigma 2: a
// first try at that scale.
func BenchmarkMeta384(b *testing.B) {
	net, flows := presetScenario(b, "meta384-2:1", "B", 2, 300_000)
	benchRun(b, net, flows, netcfg.Default())
}

// BenchmarkMeta384Short is the same with 50k flows, to profile.
func BenchmarkMeta384Short(b *testing.B) {
	net, flows := presetScenario(b, "meta384-2:1", "B", 2, 50_000)
	benchRun(b, net, flows, netcfg.Default())
}

// BenchmarkFabric10kCC is BenchmarkFabric10k under every congestion
// control: what DCQCN's marking and CNP pacing, TIMELY's RTT samples and
// HPCC's INT cost per packet-hop.
func BenchmarkFabric10kCC(b *testing.B) {
	net, flows := fabricScenario(b, 10_000)
	for _, cc := range netcfg.CCs {
		b.Run(cc, func(b *testing.B) {
			cfg := netcfg.Default()
			cfg.CC = cc
			benchRun(b, net, flows, cfg)
		})
	}
}

// BenchmarkFabric10kBuffer is BenchmarkFabric10k under every congestion
// control with a 200 KB shared buffer per switch, PFC off (tail drop) and
// on: what ports that hold their packets, the buffer's accounting and the
// pauses cost per packet-hop.
func BenchmarkFabric10kBuffer(b *testing.B) {
	net, flows := fabricScenario(b, 10_000)
	for _, pfc := range []bool{false, true} {
		for _, cc := range netcfg.CCs {
			name := cc + "/tail-drop"
			if pfc {
				name = cc + "/pfc"
			}
			b.Run(name, func(b *testing.B) {
				cfg := sharedBuffer(200_000, pfc)
				cfg.CC = cc
				benchRun(b, net, flows, cfg)
			})
		}
	}
}
