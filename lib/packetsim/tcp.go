package packetsim

import (
	"math/bits"

	"github.com/tailscope/tailscope/lib/cc"
)

// Stock TCP's loss recovery, for the window DCTCP that models ns-3's
// TcpDctcp (netcfg CC "dctcp-window") when buffers are finite. The
// rate-based algorithms model RDMA NICs, whose recovery is go-back-N, and
// keep the simulator's default path (onData's NACK, timeout's rewind).
//
// It follows ns-3 3.37's TcpSocketBase with its defaults (SACK on,
// ReTxThreshold 3, TcpPrrRecovery, which tailscope's ns-3 program does
// not change), as RFC 6675 describes it:
//
//   - The receiver holds out-of-order packets and answers every data
//     packet with the cumulative ACK; an ACK for a packet held out of
//     order also reports that packet (the first SACK block of RFC 2018,
//     carried in the ACK's echo field). The sender keeps a scoreboard of
//     the reported packets.
//   - A packet not reported is lost when three reported packets lie above
//     it (RFC 6675's IsLost with DupThresh 3), or, after a timeout, when
//     it had been sent before. Lost packets are resent, lowest first and
//     each once, before new data, whenever the pipe (packets in flight by
//     RFC 6675's SetPipe: sent, neither acknowledged, reported nor lost,
//     plus those resent) is below the window.
//   - A duplicate ACK is one that reports a new packet. The third in a
//     row, or a lost head, enters fast recovery: ssthresh takes DCTCP's
//     cut (cc.DCTCPWindow.Cut, ns-3's TcpDctcp::GetSsThresh), the head is
//     resent at once, and PRR (RFC 6937, slow-start reduction bound,
//     ns-3's default) sets the window on every ACK until one
//     acknowledges everything sent before recovery began; then the
//     window is ssthresh. A partial ACK resends the lowest lost packet at
//     once. As in ns-3, a sender in CWR after an ECN echo does not enter
//     recovery (its window was cut for this window of data already), and
//     no recovery begins before the previous one's recovery point is
//     acknowledged.
//   - The retransmission timer runs while data is unacknowledged; it is
//     restarted by ACKs of new data (in recovery by the first partial
//     ACK only) and set to the minimum RTO then, and doubled at each
//     expiry (ns-3's RTO is max(srtt + 4 rttvar, MinRto), which with a
//     1 ms minimum and microsecond RTTs is the minimum). At expiry
//     ssthresh takes DCTCP's cut (once per loss episode), the window
//     restarts from one packet, every unreported packet sent counts as
//     lost, and slow start resends them.
//   - The window in CWR after an ECN echo is the controller's (cut at
//     once), where ns-3 lets PRR bring it down; infinite-buffer runs
//     depend on that and keep it.
//
// Simplified: an ACK reports only the packet it answers, so a lost ACK
// loses its report (TCP repeats the last three blocks); DeliveredData is
// counted in whole packets; PRR sends whole packets; an ECN echo during
// recovery or after a timeout does not cut the window again (ns-3 would
// enter CWR and cut once more); a packet resent by NextSeg's rule 3
// counts once in the pipe, not twice; RFC 6675's rescue retransmission
// (rule 4) is left out, as in ns-3.

const (
	// dupThresh is ns-3's ReTxThreshold.
	dupThresh = 3
	// maxRTO caps the backed-off timeout, ps (ns-3: 60 s).
	maxRTO = 60_000_000_000_000
)

// Congestion states of stock TCP's loss recovery (CWR is the
// controller's own).
const (
	tcpOpen     uint8 = iota
	tcpDisorder       // duplicate ACKs, not yet recovering
	tcpRecovery       // fast recovery
	tcpLoss           // after a timeout
)

// tcpFlow is one flow's stock TCP state beyond the flow slot.
type tcpFlow struct {
	cc *cc.DCTCPWindow
	// rcvd (receiver): packets held out of order; sacked (sender):
	// packets the receiver reported holding. Bit p is packet p; both
	// are empty until needed.
	rcvd, sacked bitset
	nsacked      int32            // reported packets at or above sndUna
	top          [dupThresh]int32 // the highest reported packets, descending, -1 for none
	state        uint8
	force        bool // send the lowest lost packet now, whatever the window
	firstPartial bool // the next partial ACK in recovery restarts the timer
	// recoverActive: recover is the recovery point of a recovery or
	// timeout whose data is not all acknowledged yet.
	recoverActive bool
	dupAcks       int32
	recover       int32 // maxSent when the recovery or timeout began
	// Every unreported packet from sndUna up to highRxt has been resent
	// since the last timeout (highRxt < sndUna: none); below lostBelow
	// every unreported packet counts as lost.
	highRxt, lostBelow              int32
	prrDelivered, prrOut, recoverFS int64 // PRR, bytes
	rto                             int64 // ps, the current timeout
	timerAt                         int64 // ps, when the timer expires; 0 if stopped
	evAt                            int64 // ps, the pending evRTO the timer relies on; -1 if none
	events                          int32 // evRTO events pending
}

// lostFrontier is the packet below which every unreported packet is lost.
func (t *tcpFlow) lostFrontier() int32 {
	return max(t.lostBelow, t.top[dupThresh-1])
}

// report records that the receiver holds packet p.
func (t *tcpFlow) report(p int32, npkts int32) {
	t.sacked.grow(npkts)
	t.sacked.set(p)
	t.nsacked++
	for i := range t.top {
		if p > t.top[i] {
			copy(t.top[i+1:], t.top[i:dupThresh-1])
			t.top[i] = p
			return
		}
	}
}

// tcpStart sets up the stock TCP state of a flow starting in slot.
func (s *sim) tcpStart(slot int32, f *flow) {
	t := &s.tcp[slot]
	*t = tcpFlow{
		cc:           f.cc.(*cc.DCTCPWindow),
		rcvd:         t.rcvd[:0],
		sacked:       t.sacked[:0],
		top:          [dupThresh]int32{-1, -1, -1},
		firstPartial: true,
		highRxt:      -1,
		rto:          s.rto,
		evAt:         -1,
	}
}

// tcpPipe is RFC 6675's pipe in packets: sent and neither acknowledged,
// reported nor lost, plus the lost ones resent.
func (s *sim) tcpPipe(t *tcpFlow, f *flow) int64 {
	pipe := int64(f.maxSent - f.sndUna - t.nsacked)
	if lo, hi := max(f.sndUna, t.highRxt+1), min(t.lostFrontier(), f.maxSent); lo < hi {
		pipe -= int64(hi-lo) - t.sacked.count(lo, hi)
	}
	return pipe
}

// tcpLostSeg is the lowest lost packet not resent yet, -1 if none
// (RFC 6675's NextSeg rule 1).
func (s *sim) tcpLostSeg(t *tcpFlow, f *flow) int32 {
	lo, hi := max(f.sndUna, t.highRxt+1), min(t.lostFrontier(), f.maxSent)
	if lo >= hi {
		return -1
	}
	if p := t.sacked.nextClear(lo, hi); p < hi {
		return p
	}
	return -1
}

// tcpNextSeg is the packet the flow sends next when its window allows: a
// lost one, else new data, else in recovery the lowest packet neither
// reported nor resent (NextSeg rules 1-3, rule 3 in recovery only, as
// ns-3); -1 if none.
func (s *sim) tcpNextSeg(t *tcpFlow, f *flow) int32 {
	if p := s.tcpLostSeg(t, f); p >= 0 {
		return p
	}
	if f.maxSent < f.npkts {
		return f.maxSent
	}
	if lo := max(f.sndUna, t.highRxt+1); t.state == tcpRecovery && lo < f.maxSent {
		if p := t.sacked.nextClear(lo, f.maxSent); p < f.maxSent {
			return p
		}
	}
	return -1
}

// tcpCanSend reports whether the flow in slot may send a packet now.
func (s *sim) tcpCanSend(slot int32, f *flow) bool {
	t := &s.tcp[slot]
	if t.force && s.tcpLostSeg(t, f) >= 0 {
		return true
	}
	return s.tcpNextSeg(t, f) >= 0 && s.tcpPipe(t, f)*s.cfg.PayloadBytes < t.cc.WindowBytes()
}

// tcpTake takes the packet the flow in slot sends next (tcpCanSend said
// there is one) and starts the timer if it is stopped.
func (s *sim) tcpTake(slot int32, f *flow) event {
	t := &s.tcp[slot]
	p := s.tcpNextSeg(t, f)
	t.force = false
	if p < f.maxSent {
		t.highRxt = p
	}
	if t.state == tcpRecovery {
		t.prrOut += s.cfg.PayloadBytes
	}
	f.sndNxt = p
	e := s.nextData(slot, f)
	f.sndNxt = f.maxSent // sndNxt is the next new packet
	if t.timerAt == 0 {
		s.tcpArm(slot, f, t, s.now+t.rto)
	}
	return e
}

// tcpReceive is the receiver's side of data packet e: it delivers the
// packet and every held one that follows it in order, or holds it, and
// returns what the ACK reports: the packet + 1 when held out of order, 0
// otherwise.
func (s *sim) tcpReceive(e event, f *flow) int64 {
	t := &s.tcp[e.ref]
	p := e.pkt
	switch {
	case p == f.rcvNxt:
		next := p + 1
		if len(t.rcvd) > 0 {
			next = t.rcvd.nextClear(next, f.rcvPkts)
		}
		s.res.DeliveredBytes += s.seqBytes(f.rcvSize, next) - s.seqBytes(f.rcvSize, p)
		f.rcvNxt = next
		if next == f.rcvPkts {
			s.finish(e.ref, f)
		}
	case p > f.rcvNxt && !t.rcvd.has(p):
		t.rcvd.grow(f.rcvPkts)
		t.rcvd.set(p)
		return int64(p) + 1
	default:
		s.res.Duplicates++
	}
	return 0
}

// tcpAck is the sender's side of an ACK under stock TCP: scoreboard,
// congestion state, window and timer.
func (s *sim) tcpAck(e event, f *flow) {
	f.alive--
	t := &s.tcp[e.ref]
	d := t.cc
	una, nsacked := f.sndUna, t.nsacked
	var acked int64
	if e.pkt > f.sndUna {
		t.nsacked -= int32(t.sacked.count(f.sndUna, e.pkt))
		acked = s.seqBytes(f.size, e.pkt) - s.seqBytes(f.size, f.sndUna)
		f.sndUna = e.pkt
	}
	dup := false // the ACK reports a new packet
	if p := int32(e.ts() - 1); p >= f.sndUna && p < f.maxSent && !t.sacked.has(p) {
		t.report(p, f.npkts)
		dup = true
	}
	delivered := int64(f.sndUna-una+t.nsacked-nsacked) * s.cfg.PayloadBytes
	// As in ns-3, only an ACK of new data passes on an ECN echo: a
	// duplicate ACK's echo does not put the sender into CWR.
	a := cc.Ack{Now: s.now, Acked: acked, AckSeq: s.seqBytes(f.size, e.pkt), NextSeq: s.seqBytes(f.size, f.maxSent), ECE: acked > 0 && e.flag()&flagECE != 0}
	resetTimer := acked > 0
	switch t.state {
	case tcpOpen, tcpDisorder:
		d.OnAck(a)
		if !dup {
			if acked > 0 {
				t.dupAcks, t.state = 0, tcpOpen
			}
			break
		}
		t.dupAcks++
		if d.InCWR() {
			break // as ns-3: no recovery from CWR
		}
		t.state = tcpDisorder
		if t.dupAcks == dupThresh && (!t.recoverActive || f.sndUna >= t.recover) || s.lost(t, f, f.sndUna) {
			s.tcpEnterRecovery(t, f, delivered)
		}
	case tcpRecovery:
		d.Observe(a)
		if f.sndUna >= t.recover {
			t.state, t.dupAcks, t.recoverActive, t.firstPartial = tcpOpen, 0, false, true
			d.SetWindow(d.SlowStartThreshold())
			d.Grow(acked)
			break
		}
		if acked > 0 {
			// A partial ACK: the new head is lost too; resend at once.
			t.lostBelow = max(t.lostBelow, f.sndUna+1)
			t.force = true
			resetTimer = t.firstPartial
			t.firstPartial = false
		}
		if delivered > 0 {
			s.tcpPRR(t, f, delivered)
		}
	case tcpLoss:
		d.Observe(a)
		d.Grow(acked)
		if f.sndUna >= t.recover {
			t.state, t.recoverActive = tcpOpen, false
		}
	}
	if resetTimer {
		t.rto = s.rto
		at := int64(0)
		if f.sndUna < f.maxSent {
			at = s.now + t.rto
		}
		s.tcpArm(e.ref, f, t, at)
	}
	if f.active || s.tcpNextSeg(t, f) >= 0 {
		s.activate(e.ref, f)
	}
}

// lost reports whether packet p of f counts as lost.
func (s *sim) lost(t *tcpFlow, f *flow, p int32) bool {
	return p < f.maxSent && p < t.lostFrontier() && !t.sacked.has(p)
}

// tcpEnterRecovery enters fast recovery on the ACK that found the loss.
func (s *sim) tcpEnterRecovery(t *tcpFlow, f *flow, delivered int64) {
	s.res.FastRecoveries++
	t.state = tcpRecovery
	t.recover, t.recoverActive = f.maxSent, true
	t.lostBelow = max(t.lostBelow, f.sndUna+1) // the head is lost
	t.cc.SetSlowStartThreshold(t.cc.Cut())
	t.prrDelivered, t.prrOut = 0, 0
	t.recoverFS = s.seqBytes(f.size, f.maxSent) - s.seqBytes(f.size, f.sndUna) // RFC 6937's RecoverFS
	s.tcpPRR(t, f, delivered)
	t.force = true // the fast retransmit
}

// tcpPRR sets the window in recovery by proportional rate reduction
// (RFC 6937 with the slow-start reduction bound) for an ACK that
// delivered bytes: whole packets, at least one before the first
// retransmission.
func (s *sim) tcpPRR(t *tcpFlow, f *flow, delivered int64) {
	mss := s.cfg.PayloadBytes
	t.prrDelivered += delivered
	pipe := s.tcpPipe(t, f) * mss
	ss := int64(t.cc.SlowStartThreshold())
	var snd int64
	if pipe > ss {
		snd = (t.prrDelivered*ss+t.recoverFS-1)/t.recoverFS - t.prrOut
	} else {
		snd = min(ss-pipe, max(t.prrDelivered-t.prrOut, delivered)+mss)
	}
	if t.prrOut == 0 {
		snd = max(snd, mss)
	}
	t.cc.SetWindow(float64(max(pipe+snd/mss*mss, 0)))
}

// tcpArm sets the retransmission timer of the flow in slot to expire at
// at (0: stop it). One pending evRTO at or before the expiry suffices:
// one that comes early re-arms (tcpTimer); events scheduled for earlier
// expiries and no longer relied upon are ignored when they come.
func (s *sim) tcpArm(slot int32, f *flow, t *tcpFlow, at int64) {
	t.timerAt = at
	if at != 0 && (t.evAt < 0 || t.evAt > at) {
		s.tcpSchedule(slot, f, t, at)
	}
}

func (s *sim) tcpSchedule(slot int32, f *flow, t *tcpFlow, at int64) {
	t.evAt = at
	t.events++
	f.rtoPending = true
	s.q.push(newEvent(at, evRTO, slot), s.route(slot)[rtPath])
}

// tcpTimer handles an evRTO of a stock TCP flow.
func (s *sim) tcpTimer(e event) {
	f, t := &s.fs[e.ref], &s.tcp[e.ref]
	t.events--
	f.rtoPending = t.events > 0
	if e.t == t.evAt {
		t.evAt = -1
	}
	switch {
	case t.timerAt != 0 && s.now >= t.timerAt:
		s.tcpTimeout(e.ref, f, t)
	case t.timerAt != 0 && t.evAt < 0:
		// The timer moved on since this event was scheduled.
		s.tcpSchedule(e.ref, f, t, t.timerAt)
	}
	s.retire(e.ref)
}

// tcpTimeout is the retransmission timeout.
func (s *sim) tcpTimeout(slot int32, f *flow, t *tcpFlow) {
	s.res.Timeouts++
	d := t.cc
	ss := d.SlowStartThreshold()
	d.OnTimeout(s.now)
	if t.state == tcpLoss && t.highRxt >= f.sndUna {
		d.SetSlowStartThreshold(ss) // the head's resend is outstanding: cut once per episode, as ns-3
	}
	t.state, t.dupAcks, t.force = tcpLoss, 0, false
	t.recover, t.recoverActive = f.maxSent, true
	t.lostBelow, t.highRxt = f.maxSent, f.sndUna-1
	t.rto = min(2*t.rto, maxRTO)
	t.timerAt = 0
	s.activate(slot, f)
}

// bitset is a set of packet indices.
type bitset []uint64

// grow makes room for n bits, new ones clear.
func (b *bitset) grow(n int32) {
	words := int(n+63) / 64
	if len(*b) >= words {
		return
	}
	if cap(*b) >= words {
		old := len(*b)
		*b = (*b)[:words]
		clear((*b)[old:])
		return
	}
	nb := make(bitset, words)
	copy(nb, *b)
	*b = nb
}

func (b bitset) set(p int32) { b[p>>6] |= 1 << (p & 63) }

func (b bitset) has(p int32) bool {
	return int(p>>6) < len(b) && b[p>>6]&(1<<(p&63)) != 0
}

// count is the number of bits set in [lo, hi).
func (b bitset) count(lo, hi int32) int64 {
	var n int
	for w := lo >> 6; w <= (hi-1)>>6 && int(w) < len(b); w++ {
		x := b[w]
		if w == lo>>6 {
			x &= ^uint64(0) << (lo & 63)
		}
		if w == (hi-1)>>6 {
			x &= ^uint64(0) >> (63 - (hi-1)&63)
		}
		n += bits.OnesCount64(x)
	}
	return int64(n)
}

// nextClear is the lowest clear bit in [lo, hi), hi if none.
func (b bitset) nextClear(lo, hi int32) int32 {
	for p := lo; p < hi; {
		w := p >> 6
		if int(w) >= len(b) {
			return p
		}
		x := ^b[w] & (^uint64(0) << (p & 63))
		if x != 0 {
			return min(w<<6+int32(bits.TrailingZeros64(x)), hi)
		}
		p = (w + 1) << 6
	}
	return hi
}
