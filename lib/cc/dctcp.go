package cc

import "github.com/tailscope/tailscope/lib/netcfg"

// dctcpEstimator keeps DCTCP's alpha, the EWMA of the fraction of
// ECN-echoing ACKs, updated once per window of ACKs (about one RTT): the
// window closes when an ACK acknowledges what had been sent when it opened.
type dctcpEstimator struct {
	alpha, g  float64
	acks, ece int
	windowEnd int64
}

// observe counts one ACK and reports whether it closed a window, which
// updates alpha. It takes the ACK's fields, not the Ack: an Ack passed
// by value is copied from the stack in wide loads right after the caller
// stored it field by field, which stalls the store forwarding of every
// ACK (about 8% of linksim's time, perf).
func (d *dctcpEstimator) observe(ece bool, ackSeq, nextSeq int64) (closed bool) {
	d.acks++
	if ece {
		d.ece++
	}
	if ackSeq <= d.windowEnd {
		return false
	}
	d.alpha = (1-d.g)*d.alpha + d.g*float64(d.ece)/float64(d.acks)
	d.acks, d.ece = 0, 0
	d.windowEnd = nextSeq
	return true
}

// DCTCPRate is rate-based DCTCP as in the papers' ns-3 fork (REFERENCE.md,
// the fork's RdmaHw DCTCP mode): start at line rate; the first ECN echo
// cuts the rate by alpha/2 at once and holds further cuts until an ACK
// passes what had been sent at the cut (about one window); once per
// window of ACKs without a cut pending, add AIRateBps; never below
// MinRateBps or above line rate. The window caps the bytes in flight at
// WindowBytes, scaled by rate/line rate when VarWin is set. Alpha is
// counted as the fork counts it (forkAlpha).
type DCTCPRate struct {
	est               forkAlpha
	rate, line, floor float64
	ai                float64
	maxWindow, window int64 // window is maxWindow, scaled to the rate under varWin
	varWin            bool
	cwr               bool  // a cut is held
	recover           int64 // the hold ends when an ACK passes this sequence
}

// forkAlpha is the fork's estimate of the marked fraction: a window of
// ACKs closes when one passes what had been sent when the last closed;
// the first window only sets the batch size, and each later one updates
// alpha with the echoes counted since over the packets that were in
// flight when the previous window closed, plus one.
type forkAlpha struct {
	alpha, g   float64
	mss        int64
	ece, batch int64
	windowEnd  int64 // 0 before the first window closes
}

// observe counts one ACK and reports whether it closed a window (its
// fields, not the Ack, as dctcpEstimator.observe says why).
func (d *forkAlpha) observe(ece bool, ackSeq, nextSeq int64) (closed bool) {
	if ece {
		d.ece++
	}
	if ackSeq <= d.windowEnd {
		return false
	}
	if d.windowEnd > 0 {
		d.alpha = (1-d.g)*d.alpha + d.g*min(1, float64(d.ece)/float64(d.batch))
		d.ece = 0
		d.batch = (nextSeq-ackSeq)/d.mss + 1
	} else {
		d.batch = nextSeq/d.mss + 1
	}
	d.windowEnd = nextSeq
	return true
}

// NewDCTCPRate is the NewCC of rate-based DCTCP (netcfg CC "dctcp").
func NewDCTCPRate(cfg netcfg.Config, lineRateBps int64) CC {
	d := MakeDCTCPRate(cfg, lineRateBps)
	return &d
}

// MakeDCTCPRate is a rate-based DCTCP controller as a value, which the
// simulators (packetsim, linksim) keep inline in their per-flow state to
// skip the interface call and an allocation per flow.
func MakeDCTCPRate(cfg netcfg.Config, lineRateBps int64) DCTCPRate {
	line := float64(lineRateBps)
	return DCTCPRate{
		est:       forkAlpha{alpha: cfg.DCTCP.InitAlpha, g: cfg.DCTCP.G, mss: cfg.PayloadBytes},
		rate:      line,
		line:      line,
		floor:     min(float64(cfg.DCTCP.MinRateBps), line),
		ai:        float64(cfg.DCTCP.AIRateBps),
		maxWindow: cfg.DCTCP.WindowBytes,
		window:    cfg.DCTCP.WindowBytes,
		varWin:    cfg.DCTCP.VarWin,
	}
}

// RateBps implements CC.
func (d *DCTCPRate) RateBps() float64 { return d.rate }

// WindowBytes implements CC.
func (d *DCTCPRate) WindowBytes() int64 { return d.window }

// Alpha is the current estimate of the marked fraction.
func (d *DCTCPRate) Alpha() float64 { return d.est.alpha }

// OnAck implements CC.
func (d *DCTCPRate) OnAck(a Ack) {
	closed := d.est.observe(a.ECE, a.AckSeq, a.NextSeq)
	if d.cwr && a.AckSeq > d.recover {
		d.cwr = false
	}
	switch {
	case d.cwr:
		return
	case a.ECE:
		d.setRate(max(d.rate*(1-d.est.alpha/2), d.floor))
		d.cwr, d.recover = true, a.NextSeq
	case closed:
		d.setRate(min(d.rate+d.ai, d.line))
	}
}

// setRate changes the rate and the window that follows it.
func (d *DCTCPRate) setRate(r float64) {
	d.rate = r
	if d.varWin {
		// As the fork: an integer window, never closed entirely.
		d.window = max(int64(float64(d.maxWindow)*r/d.line), 1)
	}
}

// OnTimeout implements CC: the sender restarts from the minimum rate.
func (d *DCTCPRate) OnTimeout(now int64) {
	d.setRate(d.floor)
	d.cwr = false
}

// DCTCPWindow is window-based DCTCP like ns-3's TcpDctcp over
// TcpSocketBase (and Linux): slow start from InitWindow packets,
// congestion avoidance of one packet per window, and a one-packet window
// after a timeout. The first ECN echo of a window cuts the window at once
// to cwnd(1 - alpha/2) (at least two packets) and enters CWR: until
// everything sent before the cut is acknowledged the window neither grows
// nor is cut again. Alpha is updated once per window of ACKs. It sends at
// line rate within its window. With finite buffers the simulator adds
// stock TCP's loss recovery around it (SACK, fast retransmit, PRR, RTO
// backoff; see tcp.go), which cuts the window with the same formula.
type DCTCPWindow struct {
	est            dctcpEstimator
	cwnd, ssthresh float64
	mss, line      float64
	cwr            bool  // in CWR after a cut
	recover        int64 // CWR ends when an ACK reaches this sequence
}

// NewDCTCPWindow is the NewCC of window-based DCTCP (netcfg CC
// "dctcp-window").
func NewDCTCPWindow(cfg netcfg.Config, lineRateBps int64) CC {
	mss := float64(cfg.PayloadBytes)
	return &DCTCPWindow{
		est:      dctcpEstimator{alpha: cfg.DCTCP.InitAlpha, g: cfg.DCTCP.G},
		cwnd:     float64(max(cfg.DCTCP.InitWindow, 1)) * mss,
		ssthresh: 1e18,
		mss:      mss,
		line:     float64(lineRateBps),
	}
}

// RateBps implements CC.
func (d *DCTCPWindow) RateBps() float64 { return d.line }

// WindowBytes implements CC.
func (d *DCTCPWindow) WindowBytes() int64 { return int64(d.cwnd) }

// OnAck implements CC.
func (d *DCTCPWindow) OnAck(a Ack) {
	d.est.observe(a.ECE, a.AckSeq, a.NextSeq)
	if d.cwr && a.AckSeq >= d.recover {
		d.cwr = false
	}
	switch {
	case d.cwr:
	case a.ECE:
		// Reacting to the first echo rather than at the end of the
		// window is what ns-3 and Linux do; waiting a window lets the
		// queue grow by a window's worth of slow start.
		d.cwnd = d.cut()
		d.ssthresh = d.cwnd
		d.cwr, d.recover = true, a.NextSeq
	default:
		d.grow(a.Acked)
	}
}

// cut is the window after a congestion signal, an ECN echo or a loss:
// cwnd(1 - alpha/2) as ns-3's TcpDctcp::GetSsThresh, at least two
// packets as Linux's dctcp_ssthresh.
func (d *DCTCPWindow) cut() float64 {
	return max(d.cwnd*(1-d.est.alpha/2), 2*d.mss)
}

// grow opens the window for acked newly acknowledged bytes: slow start
// up to ssthresh, congestion avoidance above, with what slow start
// leaves over (ns-3's TcpLinuxReno). An ACK acknowledges one packet
// unless a loss was repaired, so only then does the split matter.
func (d *DCTCPWindow) grow(acked int64) {
	a := float64(acked)
	if d.cwnd < d.ssthresh {
		if d.cwnd+a <= d.ssthresh {
			d.cwnd += a
			return
		}
		a -= d.ssthresh - d.cwnd
		d.cwnd = d.ssthresh
	}
	d.cwnd += d.mss * a / d.cwnd
}

// The methods below are the hooks of stock TCP's loss recovery, which
// the simulator runs around the controller when buffers are finite: it
// counts ACKs towards alpha without reacting to them while it recovers,
// and sets the window and slow-start threshold by its own rules (fast
// retransmit, proportional rate reduction).

// Observe counts an ACK towards alpha only, without reacting to it.
func (d *DCTCPWindow) Observe(a Ack) { d.est.observe(a.ECE, a.AckSeq, a.NextSeq) }

// InCWR reports whether the controller holds a cut (CWR): until
// everything sent before it is acknowledged, no further cut and no
// recovery.
func (d *DCTCPWindow) InCWR() bool { return d.cwr }

// Cut is the window after a congestion signal, an ECN echo or a loss,
// in bytes.
func (d *DCTCPWindow) Cut() float64 { return d.cut() }

// Grow opens the window for acked newly acknowledged bytes, as an ACK
// outside CWR does.
func (d *DCTCPWindow) Grow(acked int64) { d.grow(acked) }

// Window is the congestion window in bytes, unrounded.
func (d *DCTCPWindow) Window() float64 { return d.cwnd }

// SetWindow sets the congestion window, in bytes.
func (d *DCTCPWindow) SetWindow(bytes float64) { d.cwnd = bytes }

// SlowStartThreshold is ssthresh in bytes.
func (d *DCTCPWindow) SlowStartThreshold() float64 { return d.ssthresh }

// SetSlowStartThreshold sets ssthresh, in bytes.
func (d *DCTCPWindow) SetSlowStartThreshold(bytes float64) { d.ssthresh = bytes }

// OnTimeout implements CC: ssthresh takes the cut window, as in ns-3
// (TcpDctcp's GetSsThresh at a retransmission timeout), and the window
// restarts from one packet.
func (d *DCTCPWindow) OnTimeout(now int64) {
	d.ssthresh = d.cut()
	d.cwnd = d.mss
	d.cwr = false
}
