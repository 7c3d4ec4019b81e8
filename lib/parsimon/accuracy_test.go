//go:build unix

package parsimon_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tailscope/tailscope/internal/cputime"
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

// BenchmarkAccuracy is the accuracy and speed study: Parsimon and
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
	base, err := packetsim.Run(context.Background(), sc.Net, sc.Flows, cfg, packetsim.Options{})
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

// BenchmarkSpeedNS3 compares wall times on the reference scenario at a size
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
			res, err := packetsim.Run(context.Background(), sc.Net, sc.Flows, cfg, packetsim.Options{})
			if err != nil {
				return nil, err
			}
			return res.Records, nil
		})
	}
}

// BenchmarkLinkBackends is the comparison of the link-level
// backends on the accuracy study's scenario, per max load in two parts:
// "speed" runs full-network packetsim and Parsimon with the dedicated
// backend (linksim) alternately TAILSCOPE_PARSIMON_REPEAT times (default
// 2) for the speed ratio, then Parsimon/C with linksim; "compare" runs
// Parsimon with linksim and with the packetsim backend and prints, per
// channel and bucket, how far linksim's mean and p99 of packet-normalized
// delay are from packetsim's, and each variant's p99 errors against the
// full run. Heavy: run with -benchtime 1x (-bench LinkBackends/speed for
// the timings alone). Flows and loads as in BenchmarkAccuracy.
func BenchmarkLinkBackends(b *testing.B) {
	n := envInt(b, "TAILSCOPE_PARSIMON_FLOWS", 200_000)
	reps := envInt(b, "TAILSCOPE_PARSIMON_REPEAT", 2)
	loads := os.Getenv("TAILSCOPE_PARSIMON_LOADS")
	if loads == "" {
		loads = "30,60"
	}
	for _, l := range strings.Split(loads, ",") {
		pct, err := strconv.ParseFloat(strings.TrimSpace(l), 64)
		if err != nil || pct <= 0 || pct >= 100 {
			b.Fatalf("TAILSCOPE_PARSIMON_LOADS: bad load %q", l)
		}
		sc := issueScenario(b, n, pct/100)
		fmt.Printf("\n== link backends: meta32-2:1, matrix B, WebServer, arrivals %+v, max load %g%%, %d flows ==\n", sc.Spec.Workload.Components[0].Arrival, pct, n)
		b.Run(fmt.Sprintf("speed/load%g", pct), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				backendSpeed(b, sc, reps)
			}
		})
		b.Run(fmt.Sprintf("compare/load%g", pct), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				compareBackendRuns(b, sc)
			}
		})
	}
}

// measure runs run and returns its wall and CPU seconds.
func measure(b *testing.B, run func() error) (wall, cpu float64) {
	t0, c0 := time.Now(), cputime.Used().Seconds()
	if err := run(); err != nil {
		b.Fatal(err)
	}
	return time.Since(t0).Seconds(), cputime.Used().Seconds() - c0
}

// runParsimon runs Parsimon on sc with opts (seed: the scenario's) and
// returns the result with its wall and CPU seconds.
func runParsimon(b *testing.B, sc *scenario.Scenario, opts parsimon.Options) (res *parsimon.Result, wall, cpu float64) {
	opts.Seed = sc.Spec.Seed
	wall, cpu = measure(b, func() (err error) {
		res, err = parsimon.Run(context.Background(), sc.Net, sc.Flows, sc.Spec.Network, opts)
		return err
	})
	return res, wall, cpu
}

func backendSpeed(b *testing.B, sc *scenario.Scenario, reps int) {
	var fullWall, fullCPU, lsWall, lsCPU float64
	for r := 0; r < reps; r++ {
		w, c := measure(b, func() error {
			_, err := packetsim.Run(context.Background(), sc.Net, sc.Flows, sc.Spec.Network, packetsim.Options{})
			return err
		})
		fullWall, fullCPU = fullWall+w, fullCPU+c
		fmt.Printf("packetsim (full network)   round %d: %6.1f s wall, %6.1f s CPU\n", r+1, w, c)
		ls, w, c := runParsimon(b, sc, parsimon.Options{})
		lsWall, lsCPU = lsWall+w, lsCPU+c
		fmt.Printf("parsimon (linksim backend) round %d: %6.1f s wall, %6.1f s CPU, link sims %.1f s, longest %.3f s, parsimon-inf %.2f s\n", r+1, w, c, ls.SimSeconds, ls.LongestSimSeconds, ls.InfSeconds())
	}
	fmt.Printf("parsimon (linksim) against full packetsim over %d rounds: %.2fx faster in wall time, %.2fx in CPU time\n", reps, fullWall/lsWall, fullCPU/lsCPU)
	lc, w, c := runParsimon(b, sc, parsimon.Options{Cluster: true})
	fmt.Printf("parsimon-c (linksim backend): %6.1f s wall, %6.1f s CPU, %d link sims, %d pruned (%.0f%%), parsimon-inf %.2f s\n", w, c, lc.Simulated, lc.Pruned, 100*float64(lc.Pruned)/float64(lc.Simulated+lc.Pruned), lc.InfSeconds())
}

func compareBackendRuns(b *testing.B, sc *scenario.Scenario) {
	full, err := packetsim.Run(context.Background(), sc.Net, sc.Flows, sc.Spec.Network, packetsim.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ls, _, _ := runParsimon(b, sc, parsimon.Options{})
	lc, _, _ := runParsimon(b, sc, parsimon.Options{Cluster: true})
	ps, w, c := runParsimon(b, sc, parsimon.Options{Backend: parsimon.Packetsim})
	fmt.Printf("parsimon (packetsim backend): %6.1f s wall, %6.1f s CPU, link sims %.1f s, longest %.3f s, parsimon-inf %.2f s\n", w, c, ps.SimSeconds, ps.LongestSimSeconds, ps.InfSeconds())

	stats := bucketStats(b, ls, ps)
	var okMean, okP99, flows, flowsOut int
	var worstMean, worstP99 float64
	for _, s := range stats {
		flows += s.flows
		m, p := within(s.mean, s.baseMean, 0.05, 1), within(s.p99, s.baseP99, 0.05, 1)
		if m {
			okMean++
		}
		if p {
			okP99++
		}
		if !m || !p {
			flowsOut += s.flows
		}
		if s.baseMean >= 1 {
			worstMean = max(worstMean, math.Abs(s.mean/s.baseMean-1))
		}
		if s.baseP99 >= 1 {
			worstP99 = max(worstP99, math.Abs(s.p99/s.baseP99-1))
		}
	}
	fmt.Printf("buckets (linksim against packetsim backend, %d channels' buckets, %d flow records): mean within 5%% in %d (%.1f%%), p99 within 5%% in %d (%.1f%%); flows in buckets off by more: %d (%.2f%%); largest |error| where the baseline is >= 1 ns/packet: mean %.1f%%, p99 %.1f%%\n",
		len(stats), flows, okMean, 100*float64(okMean)/float64(len(stats)), okP99, 100*float64(okP99)/float64(len(stats)), flowsOut, 100*float64(flowsOut)/float64(flows), 100*worstMean, 100*worstP99)
	for _, v := range []struct {
		name, metric string
		res          *parsimon.Result
	}{{"parsimon (linksim)", "parsimon", ls}, {"parsimon-c (linksim)", "parsimon-c", lc}, {"parsimon (packetsim backend)", "parsimon-packetsim", ps}} {
		cmp := metrics.Compare(v.res.Records, full.Records, metrics.ParsimonBins(), 99)
		fmt.Printf("-- %s p99 errors against full packetsim:\n%s", v.name, cmp.String())
		b.ReportMetric(100*cmp.ErrorAll, v.metric+"-p99-err%")
	}
}

// BenchmarkSetupConvolution times the steps of a run around its link
// simulations on the reference scenario at 50% load with
// TAILSCOPE_PARSIMON_FLOWS flows (default 400000): the decomposition, and
// the convolution over every flow with each busy channel's delays
// bucketed from its flows (a synthetic delay of one ns per byte, since
// only the sampling's cost matters here), and the two steps of the link
// simulations' pool that are not simulation (tasks: building every busy
// channel's task; buckets: bucketing as many delays as it carries), in
// wall and process CPU time (cpu-ns/op, the measure on a shared
// machine). The decomposition and the convolution look at the
// context every few thousand flows; the -stop benchmarks cancel each
// step a quarter of the way through (by the time of one uncancelled run)
// and report the longest time from the cancel to its return
// (max-stop-ms), and how many runs ended before the cancel.
func BenchmarkSetupConvolution(b *testing.B) {
	sc := issueScenario(b, envInt(b, "TAILSCOPE_PARSIMON_FLOWS", 400_000), 0.5)
	cfg := sc.Spec.Network
	ctx := context.Background()
	d, err := parsimon.Decompose(ctx, sc.Net, sc.Flows, cfg)
	if err != nil {
		b.Fatal(err)
	}
	// bucket buckets every busy channel's flows with a synthetic delay of
	// one ns per byte.
	bucket := func() ([]*parsimon.Buckets, error) {
		out := make([]*parsimon.Buckets, len(sc.Net.Channels))
		for c := range sc.Net.Channels {
			on := d.On(c)
			if len(on) == 0 {
				continue
			}
			sizes, delays := make([]int64, len(on)), make([]float64, len(on))
			for j, i := range on {
				sizes[j] = sc.Flows[i].Size
				delays[j] = float64(sizes[j])
			}
			var err error
			if out[c], err = parsimon.NewBuckets(sizes, delays, parsimon.DefaultBucketSize, parsimon.DefaultBucketRatio); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	dn := parsimon.NewDelayNet(sc.Net, cfg)
	if dn.Channel, err = bucket(); err != nil {
		b.Fatal(err)
	}
	type step struct {
		name string
		run  func(ctx context.Context) error
	}
	steps := []step{
		{"decompose", func(ctx context.Context) error {
			_, err := parsimon.Decompose(ctx, sc.Net, sc.Flows, cfg)
			return err
		}},
		{"convolution", func(ctx context.Context) error {
			_, err := dn.EstimateFlows(ctx, sc.Flows, 1)
			return err
		}},
	}
	// Steps of the link simulations' pool that do not simulate: building
	// every busy channel's task, and bucketing its delays.
	pool := []step{
		{"tasks", func(context.Context) error {
			for c := range sc.Net.Channels {
				if _, err := d.Task(c, parsimon.DefaultInflation); err != nil {
					return err
				}
			}
			return nil
		}},
		{"buckets", func(context.Context) error {
			_, err := bucket()
			return err
		}},
	}
	for _, st := range append(steps, pool...) {
		b.Run(st.name, func(b *testing.B) {
			c0 := cputime.Used()
			for range b.N {
				if err := st.run(ctx); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cputime.Used()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
	for _, st := range steps {
		b.Run(st.name+"-stop", func(b *testing.B) {
			t0 := time.Now()
			if err := st.run(ctx); err != nil {
				b.Fatal(err)
			}
			wait := time.Since(t0) / 4
			var worst time.Duration
			finished := 0 // runs that ended before the cancel (a loaded machine's timing)
			for range b.N {
				ctx, cancel := context.WithCancel(ctx)
				done := make(chan error, 1)
				go func() { done <- st.run(ctx) }()
				time.Sleep(wait)
				t := time.Now()
				cancel()
				switch err := <-done; {
				case err == nil:
					finished++
				case errors.Is(err, context.Canceled):
					worst = max(worst, time.Since(t))
				default:
					b.Fatal(err)
				}
			}
			b.ReportMetric(1e3*worst.Seconds(), "max-stop-ms")
			b.ReportMetric(float64(finished), "finished-first")
		})
	}
}
