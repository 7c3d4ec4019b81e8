package packetsim

import (
	"fmt"

	"github.com/tailscope/tailscope/lib/cc"
)

// pauseFrameBytes is the wire size of a PFC pause or resume frame. Pause
// frames jump every queue (the fork sends them ahead of data) and their
// transmission is not charged to the link: they take its serialization
// time and propagation delay to act, nothing else.
const pauseFrameBytes = 64

// buffers is the switch memory model of netcfg.Config.Buffer and PFC. It
// replaces the closed-form FIFO ports (a departure fixed on arrival) by
// ports that hold their packets, because a paused port's departures are
// not known on arrival. nil, and never touched, unless switches have a
// shared buffer: the fast path stays as it was.
type buffers struct {
	pfc       bool
	atDequeue bool // ECN marking at dequeue (netcfg.Config.ECNMark)
	alpha     float64
	shared    int64     // each switch's buffer, bytes
	sw        []swbuf   // per node (hosts' entries unused)
	in        []ingress // per channel, as the ingress port at its far end
	ports     []qport   // per channel, its output port
	xon       int64
	xonOff    int64
	// Per channel: pause frames sent to its transmitter, and the time
	// (ps) the transmitter spent paused.
	pauses   []int64
	pausedPs []int64
}

// swbuf is one switch's shared buffer.
type swbuf struct {
	used     int64 // bytes of the packets waiting in the switch
	hdrmUsed int64 // of which in its ingress ports' headroom (PFC)
	hdrm     int64 // headroom reserved over all its ingress ports (PFC)
}

// ingress is the PFC accounting of a switch's ingress port.
type ingress struct {
	bytes    int64 // bytes that entered through the port and wait in the switch
	hdrm     int64 // of which in the port's headroom
	headroom int64 // the port's headroom
	pausing  bool  // the port has paused its sender and not yet resumed it
}

// qport is an output port holding its waiting packets (e.t holds the time
// each arrived).
type qport struct {
	q        []event
	head     int
	bytes    int64 // wire bytes waiting, the packet in transmission excluded
	k        float64
	paused   bool
	wake     bool  // an evPortFree is scheduled
	pausedAt int64 // ps
}

func newBuffers(s *sim) *buffers {
	cfg, net := s.cfg, s.net
	b := &buffers{
		pfc: cfg.PFC.Enabled, atDequeue: cfg.MarkAtDequeue(), alpha: cfg.Buffer.Alpha, shared: cfg.Buffer.SharedBytes,
		sw: make([]swbuf, len(net.Nodes)), in: make([]ingress, len(net.Channels)), ports: make([]qport, len(net.Channels)),
		xon: cfg.PFC.XonBytes, xonOff: cfg.PFC.XonOffsetBytes,
		pauses: make([]int64, len(net.Channels)), pausedPs: make([]int64, len(net.Channels)),
	}
	for c, ch := range net.Channels {
		b.ports[c].k = s.kFor(c)
		if !net.IsHost(ch.Dst) && b.pfc {
			h := cfg.HeadroomFor(ch.Bandwidth, ch.Delay)
			b.in[c].headroom = h
			b.sw[ch.Dst].hdrm += h
		}
	}
	for i := range b.sw {
		// As the fork: headroom takes at most 80% of the buffer.
		b.sw[i].hdrm = min(b.sw[i].hdrm, b.shared*8/10)
	}
	return b
}

// threshold is a switch's dynamic threshold: alpha times the free bytes
// of its shared pool (the buffer less the headroom, under PFC).
func (b *buffers) threshold(sw *swbuf) float64 {
	free := b.shared - sw.hdrm - (sw.used - sw.hdrmUsed)
	return b.alpha * float64(max(free, 0))
}

// bufEnqueue is enqueue under a shared buffer: a packet of wire bytes
// reaching output port c of a switch is admitted or dropped, then waits
// in c's queue or starts its transmission at once.
func (s *sim) bufEnqueue(e event, c int32, wire int64) (dropped bool) {
	b := s.buf
	qp := &b.ports[c]
	ack := e.flag()&flagAck != 0
	if node := s.net.Channels[c].Src; !s.net.IsHost(node) {
		cin := channel(s.route(e.ref), int32(e.hop())-1, ack)
		if !s.admit(&b.sw[node], qp, cin, wire) {
			s.res.Drops++
			if ack {
				s.res.AckDrops++
			}
			s.drops[c]++
			s.lose(&e)
			if b.pfc && s.err == nil {
				s.err = fmt.Errorf("packetsim: PFC headroom of channel %d overflowed at %d ns: raise pfc headroom_bytes", cin, s.now/1000)
			}
			return true
		}
	}
	if !b.atDequeue && !ack && e.flag()&flagECE == 0 && s.markAt(c, qp, float64(qp.bytes)+s.ports[c].backlog(s.now)) {
		e.w |= int64(flagECE) << flagPos
		s.res.Marks++
	}
	e.t = s.now
	qp.q = append(qp.q, e)
	qp.bytes += wire
	s.kick(c, qp)
	return false
}

// kick starts port c's next transmission if the port is idle, not paused
// and has a packet waiting; busy, it wakes the port at the end of the
// transmission.
func (s *sim) kick(c int32, qp *qport) {
	switch {
	case qp.paused || qp.head == len(qp.q):
	case s.ports[c].busyUntil <= s.now:
		s.startTx(c)
	default:
		s.wakeAt(c, qp)
	}
}

// wakeAt schedules port c's evPortFree for the end of its transmission
// unless one is scheduled. Only a port with packets waiting needs one, so
// a packet that finds its port idle costs one event, as on the fast path.
func (s *sim) wakeAt(c int32, qp *qport) {
	if !qp.wake {
		qp.wake = true
		s.q.push(newEvent(s.ports[c].busyUntil, evPortFree, c), c)
	}
}

// markAt decides whether a data packet meeting q queued bytes at port qp
// of channel c is marked: DCQCN's RED profile or the step at K.
func (s *sim) markAt(c int32, qp *qport, q float64) bool {
	if s.red != nil {
		return s.red.Mark(int(c), q)
	}
	return q > qp.k
}

// admit is a switch's admission of a packet of wire bytes that entered
// through channel cin for output port qp. Without PFC a port may queue at
// most alpha times the free buffer; with it the ingress port's bytes are
// held to that, the excess going to its headroom and pausing its sender.
func (s *sim) admit(sw *swbuf, qp *qport, cin int32, wire int64) bool {
	b := s.buf
	if !b.pfc {
		if sw.used+wire > b.shared || float64(qp.bytes+wire) > b.threshold(sw) {
			return false
		}
		sw.used += wire
		return true
	}
	in := &b.in[cin]
	if sw.used+wire > b.shared || in.hdrm > 0 && (in.hdrm+wire > in.headroom || sw.hdrmUsed+wire > sw.hdrm) {
		return false
	}
	in.bytes += wire
	sw.used += wire
	if in.hdrm > 0 || float64(in.bytes) > b.threshold(sw) {
		in.hdrm += wire
		sw.hdrmUsed += wire
		if !in.pausing {
			in.pausing = true
			s.sendPause(cin, true)
		}
	}
	return true
}

// release returns a packet's bytes to its switch's buffer as it starts
// its transmission and, under PFC, resumes its ingress port's sender once
// the port is below its resume threshold.
func (s *sim) release(sw *swbuf, cin int32, wire int64) {
	b := s.buf
	sw.used -= wire
	if !b.pfc {
		return
	}
	in := &b.in[cin]
	in.bytes -= wire
	if in.hdrm > 0 {
		d := min(in.hdrm, wire)
		in.hdrm -= d
		sw.hdrmUsed -= d
	}
	if in.pausing && in.hdrm == 0 && (in.bytes < b.xon || float64(in.bytes+b.xonOff) <= b.threshold(sw)) {
		in.pausing = false
		s.sendPause(cin, false)
	}
}

// sendPause sends the transmitter of channel cin a pause (or resume)
// frame, which acts when it arrives.
func (s *sim) sendPause(cin int32, pause bool) {
	e := newEvent(s.now+s.ports[cin^1].tx(pauseFrameBytes)+s.ports[cin].delay, evPause, cin)
	if pause {
		e.pkt = 1
		s.buf.pauses[cin]++
		s.res.PauseFrames++
	} else {
		s.res.ResumeFrames++
	}
	s.pauseVia(e, cin)
}

// pauseArrived applies a pause or resume frame to the transmitter of
// channel c. Paused, it finishes the frame on the wire and sends nothing
// more; resumed, it picks up where it stopped.
func (s *sim) pauseArrived(e event) {
	c := e.ref
	qp := &s.buf.ports[c]
	var n *nic // a NIC pulling its packets, which pull stops while paused
	if i := s.nicOf[c]; i >= 0 && !s.opts.HostFIFO {
		n = &s.nics[i]
	}
	if e.pkt == 1 {
		if !qp.paused {
			qp.paused, qp.pausedAt = true, s.now
			if n != nil {
				n.paused = true
			}
		}
		return
	}
	if !qp.paused {
		return
	}
	qp.paused = false
	s.buf.pausedPs[c] += s.now - qp.pausedAt
	if n != nil {
		n.paused = false
		s.pull(n)
		return
	}
	s.kick(c, qp)
}

// portFree is port c's evPortFree. The port may be busy again (a packet
// found it idle at the very time the wake-up was due and went first):
// then kick waits for the new end.
func (s *sim) portFree(c int32) {
	qp := &s.buf.ports[c]
	qp.wake = false
	s.kick(c, qp)
}

// startTx puts port c's first waiting packet on the wire: it leaves the
// switch's buffer, is marked at dequeue by the bytes behind it, and under
// HPCC is stamped with the port's INT record.
func (s *sim) startTx(c int32) {
	qp := &s.buf.ports[c]
	e := popFront(&qp.q, &qp.head)
	r := s.route(e.ref)
	ack := e.flag()&flagAck != 0
	wire := s.wire(&e, r)
	qp.bytes -= wire
	p := &s.ports[c]
	if node := s.net.Channels[c].Src; !s.net.IsHost(node) {
		s.release(&s.buf.sw[node], channel(r, int32(e.hop())-1, ack), wire)
	}
	if wait := s.now - e.t; wait > 0 {
		p.queueNanos += float64(wait) / 1000
	}
	if s.buf.atDequeue && !ack && e.flag()&flagECE == 0 && s.markAt(c, qp, float64(qp.bytes)) {
		e.w |= int64(flagECE) << flagPos
		s.res.Marks++
	}
	end := s.now + p.tx(wire)
	p.busyUntil = end
	p.bytes += wire
	p.packets++
	s.res.PacketHops++
	if s.intHops && !ack && e.hop() > 0 {
		*s.intRec(&e) = cc.INTHop{QueueBytes: qp.bytes, TxBytes: p.bytes, TimePs: end, RateBps: p.bw}
	}
	e.t = end + p.delay
	s.arriveVia(e, c)
	s.kick(c, qp)
}

// finishPauses adds the pauses still in force at the end of the run to
// the paused time.
func (b *buffers) finishPauses(now int64) {
	for c := range b.ports {
		if qp := &b.ports[c]; qp.paused {
			b.pausedPs[c] += now - qp.pausedAt
			qp.pausedAt = now
		}
	}
}

// queued is the bytes waiting at port c besides the closed-form backlog.
func (b *buffers) queued(c int) float64 {
	if b == nil {
		return 0
	}
	return float64(b.ports[c].bytes)
}
