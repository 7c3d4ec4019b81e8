package packetsim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Single-packet flows arriving as a Poisson process at one 10G port form
// an M/D/1 queue: their mean extra delay over the ideal FCT must match the
// Pollaczek-Khinchine mean wait rho*D / (2(1-rho)). Sender links are 100G
// and 64 senders share the load, so queueing anywhere else is negligible
// (below 0.1 ns).
func TestMD1Wait(t *testing.T) {
	const senders, n = 64, 300_000
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: senders, Receivers: 1, HostBandwidth: 100 * topo.Gbps})
	must(t, net, err)
	cfg := netcfg.Default()
	wire := float64(cfg.PayloadBytes + cfg.HeaderBytes)
	service := wire * 8 / 10 // ns at 10 Gbps
	for _, rho := range []float64{0.3, 0.5, 0.7} {
		r := rand.New(rand.NewPCG(uint64(rho*10), 7))
		flows := make([]workload.Flow, n)
		at := 1000.0
		for i := range flows {
			at += r.ExpFloat64() * service / rho
			flows[i] = workload.Flow{ID: i, Src: r.IntN(senders), Dst: senders, Size: cfg.PayloadBytes, Start: int64(at)}
		}
		res, err := Run(context.Background(), net, flows, cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, rec := range res.Records {
			sum += float64(rec.FCT - rec.Ideal)
		}
		got := sum / float64(len(res.Records))
		want := rho * service / (2 * (1 - rho))
		t.Logf("rho %.1f: mean wait %.1f ns, M/D/1 %.1f ns (%+.1f%%)", rho, got, want, 100*(got/want-1))
		if math.Abs(got/want-1) > 0.05 {
			t.Errorf("rho %.1f: mean wait %.1f ns, M/D/1 predicts %.1f ns", rho, got, want)
		}
	}
}

// longFlows runs n never-ending flows across a 10G dumbbell's bottleneck
// until stop ns, sampling the bottleneck every microsecond.
func longFlows(t *testing.T, n int, cfg netcfg.Config, stop int64) (*Result, int) {
	t.Helper()
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: n, Receivers: n})
	must(t, net, err)
	bottleneck := 2 * (2 * n) // link 2n (left-right), channel A->B
	var flows []workload.Flow
	for i := 0; i < n; i++ {
		// Staggered starts: the later flows must win their share.
		flows = append(flows, workload.Flow{ID: i, Src: i, Dst: n + i, Size: 1 << 40, Start: int64(i) * 100_000})
	}
	res, err := Run(context.Background(), net, flows, cfg, Options{StopAtNanos: stop, SampleEveryNanos: 1000, SampleChannels: []int{bottleneck}})
	if err != nil {
		t.Fatal(err)
	}
	return res, bottleneck
}

// Long-lived DCTCP flows on one bottleneck share it equally and keep the
// link busy; the queue stays near the marking threshold K. Rates are
// measured between two stopping times of otherwise identical (hence
// identical-prefix) runs.
//
// Rate-based DCTCP (the papers' CC, the fork's model: marks at dequeue,
// the cut on the first echo) with its 18 KB window cap: two flows are
// window-limited (the queue settles at 0.91 K, no marks); four flows hold
// the queue at K (p5-p95 within 0.9-1.1 K). Window-based DCTCP hovers at
// K too but converges slowly: two flows still split 48/52 over 20-100 ms
// (four flows need that long to come within 5% of equal shares), so its
// fairness is checked with four flows only.
func TestDCTCPLongFlows(t *testing.T) {
	const t1, t2 = 20_000_000, 100_000_000 // ns
	cases := []struct {
		cc             string
		n              int
		fair           bool
		meanLo, meanHi float64 // mean queue, in units of K
		p5, p95        float64 // 5th and 95th percentile bounds, units of K (0: unchecked)
	}{
		{"dctcp", 2, true, 0.8, 1.2, 0.5, 1.5},
		{"dctcp", 4, true, 0.8, 1.2, 0.5, 1.5},
		{"dctcp-window", 2, false, 0.8, 1.2, 0.5, 1.5},
		{"dctcp-window", 4, true, 0.8, 1.2, 0.5, 1.5},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%dflows", c.cc, c.n), func(t *testing.T) {
			cfg := netcfg.Default()
			cfg.CC = c.cc
			a, bn := longFlows(t, c.n, cfg, t1)
			b, _ := longFlows(t, c.n, cfg, t2)
			rates := make([]float64, c.n)
			var mean float64
			for i := range rates {
				rates[i] = float64(b.Unfinished[i].Delivered-a.Unfinished[i].Delivered) * 8 / ((t2 - t1) / 1e9)
				mean += rates[i] / float64(c.n)
			}
			for i, r := range rates {
				if c.fair && math.Abs(r/mean-1) > 0.05 {
					t.Errorf("flow %d got %.3f Gbps, the equal share is %.3f", i, r/1e9, mean/1e9)
				}
			}
			util := float64(b.ChannelBytes[bn]-a.ChannelBytes[bn]) * 8 / 10e9 / ((t2 - t1) / 1e9)
			if util < 0.95 {
				t.Errorf("bottleneck utilisation %.3f, want > 0.95", util)
			}
			k := float64(cfg.KBytesFor(10 * topo.Gbps))
			var qs []float64
			var q float64
			for _, s := range b.Samples {
				if s.TimeNanos > t1 {
					qs = append(qs, float64(s.QueueBytes)/k)
					q += float64(s.QueueBytes) / k
				}
			}
			q /= float64(len(qs))
			sort.Float64s(qs)
			lo, hi := qs[len(qs)*5/100], qs[len(qs)*95/100]
			t.Logf("rates %.4g bps, utilisation %.4f, queue/K mean %.2f p5 %.2f p95 %.2f, marks %d", rates, util, q, lo, hi, b.Marks)
			if q < c.meanLo || q > c.meanHi {
				t.Errorf("mean queue %.2f K, want %.2f-%.2f K", q, c.meanLo, c.meanHi)
			}
			if c.p95 > 0 && (lo < c.p5 || hi > c.p95) {
				t.Errorf("queue p5-p95 %.2f-%.2f K, want within %.2f-%.2f K", lo, hi, c.p5, c.p95)
			}
		})
	}
}
