package parsimon_test

import (
	"context"
	"math"
	"testing"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/scenario"
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
// channel of a small Parsimon scenario (the fabric, matrix B,
// WebServer sizes, sigma 2, 4000 flows): per bucket, mean and p99 of
// packet-normalized delay within 5% (buckets where both backends queue
// less than a nanosecond per packet excepted), and Parsimon's p99 error
// against the full-network packetsim within one percentage point, overall
// and per size bin.
func TestLinkSimMatchesPacketsim(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two Parsimon estimates and a full packetsim run")
	}
	for _, load := range []float64{0.3, 0.6} {
		spec := scenario.Default()
		spec.Workload.Flows = 4000
		spec.Workload.Components[0].MaxLoad = load
		sc, err := scenario.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		cfg := sc.Spec.Network
		full, err := packetsim.Run(sc.Net, sc.Flows, cfg, packetsim.Options{})
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
			t.Fatalf("load %g: only %d buckets compared", load, len(stats))
		}
		for _, s := range stats {
			if !within(s.mean, s.baseMean, 0.05, 1) || !within(s.p99, s.baseP99, 0.05, 1) {
				t.Errorf("load %g, channel %d bucket %d (%d flows): mean %.1f against %.1f ns/packet, p99 %.1f against %.1f", load, s.channel, s.bucket, s.flows, s.mean, s.baseMean, s.p99, s.baseP99)
			}
		}
		a := metrics.Compare(ls.Records, full.Records, metrics.ParsimonBins(), 99)
		b := metrics.Compare(ps.Records, full.Records, metrics.ParsimonBins(), 99)
		if math.Abs(a.ErrorAll-b.ErrorAll) > 0.01 {
			t.Errorf("load %g: p99 error %+.2f%% with linksim, %+.2f%% with packetsim", load, 100*a.ErrorAll, 100*b.ErrorAll)
		}
		for i := range a.Error {
			if math.Abs(a.Error[i]-b.Error[i]) > 0.01 {
				t.Errorf("load %g, bin %s: p99 error %+.2f%% with linksim, %+.2f%% with packetsim", load, a.Labels[i], 100*a.Error[i], 100*b.Error[i])
			}
		}
	}
}
