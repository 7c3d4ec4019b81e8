package cc

import (
	"math"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
)

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

// Rate-based DCTCP follows the fork's DCTCP mode ACK by ACK: the first
// echo cuts the rate by alpha/2 at once and holds off further cuts until
// an ACK passes what had been sent at the cut; additive increase comes
// once per window of ACKs, never while a cut is held; alpha is left alone
// by the first window and then updated with the echoes of each window
// over the packets in flight when the previous one closed, plus one; under
// VarWin the window is WindowBytes scaled by rate/line rate. Expectations
// are computed here from those rules.
func TestDCTCPRateCutAndHold(t *testing.T) {
	for _, varWin := range []bool{false, true} {
		cfg := netcfg.Default()
		cfg.DCTCP.VarWin = varWin
		const line = 10e9
		d := MakeDCTCPRate(cfg, line)
		g, ai := cfg.DCTCP.G, float64(cfg.DCTCP.AIRateBps)
		alpha, rate := cfg.DCTCP.InitAlpha, line
		check := func(step string) {
			t.Helper()
			if math.Abs(d.Alpha()-alpha) > 1e-12 || math.Abs(d.RateBps()-rate) > 1e-3 {
				t.Fatalf("var_win %v, %s: alpha %g rate %g, want %g and %g", varWin, step, d.Alpha(), d.RateBps(), alpha, rate)
			}
			win := cfg.DCTCP.WindowBytes
			if varWin {
				win = int64(float64(win) * rate / line)
			}
			if d.WindowBytes() != win {
				t.Fatalf("var_win %v, %s: window %d, want %d", varWin, step, d.WindowBytes(), win)
			}
		}
		// The first ACK closes the first window: alpha stays, the batch
		// becomes 10000/1000+1 = 11 packets, the rate stays at line rate.
		d.OnAck(Ack{AckSeq: 1000, NextSeq: 10000})
		check("first window")
		// A marked ACK inside the next window cuts at once, by the alpha
		// of the moment.
		d.OnAck(Ack{AckSeq: 2000, NextSeq: 11000, ECE: true})
		rate *= 1 - alpha/2
		check("first echo")
		// More echoes up to the cut's sequence (11000) are held. The
		// last of them closes the window that ended at 10000 with 3
		// echoes over a batch of 11; the next batch is
		// (13000-11000)/1000+1 = 3.
		d.OnAck(Ack{AckSeq: 3000, NextSeq: 12000, ECE: true})
		check("held echo")
		d.OnAck(Ack{AckSeq: 11000, NextSeq: 13000, ECE: true})
		alpha = (1-g)*alpha + g*3/11
		check("window closed while held")
		// The next echo passes the hold's end and cuts again.
		d.OnAck(Ack{AckSeq: 12000, NextSeq: 14000, ECE: true})
		rate *= 1 - alpha/2
		check("second cut")
		// An unmarked ACK past the hold (14000) closes the window (ending
		// at 13000) with 1 echo over a batch of 3, and the rate grows by
		// AI.
		d.OnAck(Ack{AckSeq: 15000, NextSeq: 16000})
		alpha = (1-g)*alpha + g/3
		rate += ai
		check("additive increase")
	}
}
