package cc

import (
	"math"

	"github.com/tailscope/tailscope/lib/netcfg"
)

// TIMELY is TIMELY's rate computation (Mittal et al., SIGCOMM'15,
// Algorithm 1). A flow starts at line rate. Each completion event (an
// ACK that completes SegmentBytes since the last one) takes the ACK's RTT
// as a sample: below TLow the rate grows by delta; above THigh it is cut
// to rate (1 - beta (1 - THigh/rtt)); in between the EWMA of RTT
// differences over MinRTT is the gradient: a non-positive gradient adds
// delta (N delta after HAISteps such events in a row, hyperactive
// increase), a positive one cuts the rate to rate (1 - beta gradient).
// With netcfg's PerRTT the samples come once per round trip and every
// increase counts towards hyperactive increase, as in the HPCC ns-3 fork.
type TIMELY struct {
	p                   netcfg.TIMELY
	rate, line, min     float64
	prevRTT             int64 // ps, 0 before the first sample
	rttDiff             float64
	incs                int64 // increases in a row (only at a non-positive gradient unless PerRTT)
	segEnd              int64 // payload bytes acknowledged that end the current segment (PerRTT: exceeded)
	window              int64
	tlow, thigh, minRTT float64 // ps
}

// NewTIMELY is the NewCC of TIMELY (netcfg CC "timely").
func NewTIMELY(cfg netcfg.Config, lineRateBps int64) CC {
	p := cfg.TIMELY
	line := float64(lineRateBps)
	w := p.WindowBytes
	if w == 0 {
		w = math.MaxInt64
	}
	seg := p.SegmentBytes
	if p.PerRTT {
		seg = 0
	}
	return &TIMELY{
		p: p, rate: line, line: line, min: min(float64(p.MinRateBps), line), segEnd: seg, window: w,
		tlow: float64(p.TLowNanos) * 1000, thigh: float64(p.THighNanos) * 1000, minRTT: float64(p.MinRTTNanos) * 1000,
	}
}

// RateBps implements CC.
func (t *TIMELY) RateBps() float64 { return t.rate }

// WindowBytes implements CC.
func (t *TIMELY) WindowBytes() int64 { return t.window }

// OnAck implements CC.
func (t *TIMELY) OnAck(a Ack) {
	if t.p.PerRTT {
		if a.AckSeq <= t.segEnd {
			return
		}
		t.segEnd = a.NextSeq
	} else {
		if a.AckSeq < t.segEnd {
			return
		}
		t.segEnd = a.AckSeq + t.p.SegmentBytes
	}
	if t.prevRTT == 0 {
		t.prevRTT = a.RTT
		return
	}
	t.rttDiff = (1-t.p.Alpha)*t.rttDiff + t.p.Alpha*float64(a.RTT-t.prevRTT)
	t.prevRTT = a.RTT
	rtt := float64(a.RTT)
	delta := float64(t.p.AIRateBps)
	switch gradient := t.rttDiff / t.minRTT; {
	case t.p.PerRTT && (rtt < t.tlow || rtt <= t.thigh && gradient <= 0):
		if t.incs >= t.p.HAISteps {
			delta *= float64(t.p.HAISteps)
		}
		t.rate += delta
		t.incs++
	case rtt < t.tlow:
		t.rate += delta
		t.incs = 0
	case rtt > t.thigh:
		t.rate *= 1 - t.p.Beta*(1-t.thigh/rtt)
		t.incs = 0
	case gradient <= 0:
		t.incs++
		if t.incs >= t.p.HAISteps {
			delta *= float64(t.p.HAISteps)
		}
		t.rate += delta
	default:
		t.rate *= max(1-t.p.Beta*gradient, 0)
		t.incs = 0
	}
	t.rate = min(max(t.rate, t.min), t.line)
}

// OnTimeout implements CC: the rate drops to its floor.
func (t *TIMELY) OnTimeout(now int64) { t.rate = t.min }
