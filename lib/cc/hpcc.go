package cc

import (
	"github.com/tailscope/tailscope/lib/netcfg"
)

const psPerSecondBits = 8_000_000_000_000 // ps per second times bits per byte

// HPCC is HPCC's sender (Li et al., SIGCOMM'19, Algorithm 1), kept as a
// rate R = W/T like the HPCC ns-3 fork. Every ACK brings the INT records
// of the switch ports its data packet crossed; per hop the normalised
// inflight is u = min(qlen, last qlen)/(B T) + txRate/B, with txRate the
// bytes the port sent between the two records over their time apart; the
// largest u, smoothed as U = (1 - tau/T) U + (tau/T) u, drives the rate:
// at U >= eta (or after MaxStage additive steps) R = Rc/(U/eta) + R_AI,
// else R = Rc + R_AI. The reference rate Rc advances once per RTT (the
// first ACK beyond what was sent at the last advance); the ACKs in
// between react from it without moving it. The window is WindowBytes
// scaled by R over line rate; by default one bandwidth-delay product.
// netcfg's BaseRTTNanos fixes T for every flow and QueueOverWindow
// normalises queues by the window, as the fork does.
type HPCC struct {
	p             netcfg.HPCC
	rate, rc      float64 // current and reference rate, bps
	line, min, ai float64
	u             float64
	stage         int64
	lastUpdate    int64 // payload sequence of the last reference update
	last          []INTHop
	t             float64 // base RTT, ps
	window        float64 // at line rate, bytes
	qnum, qden    float64 // a hop's u per queued byte is qnum / (its rate in bps x qden)
}

// NewHPCC is the NewCC of HPCC (netcfg CC "hpcc"). Its base RTT comes
// from SetBaseRTT.
func NewHPCC(cfg netcfg.Config, lineRateBps int64) CC {
	line := float64(lineRateBps)
	return &HPCC{p: cfg.HPCC, rate: line, rc: line, line: line, min: min(float64(cfg.HPCC.MinRateBps), line),
		ai: float64(cfg.HPCC.AIRateBps), window: float64(cfg.HPCC.WindowBytes)}
}

// SetBaseRTT implements BaseRTTSetter: T, unless netcfg fixes it, and
// the default window B T.
func (h *HPCC) SetBaseRTT(ps int64) {
	h.t = float64(ps)
	if h.p.BaseRTTNanos > 0 {
		h.t = float64(h.p.BaseRTTNanos) * 1000
	}
	if h.p.WindowBytes == 0 {
		h.window = h.line * h.t / psPerSecondBits
	}
	// qlen / (B T) with T in ps; or qlen x line / (B W), W in bytes.
	h.qnum, h.qden = psPerSecondBits, h.t
	if h.p.QueueOverWindow {
		h.qnum, h.qden = h.line, h.window
	}
}

// RateBps implements CC.
func (h *HPCC) RateBps() float64 { return h.rate }

// WindowBytes implements CC.
func (h *HPCC) WindowBytes() int64 { return int64(h.window * h.rate / h.line) }

// Utilisation is the smoothed normalised inflight U.
func (h *HPCC) Utilisation() float64 { return h.u }

// OnAck implements CC: without INT, HPCC has nothing to go by.
func (h *HPCC) OnAck(a Ack) {}

// OnAckINT implements INTReader.
func (h *HPCC) OnAckINT(a Ack, hops []INTHop) {
	if len(hops) == 0 {
		return
	}
	if h.last == nil {
		h.last = append([]INTHop(nil), hops...)
		h.lastUpdate = a.NextSeq
		return
	}
	var umax, tau float64
	for i, l := range hops {
		old := h.last[i]
		dt := float64(l.TimePs - old.TimePs)
		if dt <= 0 {
			continue
		}
		b := float64(l.RateBps)
		tx := float64(l.TxBytes-old.TxBytes) * psPerSecondBits / dt
		u := float64(min(l.QueueBytes, old.QueueBytes))*h.qnum/(b*h.qden) + tx/b
		if u > umax {
			umax, tau = u, dt
		}
	}
	copy(h.last, hops)
	if tau == 0 {
		return
	}
	tau = min(tau, h.t)
	h.u = (1-tau/h.t)*h.u + tau/h.t*umax
	update := a.AckSeq > h.lastUpdate
	rate, stage := h.rc+h.ai, h.stage+1
	if h.u >= h.p.Eta || h.stage >= h.p.MaxStage {
		rate, stage = h.rc/(h.u/h.p.Eta)+h.ai, 0
	}
	h.rate = min(max(rate, h.min), h.line)
	if update {
		h.rc, h.stage = h.rate, stage
		h.lastUpdate = a.NextSeq
	}
}

// OnTimeout implements CC: the rate drops to its floor.
func (h *HPCC) OnTimeout(now int64) { h.rate, h.rc = h.min, h.min }
