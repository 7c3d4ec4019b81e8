package linksim

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/cc"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/workload"
)

// longFlows are n flows of size bytes from sources 0..n-1 to destination
// 0, all starting at once.
func longFlows(n int, size int64) []workload.Flow {
	flows := make([]workload.Flow, n)
	for i := range flows {
		flows[i] = workload.Flow{ID: i, Src: i, Size: size, Start: 1000}
	}
	return flows
}

// incast is a link whose n 10G sources feed a 10G target: a Parsimon
// downlink, or with dests a core link.
func incast(n int, dests bool) Link {
	l := Link{Target: Hop{10 * gbps, 1000}, KBytes: 30_000}
	for range n {
		l.Sources = append(l.Sources, Hop{10 * gbps, 1000})
	}
	if dests {
		l.Dests = []Hop{{100 * gbps, 1000}}
	}
	return l
}

// cnpRecorder wraps a controller and keeps the arrival times of the ACKs
// that echoed a mark.
type cnpRecorder struct {
	cc.CC
	echoes []int64
}

func (r *cnpRecorder) OnAck(a cc.Ack) {
	if a.ECE {
		r.echoes = append(r.echoes, a.Now)
	}
	r.CC.OnAck(a)
}

// DCQCN's notification point: four flows overload the target, RED marks
// many packets, but each receiver echoes a mark at most once per CNP
// interval per flow. A flow's ACKs all take the same fixed path back, so
// the echoes reach its sender at least the interval apart too; under
// the fork's DecreaseGrid every mark is echoed.
func TestCNPPacing(t *testing.T) {
	cfg := netcfg.Default()
	cfg.CC = "dcqcn"
	var recs []*cnpRecorder
	newCC := func(cfg netcfg.Config, line int64) cc.CC {
		r := &cnpRecorder{CC: cc.NewDCQCN(cfg, line)}
		recs = append(recs, r)
		return r
	}
	res, err := Run(context.Background(), incast(4, true), longFlows(4, 2_000_000), cfg, Options{CC: newCC, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	gap := cfg.DCQCN.CNPIntervalNanos * 1000
	var echoes int64
	for i, r := range recs {
		if len(r.echoes) == 0 {
			t.Errorf("flow %d: no CNP", i)
		}
		for j := 1; j < len(r.echoes); j++ {
			if d := r.echoes[j] - r.echoes[j-1]; d < gap {
				t.Errorf("flow %d: CNPs %d ps apart, less than the interval %d ps", i, d, gap)
			}
		}
		echoes += int64(len(r.echoes))
	}
	t.Logf("%d marks, %d CNPs", res.Marks, echoes)
	if res.Marks <= echoes {
		t.Errorf("%d marks and %d CNPs: the receivers suppressed none", res.Marks, echoes)
	}
	// Under DecreaseGrid the sender paces its cuts and the receivers echo
	// every mark (no loss: one ACK per marked packet).
	cfg.DCQCN.DecreaseGrid = true
	recs = nil
	res, err = Run(context.Background(), incast(4, true), longFlows(4, 2_000_000), cfg, Options{CC: newCC, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	echoes = 0
	for _, r := range recs {
		echoes += int64(len(r.echoes))
	}
	if echoes == 0 || res.Marks != echoes {
		t.Errorf("decrease_grid: %d marks, %d CNPs; want every mark echoed", res.Marks, echoes)
	}
}

// intRecorder wraps HPCC and keeps the INT records it is handed.
type intRecorder struct {
	*cc.HPCC
	hops [][]cc.INTHop
}

func (r *intRecorder) OnAckINT(a cc.Ack, hops []cc.INTHop) {
	r.hops = append(r.hops, append([]cc.INTHop(nil), hops...))
	r.HPCC.OnAckINT(a, hops)
}

// HPCC on a downlink and a core link: every ACK brings one INT record per
// switch port of the path (the target, then the downstream hop), with the
// ports' rates, bytes sent that only grow and times that only advance;
// and HPCC keeps the target's queue under 5 KB once the four flows have
// settled (after 100 us), as its paper and packetsim's test have it,
// also with the fork's T and queue normalisation.
func TestHPCCINT(t *testing.T) {
	for _, c := range []struct{ dests, fork bool }{{false, false}, {true, false}, {true, true}} {
		dests := c.dests
		cfg := netcfg.Default()
		cfg.CC = "hpcc"
		if c.fork { // the HPCC ns-3 fork's T and queue normalisation
			cfg.HPCC.BaseRTTNanos, cfg.HPCC.QueueOverWindow, cfg.HPCC.WindowBytes = 6000, true, 18000
		}
		var recs []*intRecorder
		newCC := func(cfg netcfg.Config, line int64) cc.CC {
			r := &intRecorder{HPCC: cc.NewHPCC(cfg, line).(*cc.HPCC)}
			recs = append(recs, r)
			return r
		}
		l := incast(4, dests)
		if _, err := Run(context.Background(), l, longFlows(4, 2_000_000), cfg, Options{CC: newCC}); err != nil {
			t.Fatal(err)
		}
		rates := []int64{l.Target.Bandwidth}
		if dests {
			rates = append(rates, l.Dests[0].Bandwidth)
		}
		var qmax int64
		for i, r := range recs {
			if len(r.hops) == 0 {
				t.Fatalf("dests %v, flow %d: no INT", dests, i)
			}
			for j, hops := range r.hops {
				if len(hops) != len(rates) {
					t.Fatalf("dests %v, flow %d: %d INT records, want %d", dests, i, len(hops), len(rates))
				}
				for h, rec := range hops {
					if rec.RateBps != rates[h] {
						t.Errorf("dests %v, flow %d, hop %d: rate %d, want %d", dests, i, h, rec.RateBps, rates[h])
					}
					if j > 0 && (rec.TxBytes < r.hops[j-1][h].TxBytes || rec.TimePs < r.hops[j-1][h].TimePs) {
						t.Errorf("dests %v, flow %d, hop %d: INT went back from %+v to %+v", dests, i, h, r.hops[j-1][h], rec)
					}
				}
				if hops[0].TimePs > 100_000_000 {
					qmax = max(qmax, hops[0].QueueBytes)
				}
			}
		}
		t.Logf("dests %v, fork %v: target queue at most %d B after 100 us", dests, c.fork, qmax)
		if qmax > 5000 {
			t.Errorf("dests %v, fork %v: the target's queue reached %d B, want it under 5 KB", dests, c.fork, qmax)
		}
	}
}

// canceller is a controller that cancels the run's context at its
// flow's 1000th ACK and counts the ACKs after that.
type canceller struct {
	cc.CC
	acks   *int
	after  *int
	cancel context.CancelFunc
}

func (c canceller) OnAck(a cc.Ack) {
	*c.acks++
	if *c.acks == 1000 {
		c.cancel()
	} else if *c.acks > 1000 {
		*c.after++
	}
	c.CC.OnAck(a)
}

// A run whose context is cancelled stops within ctxEvery events with an
// error that wraps context.Canceled.
func TestInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var acks, after int
	newCC := func(cfg netcfg.Config, line int64) cc.CC {
		return canceller{CC: cc.NewDCTCPRate(cfg, line), acks: &acks, after: &after, cancel: cancel}
	}
	flows := longFlows(4, 50_000_000) // 200k packets: far more ACKs than one look at the context takes
	_, err := Run(ctx, incast(4, true), flows, netcfg.Default(), Options{CC: newCC})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if after >= ctxEvery {
		t.Errorf("%d ACKs after the cancel, want fewer than %d", after, ctxEvery)
	}
	if _, err := Run(ctx, incast(4, true), flows, netcfg.Default(), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a run started with a cancelled context: error %v, want context.Canceled", err)
	}
}

// A link sees too little of the network to resolve fork-hpcc's T: the
// run is refused, naming the field, until the caller resolves it.
func TestUnresolvedBaseRTT(t *testing.T) {
	cfg, err := netcfg.Preset("fork-hpcc")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), incast(2, true), longFlows(2, 10_000), cfg, Options{})
	if err == nil || !strings.Contains(err.Error(), "base_rtt_nanos -1") {
		t.Fatalf("unresolved T: err %v, want one naming base_rtt_nanos -1", err)
	}
	cfg.HPCC.BaseRTTNanos = 6000
	if _, err := Run(context.Background(), incast(2, true), longFlows(2, 10_000), cfg, Options{}); err != nil {
		t.Fatalf("resolved T: %v", err)
	}
}
