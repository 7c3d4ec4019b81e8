package parsimon_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"math/rand/v2"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

// bucketStat is one delay bucket of one channel under two link-level
// backends: its mean and p99 of packet-normalized delay (ns per packet).
type bucketStat struct {
	channel, bucket, flows int
	mean, baseMean         float64
	p99, baseP99           float64
}

// bucketStats pairs the buckets of every simulated channel of two runs of
// the same scenario that differ only in their backend. Buckets depend only
// on the flows' sizes, so bucket k of a channel holds the same flows in
// both.
func bucketStats(t testing.TB, est, base *parsimon.Result) []bucketStat {
	var out []bucketStat
	for c, st := range est.Channels {
		if st.Representative != c {
			continue
		}
		a, b := est.Net.Channel[c], base.Net.Channel[c]
		if len(a.Delays) != len(b.Delays) {
			t.Fatalf("channel %d: %d buckets against %d", c, len(a.Delays), len(b.Delays))
		}
		for k := range a.Delays {
			x, y := a.Delays[k], b.Delays[k]
			out = append(out, bucketStat{
				channel: c, bucket: k, flows: len(x),
				mean: mean(x), baseMean: mean(y),
				p99: metrics.Percentile(x, 99), baseP99: metrics.Percentile(y, 99),
			})
		}
	}
	return out
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// within reports whether a is within rel of b, or both are below floor
// (a bucket whose flows hardly queue has no meaningful relative error).
func within(a, b, rel, floor float64) bool {
	if a < floor && b < floor {
		return true
	}
	return math.Abs(a-b) <= rel*b
}

// TestLinkSimMatchesPacketsim checks the dedicated link-level backend
// against the general packetsim on the link-level topologies of every
// channel of a small Parsimon scenario (the 32-rack fabric, matrix B,
// WebServer sizes, sigma 2, 4000 flows), under every congestion control:
// per bucket, mean and p99 of packet-normalized delay within 5% (buckets
// where both backends queue less than a nanosecond per packet excepted),
// and Parsimon's p99 error against the full-network packetsim within one
// percentage point, overall and per size bin. It logs those errors
// (BENCHMARKS.md has them at 20k flows).
func TestLinkSimMatchesPacketsim(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two Parsimon estimates and a full packetsim run per congestion control")
	}
	for _, cc := range netcfg.CCs {
		for _, load := range []float64{0.3, 0.6} {
			spec := scenario.Default()
			spec.Workload.Flows = 4000
			spec.Workload.Components[0].MaxLoad = load
			spec.Network.CC = cc
			sc, err := scenario.Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			cfg := sc.Spec.Network
			full, err := packetsim.Run(context.Background(), sc.Net, sc.Flows, cfg, packetsim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			run := func(b parsimon.Backend) *parsimon.Result {
				res, err := parsimon.Run(context.Background(), sc.Net, sc.Flows, cfg, parsimon.Options{Seed: 1, Backend: b})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			ls, ps := run(parsimon.LinkSim), run(parsimon.Packetsim)
			stats := bucketStats(t, ls, ps)
			if len(stats) < 500 {
				t.Fatalf("%s, load %g: only %d buckets compared", cc, load, len(stats))
			}
			for _, s := range stats {
				if !within(s.mean, s.baseMean, 0.05, 1) || !within(s.p99, s.baseP99, 0.05, 1) {
					t.Errorf("%s, load %g, channel %d bucket %d (%d flows): mean %.1f against %.1f ns/packet, p99 %.1f against %.1f", cc, load, s.channel, s.bucket, s.flows, s.mean, s.baseMean, s.p99, s.baseP99)
				}
			}
			a := metrics.Compare(ls.Records, full.Records, metrics.ParsimonBins(), 99)
			b := metrics.Compare(ps.Records, full.Records, metrics.ParsimonBins(), 99)
			t.Logf("%s, load %g: Parsimon's p99 error %+.1f%% (linksim), %+.1f%% (packetsim backend); per bin %s %s", cc, load, 100*a.ErrorAll, 100*b.ErrorAll, pct(a.Error), pct(b.Error))
			if math.Abs(a.ErrorAll-b.ErrorAll) > 0.01 {
				t.Errorf("%s, load %g: p99 error %+.2f%% with linksim, %+.2f%% with packetsim", cc, load, 100*a.ErrorAll, 100*b.ErrorAll)
			}
			for i := range a.Error {
				if math.Abs(a.Error[i]-b.Error[i]) > 0.01 {
					t.Errorf("%s, load %g, bin %s: p99 error %+.2f%% with linksim, %+.2f%% with packetsim", cc, load, a.Labels[i], 100*a.Error[i], 100*b.Error[i])
				}
			}
		}
	}
}

// pct formats relative errors as percentages.
func pct(xs []float64) string {
	s := "["
	for i, x := range xs {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%+.1f%%", 100*x)
	}
	return s + "]"
}

// handTask is a link-level topology of the given shape carrying n flows
// under cc at the given load of its target: eight sources feed a switch
// target over 10G first hops, eight destinations hang off it on inflated
// 100G links (1 us each), sizes are 80% uniform up to 20 KB and 20%
// log-uniform from 20 KB to 1 MB, arrivals Poisson.
func handTask(kind parsimon.Kind, cc string, load float64, n int, seed uint64) *parsimon.Task {
	cfg := netcfg.Default()
	cfg.CC = cc
	const gbps = 1_000_000_000
	target := int64(10 * gbps)
	if kind == parsimon.Core {
		target = 40 * gbps
	}
	t := &parsimon.Task{
		Channel: int(seed), Kind: kind, Config: cfg, KBytes: cfg.KBytesFor(target),
		Nodes: []parsimon.TaskNode{{ID: 0, Switch: kind != parsimon.Uplink}, {ID: 1, Switch: kind != parsimon.Downlink}},
		Links: []parsimon.TaskLink{{A: 0, B: 1, Bandwidth: target, NominalBandwidth: target, Delay: 1000}},
	}
	var srcs, dsts []int
	add := func(a, b int, bw int64) int {
		id := len(t.Nodes)
		t.Nodes = append(t.Nodes, parsimon.TaskNode{ID: id})
		if a < 0 {
			a = id
		} else {
			b = id
		}
		t.Links = append(t.Links, parsimon.TaskLink{A: a, B: b, Bandwidth: bw, NominalBandwidth: bw, Delay: 1000})
		return id
	}
	for range 8 {
		if t.Nodes[0].Switch {
			srcs = append(srcs, add(-1, 0, 10*gbps))
		}
		if t.Nodes[1].Switch {
			dsts = append(dsts, add(1, -1, 100*gbps))
		}
	}
	r := rand.New(rand.NewPCG(seed, 17))
	var bytes float64
	sizes := make([]int64, n)
	for i := range sizes {
		if r.Float64() < 0.8 {
			sizes[i] = 1 + r.Int64N(20_000)
		} else {
			sizes[i] = int64(20_000 * math.Exp(r.Float64()*math.Log(50)))
		}
		bytes += float64(cfg.WireBytes(sizes[i]))
	}
	gapNs := bytes * 8 / float64(n) / (load * float64(target)) * 1e9
	var at float64
	for i, size := range sizes {
		f := workload.Flow{ID: i, Src: 0, Dst: 1, Size: size, Start: int64(at)}
		if len(srcs) > 0 {
			f.Src = srcs[r.IntN(len(srcs))]
		}
		if len(dsts) > 0 {
			f.Dst = dsts[r.IntN(len(dsts))]
		}
		t.Flows = append(t.Flows, f)
		at += r.ExpFloat64() * gapNs
	}
	return t
}

// pnDelays runs task with backend and returns its flows' packet-normalized
// delays, bucketed (B = 100, x = 2) and all together.
func pnDelays(t *testing.T, task *parsimon.Task, b parsimon.Backend) (*parsimon.Buckets, []float64) {
	tr, err := parsimon.RunTask(context.Background(), task, b)
	if err != nil {
		t.Fatal(err)
	}
	pn := make([]float64, len(tr.Delays))
	for j, d := range tr.Delays {
		pn[j] = float64(d) / float64(task.Config.Packets(tr.Sizes[j]))
	}
	bk, err := parsimon.NewBuckets(tr.Sizes, pn, parsimon.DefaultBucketSize, parsimon.DefaultBucketRatio)
	if err != nil {
		t.Fatal(err)
	}
	return bk, pn
}

// TestBackendsPerCC runs every congestion control on hand-made core,
// downlink and uplink topologies at 50% and 85% load (3000 flows each)
// with both link-level backends and compares their packet-normalized
// delays: the mean and p99 over all flows, and the flow-weighted average
// over delay buckets of the relative difference of each bucket's mean and
// p99 (values under 1 ns/packet count as 1). The tolerances are the
// largest changes that moving every other flow's start 1 ns earlier makes
// to packetsim itself on these tasks (measured: 3.9%, 9.9%, 4.7% and
// 6.7%; a window-based run's tail is chaotic): linksim may differ from
// packetsim by no more than packetsim differs from itself. Measured
// (BENCHMARKS.md): at most 1.1%, 6.9%, 1.7% and 4.2%, the window-based
// CCs (DCTCP, HPCC) only; the rate-based DCQCN and TIMELY, whose ACKs do
// not clock their packets, give packetsim's delays exactly.
func TestBackendsPerCC(t *testing.T) {
	if testing.Short() {
		t.Skip("30 link simulations with each backend")
	}
	rel := func(x, y float64) float64 { return math.Abs(x-y) / max(y, 1) }
	for _, cc := range netcfg.CCs {
		for _, kind := range []parsimon.Kind{parsimon.Core, parsimon.Downlink, parsimon.Uplink} {
			for _, load := range []float64{0.5, 0.85} {
				task := handTask(kind, cc, load, 3000, uint64(10*int(kind)+int(100*load)))
				lb, lp := pnDelays(t, task, parsimon.LinkSim)
				pb, pp := pnDelays(t, task, parsimon.Packetsim)
				var bm, bp float64
				for k := range lb.Delays {
					x, y := lb.Delays[k], pb.Delays[k]
					w := float64(len(x)) / float64(len(lp))
					bm += w * rel(mean(x), mean(y))
					bp += w * rel(metrics.Percentile(x, 99), metrics.Percentile(y, 99))
				}
				m, p := rel(mean(lp), mean(pp)), rel(metrics.Percentile(lp, 99), metrics.Percentile(pp, 99))
				t.Logf("%-12s %-8s load %.2f: differences mean %.3f, p99 %.3f, bucket means %.3f, bucket p99s %.3f", cc, kind, load, m, p, bm, bp)
				if m > 0.04 || p > 0.10 || bm > 0.05 || bp > 0.07 {
					t.Errorf("%s, %s at load %g: linksim against packetsim: mean %.1f%%, p99 %.1f%%, bucket means %.1f%%, bucket p99s %.1f%% apart; want at most 4, 10, 5 and 7%%", cc, kind, load, 100*m, 100*p, 100*bm, 100*bp)
				}
			}
		}
	}
}

// LinkSim hands its context to the link simulation, which stops once the
// context is done (lib/linksim's TestInterrupt cancels one in flight).
func TestLinkSimInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := parsimon.RunTask(ctx, handTask(parsimon.Core, "dctcp", 0.5, 100, 1), parsimon.LinkSim)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}
