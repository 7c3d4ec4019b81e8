package packetsim

import (
	"context"
	"fmt"
	"math"
	"sort"
	"testing"

	"github.com/tailscope/tailscope/lib/cc"
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
		inner, err := cc.ByName(cfg.CC)
		if err != nil {
			t.Fatal(err)
		}
		opts.CC = func(c netcfg.Config, line int64) cc.CC {
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
	cc.CC
	from int64
	rtts *[]int64
}

func (r *rttRecorder) OnAck(a cc.Ack) {
	if a.Now >= r.from {
		*r.rtts = append(*r.rtts, a.RTT)
	}
	r.CC.OnAck(a)
}

func (r *rttRecorder) OnAckINT(a cc.Ack, hops []cc.INTHop) {
	if a.Now >= r.from {
		*r.rtts = append(*r.rtts, a.RTT)
	}
	if i, ok := r.CC.(cc.INTReader); ok {
		i.OnAckINT(a, hops)
	} else {
		r.CC.OnAck(a)
	}
}

func (r *rttRecorder) Advance(now int64) {
	if c, ok := r.CC.(cc.Clocked); ok {
		c.Advance(now)
	}
}

func (r *rttRecorder) SetBaseRTT(ps int64) {
	if b, ok := r.CC.(cc.BaseRTTSetter); ok {
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
		opts := Options{Seed: seed, CC: func(c netcfg.Config, line int64) cc.CC {
			k := i
			i++
			return &cnpRecorder{DCQCN: cc.NewDCQCN(c, line).(*cc.DCQCN), at: &cnps[k]}
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
	*cc.DCQCN
	at *[]int64
}

func (c *cnpRecorder) OnAck(a cc.Ack) {
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
	var acks []intAck
	flows := []workload.Flow{{ID: 0, Src: 0, Dst: 1, Size: 50_000}}
	if _, err := Run(context.Background(), pl, flows, cfg, recordINT(&acks)); err != nil {
		t.Fatal(err)
	}
	if len(acks) != 50 {
		t.Fatalf("%d ACKs with INT, want 50", len(acks))
	}
	for i, ack := range acks {
		hops := ack.hops
		if len(hops) != len(path)-1 {
			t.Fatalf("ACK %d: %d INT records, the path has %d switch ports", i, len(hops), len(path)-1)
		}
		for h, r := range hops {
			if r.RateBps != pl.Channels[path[h+1]].Bandwidth || r.QueueBytes != 0 {
				t.Fatalf("ACK %d hop %d: %+v, want rate %d and an empty queue", i, h, r, pl.Channels[path[h+1]].Bandwidth)
			}
			if i > 0 {
				prev := acks[i-1].hops[h]
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

// Over a buffer that loses packets, every ACK, duplicates and those of
// resent packets among them, brings the INT records of the very
// transmission it answers: stamped by each switch port of its path in
// turn, a propagation delay apart at least, after it was sent and
// before the ACK arrived. The same holds at two workers, whose records
// are one worker's.
func TestHPCCINTLossy(t *testing.T) {
	net, flows := dumbbellFlows(t, 4, 1, 60)
	cfg := preset(t, "hpcc", func(c *netcfg.Config) { c.BufferBytes, c.DCTCP.MinRTONanos = 3_000, 100_000 })
	var acks []intAck
	one, err := Run(context.Background(), net, flows, cfg, recordINT(&acks))
	if err != nil {
		t.Fatal(err)
	}
	if one.Drops == 0 || one.Retransmits == 0 {
		t.Fatalf("%d drops, %d packets resent: the buffer should lose packets", one.Drops, one.Retransmits)
	}
	delay := net.Channels[0].Delay * 1000 // ps, as every link's
	for _, c := range net.Channels {
		if c.Delay*1000 != delay {
			t.Fatalf("channel %d has delay %d ns, channel 0 %d: the test wants one delay", c.ID, c.Delay, delay/1000)
		}
	}
	dups := 0
	for i, ack := range acks {
		sent := ack.a.Now - ack.a.RTT
		if ack.a.Acked == 0 {
			dups++
		}
		at := sent
		for h, r := range ack.hops {
			if min := at + delay; r.TimePs <= min {
				t.Fatalf("ACK %d (%+v): hop %d stamped at %d ps, not after %d: records of another transmission", i, ack.a, h, r.TimePs, min)
			}
			at = r.TimePs
		}
		if at >= ack.a.Now {
			t.Fatalf("ACK %d (%+v): last INT record at %d ps, after the ACK came back", i, ack.a, at)
		}
	}
	if dups == 0 {
		t.Fatal("no duplicate ACKs: the test should see go-back-N")
	}
	two, err := Run(context.Background(), net, flows, cfg, Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	base, err := Run(context.Background(), net, flows, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !sameRecords(base, two) {
		t.Error("two workers gave other records than one")
	}
	t.Logf("%d ACKs, %d duplicates, %d drops, %d resent", len(acks), dups, one.Drops, one.Retransmits)
}

// intAck is an ACK HPCC received and the INT records it brought.
type intAck struct {
	a    cc.Ack
	hops []cc.INTHop
}

// recordINT is Options running HPCC that appends every ACK it gets to
// acks.
func recordINT(acks *[]intAck) Options {
	return Options{CC: func(c netcfg.Config, line int64) cc.CC {
		return &intRecorder{HPCC: cc.NewHPCC(c, line).(*cc.HPCC), acks: acks}
	}}
}

// intRecorder is HPCC keeping copies of the ACKs it gets.
type intRecorder struct {
	*cc.HPCC
	acks *[]intAck
}

func (r *intRecorder) OnAckINT(a cc.Ack, hops []cc.INTHop) {
	*r.acks = append(*r.acks, intAck{a, append([]cc.INTHop(nil), hops...)})
	r.HPCC.OnAckINT(a, hops)
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

// Growing a flow's INT rings keeps every live transmission's records
// and finds them where the larger ring puts them, and drops the ended.
func TestGrowINT(t *testing.T) {
	const hops = 2
	x := flowExt{ints: make([]cc.INTHop, 4*hops), sent: make([]sentTx, 4), intMask: 3, hops: hops}
	for tx := uint32(4); tx < 8; tx++ { // 4 has ended, 5-7 are in flight
		i := int(tx & 3)
		x.sent[i] = sentTx{at: int64(tx) * 10, tx: tx, live: tx > 4}
		for h := range hops {
			x.ints[i*hops+h] = cc.INTHop{TxBytes: int64(tx), TimePs: int64(h)}
		}
	}
	growINT(&x)
	if len(x.sent) != 8 || len(x.ints) != 8*hops || x.intMask != 7 {
		t.Fatalf("grown to %d transmissions, %d records, mask %d; want 8, %d, 7", len(x.sent), len(x.ints), x.intMask, 8*hops)
	}
	for i, e := range x.sent {
		want := sentTx{}
		if tx := uint32(i); tx >= 5 && tx <= 7 {
			want = sentTx{at: int64(tx) * 10, tx: tx, live: true}
		}
		if e != want {
			t.Errorf("entry %d is %+v, want %+v", i, e, want)
		}
		for h := range hops {
			r := x.ints[i*hops+h]
			if want.live && (r.TxBytes != int64(want.tx) || r.TimePs != int64(h)) || !want.live && r != (cc.INTHop{}) {
				t.Errorf("entry %d hop %d holds %+v", i, h, r)
			}
		}
	}
}
