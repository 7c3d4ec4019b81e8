package packetsim

import (
	"context"
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// steady is what n long flows on a dumbbell did between two stopping
// times t1 and t2 (ns) of otherwise identical runs.
type steady struct {
	rates []float64 // per flow, bps
	util  float64   // bottleneck
	queue []float64 // bottleneck queue sampled every microsecond after t1, bytes, sorted
	rtts  []int64   // RTTs (ps) of the ACKs after t1, when recorded
}

// steadyState runs n never-ending flows with staggered starts across a
// dumbbell whose links all run at bw, and measures [t1, t2]; seed is the
// run's. With recordRTT it wraps the configured controller to keep the
// ACKs' RTTs.
func steadyState(t *testing.T, n int, bw int64, cfg netcfg.Config, t1, t2 int64, seed uint64, recordRTT bool) steady {
	t.Helper()
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: n, Receivers: n, HostBandwidth: bw, BottleneckBandwidth: bw})
	must(t, net, err)
	bn := 2 * (2 * n) // link 2n (left-right), channel A->B
	var flows []workload.Flow
	for i := 0; i < n; i++ {
		flows = append(flows, workload.Flow{ID: i, Src: i, Dst: n + i, Size: 1 << 40, Start: int64(i) * 100_000})
	}
	a, err := Run(context.Background(), net, flows, cfg, Options{StopAtNanos: t1, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	var st steady
	opts := Options{StopAtNanos: t2, SampleEveryNanos: 1000, SampleChannels: []int{bn}, Seed: seed}
	if recordRTT {
		inner, err := CCByName(cfg.CC)
		if err != nil {
			t.Fatal(err)
		}
		opts.CC = func(c netcfg.Config, line int64) CC {
			return &rttRecorder{CC: inner(c, line), from: t1 * 1000, rtts: &st.rtts}
		}
	}
	b, err := Run(context.Background(), net, flows, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	span := float64(t2-t1) / 1e9
	for i := 0; i < n; i++ {
		st.rates = append(st.rates, float64(b.Unfinished[i].Delivered-a.Unfinished[i].Delivered)*8/span)
	}
	st.util = float64(b.ChannelBytes[bn]-a.ChannelBytes[bn]) * 8 / float64(bw) / span
	for _, s := range b.Samples {
		if s.TimeNanos > t1 {
			st.queue = append(st.queue, float64(s.QueueBytes))
		}
	}
	sort.Float64s(st.queue)
	return st
}

// rttRecorder passes everything to its controller and keeps the RTT of
// every ACK from time from (ps) on.
type rttRecorder struct {
	CC
	from int64
	rtts *[]int64
}

func (r *rttRecorder) OnAck(a Ack) {
	if a.Now >= r.from {
		*r.rtts = append(*r.rtts, a.RTT)
	}
	r.CC.OnAck(a)
}

func (r *rttRecorder) OnAckINT(a Ack, hops []INTHop) {
	if a.Now >= r.from {
		*r.rtts = append(*r.rtts, a.RTT)
	}
	if i, ok := r.CC.(INTReader); ok {
		i.OnAckINT(a, hops)
	} else {
		r.CC.OnAck(a)
	}
}

func (r *rttRecorder) Advance(now int64) {
	if c, ok := r.CC.(Clocked); ok {
		c.Advance(now)
	}
}

func (r *rttRecorder) SetBaseRTT(ps int64) {
	if b, ok := r.CC.(BaseRTTSetter); ok {
		b.SetBaseRTT(ps)
	}
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// jain is Jain's fairness index of xs: 1 when all are equal, 1/n when
// one has everything.
func jain(xs []float64) float64 {
	var s, s2 float64
	for _, x := range xs {
		s += x
		s2 += x * x
	}
	return s * s / (float64(len(xs)) * s2)
}

// dcqcnFixedPoint is the fixed point of the DCQCN fluid model (Zhu et
// al., SIGCOMM'15 §5, eqs. 1-3, as analysed in Zhu et al., CoNEXT'16
// "ECN or Delay", §3) for n flows sharing capacity c (bps): each flow's
// current rate is Rc = c/n; setting the derivatives of alpha, RT and Rc
// to zero gives, with rates in packets per second,
//
//	alpha = 1 - (1-p)^(tau' Rc)              (alpha timer tau')
//	a     = 1 - (1-p)^(tau Rc)               (a CNP in a CNP interval tau)
//	b     = Rc p / ((1-p)^-B - 1) + Rc p / ((1-p)^-(T Rc) - 1)
//	        (increase events by the byte counter B and by the timer T)
//	RT - Rc = R_AI b tau / a  and  Rc alpha a / (2 tau) = (RT - Rc) b / 2,
//
// so the marking probability p solves Rc alpha a^2 = R_AI b^2 tau^2
// (found by bisection: the left side grows with p, the right side
// shrinks), and the queue follows from the RED profile,
// q = Kmin + p/Pmax (Kmax - Kmin).
func dcqcnFixedPoint(d netcfg.DCQCN, c float64, n int, wire float64) (p, q float64) {
	rc := c / float64(n) / (8 * wire)
	rai := float64(d.AIRateBps) / (8 * wire)
	tau, taup, timer := float64(d.CNPIntervalNanos)/1e9, float64(d.AlphaTimerNanos)/1e9, float64(d.RateTimerNanos)/1e9
	bytes := float64(d.ByteCounterBytes) / wire
	f := func(p float64) float64 {
		alpha := 1 - math.Pow(1-p, taup*rc)
		a := 1 - math.Pow(1-p, tau*rc)
		b := rc*p/(math.Pow(1-p, -bytes)-1) + rc*p/(math.Pow(1-p, -timer*rc)-1)
		return rc*alpha*a*a - rai*b*b*tau*tau
	}
	lo, hi := 1e-12, 1-1e-9
	for i := 0; i < 200; i++ {
		m := math.Sqrt(lo * hi)
		if f(m) < 0 {
			lo = m
		} else {
			hi = m
		}
	}
	return lo, float64(d.KminBytes) + lo/d.Pmax*float64(d.KmaxBytes-d.KminBytes)
}

// DCQCN with the paper's parameters on a 40G dumbbell (the papers' link
// speed): the mean bottleneck queue and every flow's rate lie within 10%
// of the fluid model's fixed point, averaged over four seeds of the RED
// marking (a fixed point is an expectation: one seed's 80 ms swing by
// +-6% in the queue and +-12% in a flow's rate). Measured: +3% and +2%
// for 2 and 4 flows. Not asserted: 8 flows come 9% below the fixed
// point's 126 KB (too close to the bound to hold a test); at 10G two
// flows come 11% below it (the queue swings between 25 and 190 KB), and
// four flows have a fixed point beyond Kmax (p above Pmax), outside the
// model's RED profile. Marking at enqueue (netcfg ecn_mark) puts the 40G
// queues 7-11% above the fixed point and makes the 10G queue oscillate
// between empty and 250 KB at 90% utilisation.
func TestDCQCNFixedPoint(t *testing.T) {
	const t1, t2 = 20_000_000, 100_000_000 // ns
	const seeds = 4
	for _, c := range []struct {
		n    int
		gbps int64
	}{{2, 40}, {4, 40}} {
		n, bw := c.n, c.gbps*topo.Gbps
		t.Run(fmt.Sprintf("%dG/%dflows", c.gbps, n), func(t *testing.T) {
			cfg := netcfg.Default()
			cfg.CC = "dcqcn"
			var got float64
			rates := make([]float64, n)
			for seed := uint64(1); seed <= seeds; seed++ {
				st := steadyState(t, n, bw, cfg, t1, t2, seed, false)
				got += mean(st.queue) / seeds
				for i, r := range st.rates {
					rates[i] += r / seeds
				}
				t.Logf("seed %d: mean queue %.0f B, rates %.4g bps, utilisation %.4f", seed, mean(st.queue), st.rates, st.util)
			}
			p, want := dcqcnFixedPoint(cfg.DCQCN, float64(bw), n, float64(cfg.PayloadBytes+cfg.HeaderBytes))
			t.Logf("mean queue %.0f B, fixed point %.0f B (p %.5f); mean rates %.4g bps", got, want, p, rates)
			if math.Abs(got/want-1) > 0.10 {
				t.Errorf("mean queue %.0f B, the fluid model's fixed point is %.0f B", got, want)
			}
			share := float64(bw) / float64(n)
			for i, r := range rates {
				if math.Abs(r/share-1) > 0.10 {
					t.Errorf("flow %d: %.3f Gbps, the fixed point's share is %.3f", i, r/1e9, share/1e9)
				}
			}
		})
	}
}

// hpccFork sets the options that run HPCC as the HPCC ns-3 fork: one T
// for every flow (6 us, the fork's on a 3-link dumbbell of 1 us links)
// and queues normalised by its window (18 KB, the papers').
func hpccFork(c *netcfg.Config) {
	c.HPCC.BaseRTTNanos, c.HPCC.QueueOverWindow, c.HPCC.WindowBytes = 6000, true, 18000
}

// HPCC keeps the bottleneck queue near zero and its utilisation near the
// target eta (it aims its inflight bytes at eta times the link's
// bandwidth-delay product), for eta at both ends of m3's range, as in its
// paper and with the fork's T and queue normalisation.
func TestHPCCQueueAndUtilisation(t *testing.T) {
	const t1, t2 = 10_000_000, 30_000_000 // ns
	for _, v := range []struct {
		name string
		set  func(*netcfg.Config)
	}{{"paper", func(*netcfg.Config) {}}, {"fork", hpccFork}} {
		for _, eta := range []float64{0.95, 0.7} {
			for _, n := range []int{2, 4} {
				t.Run(fmt.Sprintf("%s/eta%.2f/%dflows", v.name, eta, n), func(t *testing.T) {
					cfg := netcfg.Default()
					cfg.CC = "hpcc"
					cfg.HPCC.Eta = eta
					v.set(&cfg)
					st := steadyState(t, n, 10*topo.Gbps, cfg, t1, t2, 1, false)
					q99, qmax := st.queue[len(st.queue)*99/100], st.queue[len(st.queue)-1]
					t.Logf("utilisation %.4f, queue mean %.0f B p99 %.0f B max %.0f B, rates %.4g bps, Jain %.4f", st.util, mean(st.queue), q99, qmax, st.rates, jain(st.rates))
					if math.Abs(st.util-eta) > 0.03 {
						t.Errorf("utilisation %.4f, want eta %.2f within 0.03", st.util, eta)
					}
					if qmax > 5000 {
						t.Errorf("bottleneck queue reached %.0f B, want it under 5 KB", qmax)
					}
				})
			}
		}
	}
}

// TIMELY's RTTs stay below THigh once the flows have settled, and the
// flows keep probing up to TLow (they grow whenever the RTT is below it),
// for the paper's thresholds and m3's (50 us, 150 us). TIMELY does not
// hold the RTT inside the band: above TLow a rising RTT is cut at once,
// so the RTT spends most of its time below TLow (measured: median queue
// delay 1 us, 95th percentile 40 us).
func TestTIMELYRTT(t *testing.T) {
	const t1, t2 = 50_000_000, 100_000_000 // ns
	for _, perRTT := range []bool{false, true} {
		for _, th := range []int64{500_000, 150_000} {
			for _, n := range []int{2, 4} {
				t.Run(fmt.Sprintf("perRTT%v/thigh%dus/%dflows", perRTT, th/1000, n), func(t *testing.T) {
					cfg := netcfg.Default()
					cfg.CC = "timely"
					cfg.TIMELY.THighNanos = th
					cfg.TIMELY.PerRTT = perRTT
					st := steadyState(t, n, 10*topo.Gbps, cfg, t1, t2, 1, true)
					rtts := st.rtts
					slices := append([]int64(nil), rtts...)
					sort.Slice(slices, func(i, j int) bool { return slices[i] < slices[j] })
					lo, hi := slices[0], slices[len(slices)-1]
					t.Logf("%d RTTs %.1f-%.1f us (median %.1f), utilisation %.4f, rates %.4g bps", len(rtts), float64(lo)/1e6, float64(hi)/1e6, float64(slices[len(slices)/2])/1e6, st.util, st.rates)
					if hi > th*1000 {
						t.Errorf("an RTT of %.1f us exceeds THigh %d us", float64(hi)/1e6, th/1000)
					}
					if hi < cfg.TIMELY.TLowNanos*1000 {
						t.Errorf("RTTs stayed below %.1f us, under TLow %d us: the flows stopped probing", float64(hi)/1e6, cfg.TIMELY.TLowNanos/1000)
					}
					// The fork's rule cuts on a rising RTT every round trip
					// rather than every 16 KB, so it gives up more of the
					// link (measured: 0.83-0.88 against 0.93-0.96).
					if want := map[bool]float64{false: 0.9, true: 0.8}[perRTT]; st.util < want {
						t.Errorf("utilisation %.4f, want > %.1f", st.util, want)
					}
				})
			}
		}
	}
}

// Long flows share a bottleneck fairly: Jain's index of their rates is at
// least 0.99, for 2 and 4 flows. TIMELY as in its paper is left out: it
// has no unique fixed point (CoNEXT'16 "ECN or Delay", §4), and here two
// flows settle at 3.2 and 5.9 Gbps (Jain 0.92); under the fork's rule
// (PerRTT) they share. DCQCN shares under the fork's rules too.
func TestFairShare(t *testing.T) {
	const t1, t2 = 20_000_000, 60_000_000 // ns
	for _, cc := range []string{"dctcp", "dctcp-window", "dcqcn", "hpcc", "hpcc-fork", "timely-fork", "dcqcn-fork"} {
		for _, n := range []int{2, 4} {
			if cc == "dctcp-window" && n == 2 {
				continue // converges too slowly, see TestDCTCPLongFlows
			}
			t.Run(fmt.Sprintf("%s/%dflows", cc, n), func(t *testing.T) {
				cfg := netcfg.Default()
				cfg.CC = cc
				switch cc {
				case "hpcc-fork":
					cfg.CC = "hpcc"
					hpccFork(&cfg)
				case "timely-fork":
					cfg.CC, cfg.TIMELY.PerRTT = "timely", true
				case "dcqcn-fork":
					cfg.CC, cfg.DCQCN.DecreaseGrid, cfg.DCQCN.TimerOnly = "dcqcn", true, true
				}
				st := steadyState(t, n, 10*topo.Gbps, cfg, t1, t2, 1, false)
				j := jain(st.rates)
				t.Logf("rates %.4g bps, Jain %.4f, utilisation %.4f", st.rates, j, st.util)
				if j < 0.99 {
					t.Errorf("Jain's index %.4f, want >= 0.99", j)
				}
			})
		}
	}
}

// DCQCN's reaction point, event by event against values worked out by
// hand from the paper's rules: F = 2 fast-recovery events, then additive
// increase, then hyper increase once both counters pass F.
func TestDCQCNReactionPoint(t *testing.T) {
	cfg := netcfg.Default()
	d := cfg.DCQCN
	d.FastRecoverySteps = 2
	d.ByteCounterBytes = 1000
	d.AIRateBps, d.HAIRateBps = 100e6, 1e9
	d.G = 0.5
	cfg.DCQCN = d
	const us = 1_000_000 // ps
	c := NewDCQCN(cfg, 10e9).(*DCQCN)
	type step struct {
		name       string
		do         func()
		rc, rt, al float64 // want: current and target rate (Gbps), alpha
	}
	ack := func(now, acked int64, ece bool) func() {
		return func() { c.OnAck(Ack{Now: now * us, Acked: acked, ECE: ece}) }
	}
	steps := []step{
		{"unmarked ACKs before any CNP change nothing", ack(1, 5000, false), 10, 10, 1},
		// Cut by alpha/2 = 1/2; the target keeps the old rate.
		{"first CNP", ack(10, 0, true), 5, 10, 1},
		// Alpha timer (55 us after the first CNP) with a CNP seen:
		// (1-g) 1 + g = 1. Rate timer at 65 us: fast recovery 1.
		{"timers at 65 us", func() { c.Advance(65 * us) }, 7.5, 10, 1},
		// Next alpha tick at 120 us without a CNP: alpha 0.5. Rate
		// timer at 120 us: fast recovery 2 (timer count 2 = F: additive
		// from here; the alpha tick runs first at equal times).
		{"timers at 120 us", func() { c.Advance(120 * us) }, 8.75, 10, 0.5},
		// A second CNP: target = current, cut by alpha/2 = 1/4.
		{"second CNP", ack(121, 0, true), 6.5625, 8.75, 0.5},
		// Byte counter: 1000 B per event; 2 events = F fast recovery.
		{"two byte-counter events", ack(122, 2000, false), 8.203125, 8.75, 0.5},
		// Byte count 3 > F, timer 0 <= F: additive increase.
		{"third byte-counter event", ack(123, 1000, false), 8.5265625, 8.85, 0.5},
		// Alpha ticks at 175 (the CNP of 121 us: 0.75), 230 (0.375) and
		// 285 us (0.1875); rate timer events at 176 and 231 us (timer
		// counts 1 and 2, byte count 3): additive; at 286 us both counts
		// are 3, past F by 1: hyper, +1 Gbps, capped at line rate.
		{"three timer events", func() { c.Advance(286 * us) }, 9.4470703125, 10, 0.1875},
	}
	for _, s := range steps {
		s.do()
		if math.Abs(c.RateBps()/1e9-s.rc) > 1e-3 || math.Abs(c.TargetRateBps()/1e9-s.rt) > 1e-3 || math.Abs(c.Alpha()-s.al) > 1e-9 {
			t.Fatalf("%s: rate %.6g, target %.6g Gbps, alpha %g; want %.6g, %.6g, %g", s.name, c.RateBps()/1e9, c.TargetRateBps()/1e9, c.Alpha(), s.rc, s.rt, s.al)
		}
	}
}

// DCQCN under the fork's rules (DecreaseGrid, TimerOnly), event by event
// against values worked out by hand: the first CNP only starts the grid
// (50 us) and the alpha timer (55 us), a cut comes at a tick after a CNP,
// the byte counter is ignored, and after F = 2 fast-recovery events and
// one additive increase each timer event adds R_HAI (not i R_HAI).
func TestDCQCNForkRules(t *testing.T) {
	cfg := netcfg.Default()
	d := cfg.DCQCN
	d.FastRecoverySteps = 2
	d.ByteCounterBytes = 1000
	d.AIRateBps, d.HAIRateBps = 100e6, 1e9
	d.G = 0.5
	d.DecreaseGrid, d.TimerOnly = true, true
	cfg.DCQCN = d
	const us = 1_000_000 // ps
	c := NewDCQCN(cfg, 10e9).(*DCQCN)
	ack := func(now, acked int64, ece bool) func() {
		return func() { c.OnAck(Ack{Now: now * us, Acked: acked, ECE: ece}) }
	}
	at := func(now int64) func() { return func() { c.Advance(now * us) } }
	for _, s := range []struct {
		name       string
		do         func()
		rc, rt, al float64 // want: current and target rate (Gbps), alpha
	}{
		{"first CNP: no cut", ack(10, 0, true), 10, 10, 1},
		{"grid tick at 60 us: cut by alpha/2", at(60), 5, 10, 1},
		{"alpha tick at 65 us: the first CNP does not count", at(65), 5, 10, 0.5},
		{"second CNP waits for the grid", ack(70, 0, true), 5, 10, 0.5},
		{"acknowledged bytes are no increase events", ack(80, 100_000, false), 5, 10, 0.5},
		// The cut restarts the rate timer: no event at 115 us.
		{"grid tick at 110 us", at(110), 3.75, 5, 0.5},
		{"alpha tick at 120 us with the CNP of 70 us", at(120), 3.75, 5, 0.75},
		// Alpha at 175 us (0.375); rate timer at 165 and 220 us: fast
		// recovery twice; grid ticks at 160 and 210 us without a CNP.
		{"two fast-recovery events", at(220), 4.6875, 5, 0.375},
		{"third timer event: additive", at(275), 4.89375, 5.1, 0.1875},
		{"fourth: + R_HAI", at(330), 5.496875, 6.1, 0.09375},
		{"fifth: + R_HAI again", at(385), 6.2984375, 7.1, 0.046875},
	} {
		s.do()
		if math.Abs(c.RateBps()/1e9-s.rc) > 1e-9 || math.Abs(c.TargetRateBps()/1e9-s.rt) > 1e-9 || math.Abs(c.Alpha()-s.al) > 1e-12 {
			t.Fatalf("%s: rate %.9g, target %.9g Gbps, alpha %g; want %.9g, %.9g, %g", s.name, c.RateBps()/1e9, c.TargetRateBps()/1e9, c.Alpha(), s.rc, s.rt, s.al)
		}
	}
}

// The receiver echoes a mark at most once per CNP interval per flow, and
// DCQCN's RED marking draws from the run's seed only: equal seeds give
// equal records, other seeds other marks.
func TestDCQCNNotificationPoint(t *testing.T) {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 8, Receivers: 1})
	must(t, net, err)
	var flows []workload.Flow
	for i := 0; i < 8; i++ {
		flows = append(flows, workload.Flow{ID: i, Src: i, Dst: 8, Size: 2_000_000, Start: int64(i) * 1000})
	}
	cfg := netcfg.Default()
	cfg.CC = "dcqcn"
	run := func(seed uint64) (*Result, [][]int64) {
		cnps := make([][]int64, len(flows))
		i := 0
		opts := Options{Seed: seed, CC: func(c netcfg.Config, line int64) CC {
			k := i
			i++
			return &cnpRecorder{DCQCN: NewDCQCN(c, line).(*DCQCN), at: &cnps[k]}
		}}
		res, err := Run(context.Background(), net, flows, cfg, opts)
		if err != nil {
			t.Fatal(err)
		}
		return res, cnps
	}
	a, cnps := run(1)
	gap := cfg.DCQCN.CNPIntervalNanos * 1000
	var n int
	for f, at := range cnps {
		n += len(at)
		for i := 1; i < len(at); i++ {
			// ACKs of one flow may be reordered by nothing (one path,
			// FIFO ports), so echo times keep their spacing.
			if at[i]-at[i-1] < gap {
				t.Fatalf("flow %d: CNPs at %d and %d ps, closer than %d ps", f, at[i-1], at[i], gap)
			}
		}
	}
	if n == 0 || a.Marks <= int64(n) {
		t.Fatalf("%d marks, %d CNPs: an 8-way incast must mark more packets than it echoes", a.Marks, n)
	}
	t.Logf("%d marks, %d CNPs", a.Marks, n)
	b, _ := run(1)
	c, _ := run(2)
	if !sameRecords(a, b) {
		t.Error("two runs with seed 1 differ")
	}
	if a.Marks == c.Marks && sameRecords(a, c) {
		t.Error("seeds 1 and 2 gave the same marks and records")
	}
	// Under DecreaseGrid the sender paces its cuts: the receiver echoes
	// every mark (no loss here, so one ACK per marked packet).
	cfg.DCQCN.DecreaseGrid = true
	g, cnps := run(1)
	n = 0
	for _, at := range cnps {
		n += len(at)
	}
	if n == 0 || g.Marks != int64(n) {
		t.Errorf("decrease_grid: %d marks, %d CNPs; want every mark echoed", g.Marks, n)
	}
}

// cnpRecorder is DCQCN keeping the arrival times of CNPs.
type cnpRecorder struct {
	*DCQCN
	at *[]int64
}

func (c *cnpRecorder) OnAck(a Ack) {
	if a.ECE {
		*c.at = append(*c.at, a.Now)
	}
	c.DCQCN.OnAck(a)
}

func sameRecords(a, b *Result) bool {
	if len(a.Records) != len(b.Records) {
		return false
	}
	for i := range a.Records {
		if a.Records[i] != b.Records[i] {
			return false
		}
	}
	return true
}

// HPCC's ACKs carry one INT record per switch port of the data packet's
// path, in path order: the port's link rate, its transmitted bytes and
// departure times growing from ACK to ACK, and, for a lone flow paced at
// line rate, an empty queue and records one serialization apart.
func TestHPCCINT(t *testing.T) {
	pl, err := topo.ParkingLot(topo.ParkingLotSpec{Hops: 4})
	must(t, pl, err)
	cfg := netcfg.Default()
	cfg.CC = "hpcc"
	path, err := pl.Path(0, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	var acks [][]INTHop
	opts := Options{CC: func(c netcfg.Config, line int64) CC {
		return &intRecorder{HPCC: NewHPCC(c, line).(*HPCC), acks: &acks}
	}}
	flows := []workload.Flow{{ID: 0, Src: 0, Dst: 1, Size: 50_000}}
	if _, err := Run(context.Background(), pl, flows, cfg, opts); err != nil {
		t.Fatal(err)
	}
	if len(acks) != 50 {
		t.Fatalf("%d ACKs with INT, want 50", len(acks))
	}
	for i, hops := range acks {
		if len(hops) != len(path)-1 {
			t.Fatalf("ACK %d: %d INT records, the path has %d switch ports", i, len(hops), len(path)-1)
		}
		for h, r := range hops {
			if r.RateBps != pl.Channels[path[h+1]].Bandwidth || r.QueueBytes != 0 {
				t.Fatalf("ACK %d hop %d: %+v, want rate %d and an empty queue", i, h, r, pl.Channels[path[h+1]].Bandwidth)
			}
			if i > 0 {
				prev := acks[i-1][h]
				wire := r.TxBytes - prev.TxBytes
				if wire <= 0 || r.TimePs <= prev.TimePs {
					t.Fatalf("ACK %d hop %d: %+v does not advance from %+v", i, h, r, prev)
				}
				// A lone flow: the bytes between two records are one
				// data packet, and at line rate they leave one
				// serialization apart.
				if want := wire * psPerSecondBits / r.RateBps; i < 49 && r.TimePs-prev.TimePs != want {
					t.Fatalf("ACK %d hop %d: %d ps after the previous record, want %d", i, h, r.TimePs-prev.TimePs, want)
				}
			}
		}
	}
}

// intRecorder is HPCC keeping copies of the INT its ACKs bring.
type intRecorder struct {
	*HPCC
	acks *[][]INTHop
}

func (r *intRecorder) OnAckINT(a Ack, hops []INTHop) {
	*r.acks = append(*r.acks, append([]INTHop(nil), hops...))
	r.HPCC.OnAckINT(a, hops)
}

// TIMELY under the fork's rule (PerRTT), ACK by ACK against values worked
// out by hand: one sample per round trip (an ACK beyond the data sent at
// the last sample), increases below TLow counted towards hyperactive
// increase, which adds N delta from the (N+1)-th increase in a row on,
// and a cut above THigh that resets the count.
func TestTIMELYPerRTT(t *testing.T) {
	cfg := netcfg.Default()
	cfg.TIMELY.PerRTT = true
	c := NewTIMELY(cfg, 10*topo.Gbps)
	c.OnTimeout(0) // down to the 100 Mbps floor
	const us = 1_000_000
	for i, s := range []struct {
		ackSeq, nextSeq, rtt int64
		want                 float64
	}{
		{1000, 1500, 10 * us, 100e6}, // first sample: the RTT only
		{1400, 1600, 10 * us, 100e6}, // not beyond 1500: no sample
		{2000, 3000, 10 * us, 110e6}, // below TLow: +delta, 1 increase
		{3000, 4000, 10 * us, 110e6}, // not beyond 3000
		{3001, 4000, 10 * us, 120e6},
		{4001, 5000, 10 * us, 130e6},
		{5001, 6000, 10 * us, 140e6},
		{6001, 7000, 10 * us, 150e6}, // 5 increases in a row
		{7001, 8000, 10 * us, 200e6}, // the 6th: +N delta
		{8001, 9000, 600 * us, 200e6 * (1 - 0.8*(1-500.0/600))},
		{9001, 10000, 10 * us, 200e6*(1-0.8*(1-500.0/600)) + 10e6},
	} {
		c.OnAck(Ack{AckSeq: s.ackSeq, NextSeq: s.nextSeq, RTT: s.rtt})
		if got := c.RateBps(); math.Abs(got-s.want) > 1e-3 {
			t.Errorf("ACK %d (ack %d, rtt %d us): rate %.6g, want %.6g", i, s.ackSeq, s.rtt/us, got, s.want)
		}
	}
}

// HPCC's T and queue normalisation, on one ACK pair against values
// worked out by hand: a hop with 9000 B queued and half its 10 Gbps sent
// over 10 us (tau at least T, so U is this ACK's u). As in the paper, u
// = 9000 B / (B T) + 0.5 with T = 6 us: 1.7; under QueueOverWindow, the
// queue over the 18 KB window: 1.0. The rate is Rc eta / U + R_AI.
func TestHPCCBaseRTTAndQueueNorm(t *testing.T) {
	for _, c := range []struct {
		overWindow bool
		u          float64
	}{{false, 1.7}, {true, 1.0}} {
		cfg := netcfg.Default()
		cfg.HPCC.BaseRTTNanos, cfg.HPCC.WindowBytes, cfg.HPCC.QueueOverWindow = 6000, 18000, c.overWindow
		h := NewHPCC(cfg, 10*topo.Gbps).(*HPCC)
		h.SetBaseRTT(15_300_000) // the flow's own, overridden
		hop := INTHop{QueueBytes: 9000, TxBytes: 100_000, TimePs: 1_000_000, RateBps: 10 * topo.Gbps}
		h.OnAckINT(Ack{AckSeq: 1000, NextSeq: 5000}, []INTHop{hop})
		hop.TxBytes += 6250
		hop.TimePs += 10_000_000
		h.OnAckINT(Ack{AckSeq: 6000, NextSeq: 9000}, []INTHop{hop})
		want := 10e9*0.95/c.u + 50e6
		if math.Abs(h.Utilisation()-c.u) > 1e-9 || math.Abs(h.RateBps()-want) > 1e-3 {
			t.Errorf("queue_over_window %v: U %.6g, rate %.6g; want %.6g, %.6g", c.overWindow, h.Utilisation(), h.RateBps(), c.u, want)
		}
		if got, want := h.WindowBytes(), int64(18000*want/10e9); got != want {
			t.Errorf("queue_over_window %v: window %d, want %d", c.overWindow, got, want)
		}
	}
}

// A run under fork-hpcc resolves T on its network: the same records as
// with T spelled out, twice the dumbbell's longest host delay (6 us, the
// fork's maxRtt), and other records than with each flow's own T.
func TestHPCCNetworkBaseRTT(t *testing.T) {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 4, Receivers: 1})
	must(t, net, err)
	var flows []workload.Flow
	for i := 0; i < 4; i++ {
		flows = append(flows, workload.Flow{ID: i, Src: i, Dst: 4, Size: 300_000, Start: int64(i) * 2000})
	}
	fork, err := netcfg.Preset("fork-hpcc")
	if err != nil {
		t.Fatal(err)
	}
	run := func(cfg netcfg.Config) *Result {
		res, err := Run(context.Background(), net, flows, cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	spelled, own := fork, fork
	spelled.HPCC.BaseRTTNanos, own.HPCC.BaseRTTNanos = 6000, 0
	a := run(fork)
	if !sameRecords(a, run(spelled)) {
		t.Error("base_rtt_nanos -1 and 6000 gave different records on the dumbbell")
	}
	if sameRecords(a, run(own)) {
		t.Error("the network's T gave the records of each flow's own")
	}
}
