package cc

import (
	"math"

	"github.com/tailscope/tailscope/lib/netcfg"
)

// DCQCN is the reaction point of DCQCN (Zhu et al., SIGCOMM'15, §3.1 and
// Fig. 5): a flow starts at line rate; each CNP (an ACK with ECE: the
// simulator's receiver echoes marks at most once per CNP interval per
// flow) sets the target rate to the current rate, cuts the current rate
// by alpha/2 and restarts the increase counters. Alpha is updated on a
// grid of AlphaTimer from the first CNP: alpha = (1-g) alpha + g if a CNP
// came in the interval, else (1-g) alpha (the fluid model's
// dalpha/dt = g/tau' (1-(1-p)^(tau' R) - alpha)). The rate timer T and the
// byte counter B (bytes acknowledged, one RTT behind the bytes sent)
// count increase events; after each the current rate moves halfway to
// the target, which first stays put (fast recovery: the first F events of
// both counts, as the fork's FAST_RECOVERY_TIMES), then grows by R_AI
// (additive increase, once either count passes F) and by i R_HAI once
// both pass F by i (hyper increase).
//
// Under netcfg's DecreaseGrid and TimerOnly it runs the HPCC ns-3 fork's
// Mellanox-style rules instead: cuts on a grid of the CNP interval at the
// sender, and increase events from the rate timer alone.
type DCQCN struct {
	p                 netcfg.DCQCN
	rc, rt, line, min float64
	alpha             float64
	started           bool  // a CNP has come: timers run
	cnp               bool  // a CNP came in the current alpha interval
	cut               bool  // DecreaseGrid: a CNP came since the last grid tick
	alphaAt, rateAt   int64 // ps, next alpha update and rate timer expiry
	cutAt             int64 // ps, DecreaseGrid: next grid tick
	timerN, bytesN    int64 // increase events by the timer and by the byte counter since the last cut
	bytes             int64 // bytes acknowledged towards the byte counter
	window            int64
}

// NewDCQCN is the NewCC of DCQCN (netcfg CC "dcqcn").
func NewDCQCN(cfg netcfg.Config, lineRateBps int64) CC {
	line := float64(lineRateBps)
	w := cfg.DCQCN.WindowBytes
	if w == 0 {
		w = math.MaxInt64
	}
	return &DCQCN{p: cfg.DCQCN, rc: line, rt: line, line: line, min: min(float64(cfg.DCQCN.MinRateBps), line), alpha: 1, window: w,
		rateAt: math.MaxInt64, cutAt: math.MaxInt64}
}

// RateBps implements CC.
func (d *DCQCN) RateBps() float64 { return d.rc }

// TargetRateBps is the rate the increase phases aim at.
func (d *DCQCN) TargetRateBps() float64 { return d.rt }

// Alpha is the current estimate of congestion.
func (d *DCQCN) Alpha() float64 { return d.alpha }

// WindowBytes implements CC.
func (d *DCQCN) WindowBytes() int64 { return d.window }

// Advance implements Clocked: it runs the alpha and rate timers (and
// under DecreaseGrid the grid of cuts) that expired by now, in time
// order; at equal times alpha first, then the cut, as the fork.
func (d *DCQCN) Advance(now int64) {
	for d.started {
		switch {
		case d.alphaAt <= now && d.alphaAt <= d.rateAt && d.alphaAt <= d.cutAt:
			d.alpha *= 1 - d.p.G
			if d.cnp {
				d.alpha += d.p.G
			}
			d.cnp = false
			d.alphaAt += d.p.AlphaTimerNanos * 1000
		case d.cutAt <= now && d.cutAt <= d.rateAt:
			t := d.cutAt
			d.cutAt += d.p.CNPIntervalNanos * 1000
			if d.cut {
				d.cut = false
				d.decrease(t)
			}
		case d.rateAt <= now:
			d.rateAt += d.p.RateTimerNanos * 1000
			d.timerN++
			d.increase()
		default:
			return
		}
	}
}

// decrease is a cut at time now: the target takes the current rate,
// which drops by alpha/2, and the increase counters and the rate timer
// start over.
func (d *DCQCN) decrease(now int64) {
	d.rt = d.rc
	d.rc = max(d.rc*(1-d.alpha/2), d.min)
	d.timerN, d.bytesN, d.bytes = 0, 0, 0
	d.rateAt = now + d.p.RateTimerNanos*1000
}

// increase is one increase event.
func (d *DCQCN) increase() {
	f := d.p.FastRecoverySteps
	switch t, b := d.timerN, d.bytesN; {
	case t <= f && b <= f: // fast recovery: the first F events
	case d.p.TimerOnly && t > f+1: // the fork: R_HAI per event after one additive
		d.rt += float64(d.p.HAIRateBps)
	case !d.p.TimerOnly && t > f && b > f:
		d.rt += float64(min(t, b)-f) * float64(d.p.HAIRateBps)
	default:
		d.rt += float64(d.p.AIRateBps)
	}
	d.rt = min(d.rt, d.line)
	d.rc = (d.rc + d.rt) / 2
}

// OnAck implements CC.
func (d *DCQCN) OnAck(a Ack) {
	d.Advance(a.Now)
	if a.ECE {
		first := !d.started
		if first {
			d.started = true
			d.alphaAt = a.Now + d.p.AlphaTimerNanos*1000
		}
		if !d.p.DecreaseGrid {
			d.cnp = true
			d.decrease(a.Now)
			return
		}
		if first {
			// The fork: the first CNP starts the grid and clamps the
			// target; the cut it asks for comes at the first tick.
			d.cutAt = a.Now + d.p.CNPIntervalNanos*1000
			d.rt = d.rc
		} else {
			d.cnp = true
		}
		d.cut = true
		return
	}
	if !d.started || d.p.TimerOnly {
		return
	}
	d.bytes += a.Acked
	for d.bytes >= d.p.ByteCounterBytes {
		d.bytes -= d.p.ByteCounterBytes
		d.bytesN++
		d.increase()
	}
}

// OnTimeout implements CC: the rate drops to its floor.
func (d *DCQCN) OnTimeout(now int64) {
	d.Advance(now)
	d.rc = d.min
}
