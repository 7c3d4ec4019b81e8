package packetsim

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
type DCQCN struct {
	p                 netcfg.DCQCN
	rc, rt, line, min float64
	alpha             float64
	started           bool  // a CNP has come: timers run
	cnp               bool  // a CNP came in the current alpha interval
	alphaAt, rateAt   int64 // ps, next alpha update and rate timer expiry
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
	return &DCQCN{p: cfg.DCQCN, rc: line, rt: line, line: line, min: min(float64(cfg.DCQCN.MinRateBps), line), alpha: 1, window: w}
}

// RateBps implements CC.
func (d *DCQCN) RateBps() float64 { return d.rc }

// TargetRateBps is the rate the increase phases aim at.
func (d *DCQCN) TargetRateBps() float64 { return d.rt }

// Alpha is the current estimate of congestion.
func (d *DCQCN) Alpha() float64 { return d.alpha }

// WindowBytes implements CC.
func (d *DCQCN) WindowBytes() int64 { return d.window }

// Advance implements Clocked: it runs the alpha and rate timers that
// expired by now, in time order.
func (d *DCQCN) Advance(now int64) {
	for d.started {
		switch {
		case d.alphaAt <= now && d.alphaAt <= d.rateAt:
			d.alpha *= 1 - d.p.G
			if d.cnp {
				d.alpha += d.p.G
			}
			d.cnp = false
			d.alphaAt += d.p.AlphaTimerNanos * 1000
		case d.rateAt <= now:
			d.rateAt += d.p.RateTimerNanos * 1000
			d.timerN++
			d.increase()
		default:
			return
		}
	}
}

// increase is one increase event.
func (d *DCQCN) increase() {
	f := d.p.FastRecoverySteps
	switch {
	case d.timerN <= f && d.bytesN <= f: // fast recovery: the first F events
	case d.timerN > f && d.bytesN > f:
		d.rt += float64(min(d.timerN, d.bytesN)-f) * float64(d.p.HAIRateBps)
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
		if !d.started {
			d.started = true
			d.alphaAt = a.Now + d.p.AlphaTimerNanos*1000
		}
		d.cnp = true
		d.rt = d.rc
		d.rc = max(d.rc*(1-d.alpha/2), d.min)
		d.timerN, d.bytesN, d.bytes = 0, 0, 0
		d.rateAt = a.Now + d.p.RateTimerNanos*1000
		return
	}
	if !d.started {
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
