//go:build unix

package parsimon_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tailscope/tailscope/lib/internal/cputime"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/ns3"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

// envInt reads a positive integer from the environment, def when unset.
func envInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		b.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return n
}

// issueScenario is the accuracy study's scenario: the 32-rack 2:1 fabric,
// matrix B, WebServer sizes, sigma 2 (TAILSCOPE_PARSIMON_SIGMA overrides
// it; "poisson" for Poisson arrivals), at the given max load.
func issueScenario(b *testing.B, flows int, load float64) *scenario.Scenario {
	spec := scenario.Default()
	spec.Name = fmt.Sprintf("parsimon-accuracy-%g", load)
	spec.Workload.Flows = flows
	spec.Workload.Components[0].MaxLoad = load
	switch s := os.Getenv("TAILSCOPE_PARSIMON_SIGMA"); s {
	case "":
	case "poisson":
		spec.Workload.Components[0].Arrival = workload.Arrival{Process: "poisson"}
	default:
		sigma, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatalf("TAILSCOPE_PARSIMON_SIGMA=%q: want a number or poisson", s)
		}
		spec.Workload.Components[0].Arrival.Sigma = sigma
	}
	sc, err := scenario.Build(spec)
	if err != nil {
		b.Fatal(err)
	}
	return sc
}

// BenchmarkAccuracy is the issue's accuracy and speed study: Parsimon and
// Parsimon/C against the full-network packetsim baseline, p99 slowdown per
// size bin and overall, with wall times, pruning and the Parsimon/inf
// figure. Heavy: run with -benchtime 1x. TAILSCOPE_PARSIMON_FLOWS sets the
// number of flows (default 200000), TAILSCOPE_PARSIMON_LOADS the max loads
// in percent (default "30,60").
func BenchmarkAccuracy(b *testing.B) {
	n := envInt(b, "TAILSCOPE_PARSIMON_FLOWS", 200_000)
	loads := os.Getenv("TAILSCOPE_PARSIMON_LOADS")
	if loads == "" {
		loads = "30,60"
	}
	for i := 0; i < b.N; i++ {
		for _, l := range strings.Split(loads, ",") {
			pct, err := strconv.ParseFloat(strings.TrimSpace(l), 64)
			if err != nil || pct <= 0 || pct >= 100 {
				b.Fatalf("TAILSCOPE_PARSIMON_LOADS: bad load %q", l)
			}
			accuracy(b, n, pct/100)
		}
	}
}

func accuracy(b *testing.B, n int, load float64) {
	sc := issueScenario(b, n, load)
	cfg := sc.Spec.Network
	t0, c0 := time.Now(), cputime.Used().Seconds()
	base, err := packetsim.Run(sc.Net, sc.Flows, cfg, packetsim.Options{})
	if err != nil {
		b.Fatal(err)
	}
	baseWall, baseCPU := time.Since(t0).Seconds(), cputime.Used().Seconds()-c0
	loads, err := metrics.LinkLoads(sc.Net, sc.Flows)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Printf("\n== meta32-2:1, matrix B, WebServer, arrivals %+v, max load %g%% (measured %.3f), %d flows ==\n", sc.Spec.Workload.Components[0].Arrival, 100*load, loads.Max, n)
	fmt.Printf("packetsim (full network, single-threaded): %.1f s wall, %.1f s CPU\n", baseWall, baseCPU)
	for _, cluster := range []bool{false, true} {
		name := "parsimon"
		if cluster {
			name = "parsimon-c"
		}
		t0, c0 := time.Now(), cputime.Used().Seconds()
		res, err := parsimon.Run(context.Background(), sc.Net, sc.Flows, cfg, parsimon.Options{Seed: sc.Spec.Seed, Cluster: cluster})
		if err != nil {
			b.Fatal(err)
		}
		wall, cpu := time.Since(t0).Seconds(), cputime.Used().Seconds()-c0
		cmp := metrics.Compare(res.Records, base.Records, metrics.ParsimonBins(), 99)
		fmt.Printf("-- %s: %.1f s wall, %.1f s CPU (speed-up over packetsim %.2fx wall, %.2fx CPU), %d link sims, %d pruned (%.0f%%), setup %.2f s, sims %.1f s, convolution %.2f s, longest link sim %.2f s, parsimon-inf %.2f s\n",
			name, wall, cpu, baseWall/wall, baseCPU/cpu, res.Simulated, res.Pruned, 100*float64(res.Pruned)/float64(res.Simulated+res.Pruned),
			res.SetupSeconds, res.SimSeconds, res.ConvolveSeconds, res.LongestSimSeconds, res.InfSeconds())
		fmt.Print(cmp.String())
		b.ReportMetric(100*cmp.ErrorAll, fmt.Sprintf("%s-p99-err%%-load%g", name, 100*load))
	}
}

// BenchmarkSpeedNS3 compares wall times on the issue's scenario at a size
// ns-3 can run here (TAILSCOPE_PARSIMON_NS3_FLOWS, default 2000, 30% load):
// ns-3 on the full network, Parsimon with the ns-3 backend, Parsimon,
// Parsimon/C and full packetsim.
func BenchmarkSpeedNS3(b *testing.B) {
	if err := ns3.Available(); err != nil {
		b.Skip(err)
	}
	sc := issueScenario(b, envInt(b, "TAILSCOPE_PARSIMON_NS3_FLOWS", 2000), 0.3)
	cfg := sc.Spec.Network
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		timeIt := func(name string, run func() ([]metrics.Record, error)) []metrics.Record {
			t0 := time.Now()
			recs, err := run()
			if err != nil {
				b.Fatal(err)
			}
			fmt.Printf("%-14s %8.2f s\n", name, time.Since(t0).Seconds())
			return recs
		}
		fmt.Printf("\n== meta32-2:1, matrix B, WebServer, sigma 2, 30%% max load, %d flows ==\n", len(sc.Flows))
		timeIt("ns3", func() ([]metrics.Record, error) { return ns3.Run(ctx, sc.Net, sc.Flows, cfg, ns3.Options{}) })
		for _, v := range []struct {
			name string
			opts parsimon.Options
		}{
			{"parsimon-ns3", parsimon.Options{Seed: 1, Backend: parsimon.NS3}},
			{"parsimon", parsimon.Options{Seed: 1}},
			{"parsimon-c", parsimon.Options{Seed: 1, Cluster: true}},
		} {
			timeIt(v.name, func() ([]metrics.Record, error) {
				res, err := parsimon.Run(ctx, sc.Net, sc.Flows, cfg, v.opts)
				if err != nil {
					return nil, err
				}
				return res.Records, nil
			})
		}
		timeIt("packetsim", func() ([]metrics.Record, error) {
			res, err := packetsim.Run(sc.Net, sc.Flows, cfg, packetsim.Options{})
			if err != nil {
				return nil, err
			}
			return res.Records, nil
		})
	}
}
