//go:build unix

package flowsim

import (
	"context"
	"testing"
	"time"

	"github.com/tailscope/tailscope/internal/cputime"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// parkingLotScenario is m3's path-level setting: a 6-hop parking lot with
// one background host per switch, flows between every left-to-right pair
// of the chain's 7 end points (the foreground pair among them), Pareto
// sizes of mean 20 KB, bursty log-normal arrivals (sigma 2), 70% load on
// the busiest channel.
func parkingLotScenario(b testing.TB, n int) (*topo.Network, []workload.Flow) {
	b.Helper()
	spec := topo.ParkingLotSpec{Hops: 6, BackgroundHosts: 1}
	net, err := topo.ParkingLot(spec)
	if err != nil {
		b.Fatal(err)
	}
	ends := []int{0}
	for i := 0; i < spec.Hops-1; i++ {
		ends = append(ends, spec.BackgroundHost(i, 0))
	}
	ends = append(ends, 1)
	var pairs [][2]int
	for i := range ends {
		for j := i + 1; j < len(ends); j++ {
			pairs = append(pairs, [2]int{ends[i], ends[j]})
		}
	}
	flows, err := workload.Generate(net, workload.Spec{Flows: n, Components: []workload.Component{{
		Pairs:   pairs,
		Sizes:   workload.SizeSpec{Dist: "pareto", Mean: 20_000},
		Arrival: workload.Arrival{Sigma: 2},
		MaxLoad: 0.7,
	}}}, 1)
	if err != nil {
		b.Fatal(err)
	}
	return net, flows
}

// fabricScenario is packetsim's fabric benchmark scenario: the 256-host
// 2:1 fabric, matrix A, WebServer sizes, 50% max load.
func fabricScenario(b testing.TB, n int) (*topo.Network, []workload.Flow) {
	b.Helper()
	spec, err := topo.Preset("meta32-2:1")
	if err != nil {
		b.Fatal(err)
	}
	net, err := topo.Fabric(spec)
	if err != nil {
		b.Fatal(err)
	}
	flows, err := workload.Generate(net, workload.Spec{Flows: n, Components: []workload.Component{{
		Matrix:  "A",
		Sizes:   workload.SizeSpec{Dist: "webserver"},
		Arrival: workload.Arrival{Sigma: 1},
		MaxLoad: 0.5,
	}}}, 1)
	if err != nil {
		b.Fatal(err)
	}
	return net, flows
}

// benchRun times whole Runs (routing, simulation and records) and reports
// flows per second of wall and of CPU time: Run is single-threaded, and on
// a shared machine CPU time measures its cost better.
func benchRun(b *testing.B, net *topo.Network, flows []workload.Flow) {
	cfg := netcfg.Default()
	b.ResetTimer()
	var wall, cpu time.Duration
	for i := 0; i < b.N; i++ {
		t0, c0 := time.Now(), cputime.Used()
		recs, err := Run(context.Background(), net, flows, cfg, Options{})
		wall += time.Since(t0)
		cpu += cputime.Used() - c0
		if err != nil {
			b.Fatal(err)
		}
		if len(recs) != len(flows) {
			b.Fatalf("%d records for %d flows", len(recs), len(flows))
		}
	}
	n := float64(len(flows) * b.N)
	b.ReportMetric(n/wall.Seconds(), "flows/s")
	b.ReportMetric(n/cpu.Seconds(), "flows/cpu-s")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/run")
}

// BenchmarkParkingLot1M is the speed benchmark: 1M flows on a
// 6-hop parking lot (goal: under a second on one core).
func BenchmarkParkingLot1M(b *testing.B) {
	net, flows := parkingLotScenario(b, 1_000_000)
	benchRun(b, net, flows)
}

// BenchmarkFabric100k is a whole-network run: 100k flows on the 256-host
// 2:1 fabric at 50% max load.
func BenchmarkFabric100k(b *testing.B) {
	net, flows := fabricScenario(b, 100_000)
	benchRun(b, net, flows)
}
