package linksim

import (
	"fmt"
	"math"

	"github.com/tailscope/tailscope/lib/internal/ecnmark"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/workload"
)

const psPerSecondBits = 8_000_000_000_000 // ps per second times bits per byte

// Event kinds.
const (
	evNicWake uint8 = iota // source NIC pkt may send again
	evTarget               // a data packet reaches the target's port
	evAck                  // an ACK reaches its sender
	evRTO                  // retransmission check of a flow
	evDequeue              // marking at dequeue: the target's queued packets whose start has come may leave
)

// Packet flags.
const (
	flagECE  uint8 = 1 << iota // data: marked CE; ACK: echoes it
	flagNack                   // ACK sent for an out-of-order data packet
)

// event is one scheduled happening; packets in flight exist only as
// events.
type event struct {
	t    int64 // ps
	ts   int64 // data: send time (ps); ACK: the echoed send time
	flow int32
	pkt  int32 // data: packet index; ACK: packets received in order; NIC events: source index
	kind uint8
	flag uint8
}

// port is the output side of a channel, a FIFO kept in closed form: a
// packet's departure is fixed when it arrives.
type port struct {
	bw        int64
	psPerByte int64 // 8e12/bw when that is an integer, else 0
	delay     int64 // ps
	busyUntil int64 // ps, end of the last transmission scheduled
	ackPs     int64 // an ACK's serialization plus propagation on the reverse channel
}

func newPort(h Hop, cfg netcfg.Config) port {
	p := port{bw: h.Bandwidth, delay: h.Delay * 1000}
	if psPerSecondBits%h.Bandwidth == 0 {
		p.psPerByte = psPerSecondBits / h.Bandwidth
	}
	p.ackPs = p.tx(cfg.AckBytes) + p.delay
	return p
}

// tx is the serialization time of b bytes in ps, rounded as packetsim
// rounds it.
func (p *port) tx(b int64) int64 {
	if p.psPerByte > 0 {
		return b * p.psPerByte
	}
	return (b*psPerSecondBits + p.bw/2) / p.bw
}

// backlog is the number of bytes queued or in transmission at time now.
func (p *port) backlog(now int64) float64 {
	if p.busyUntil <= now {
		return 0
	}
	return float64(p.busyUntil-now) * float64(p.bw) / psPerSecondBits
}

// nic is a source host's sending side: data is pulled from its active
// flows round-robin, each eligible when its pacing time has come and its
// window is open (packetsim's NIC without ACKs, which a link-level source
// never sends).
type nic struct {
	port
	id     int32   // index among the sources
	active []int32 // flows with unsent data, in round-robin order
	rr     int
	wakeAt int64 // pending wake-up, 0 if none
}

type flowState struct {
	size     int64
	startPs  int64
	src, dst int32
	npkts    int32
	sndNxt   int32 // next packet to send
	sndUna   int32 // first packet not acknowledged
	maxSent  int32 // packets sent at least once
	rcvNxt   int32 // next packet the receiver expects
	lastNack int32
	nackSent bool
	active   bool
	nextSend int64 // ps, pacing
	progress int64 // ps, last time sndUna advanced or the flow rewound
	finish   int64 // ps, -1 until the last byte arrives
	ackPs    int64 // ACK delay from the receiver back to the sender
	cc       packetsim.CC
}

// queued is a data packet on the target's port whose mark is not known
// yet (marking at dequeue): it starts its transmission there at start and
// reaches the target's far end at time at.
type queued struct {
	e               event
	wire, start, at int64
}

type sim struct {
	cfg    netcfg.Config
	target port
	k      float64
	// Marking at dequeue: dq remembers the packets put on the target's
	// port and waiting[head:] those whose mark is still to be read, in
	// FIFO order. A packet must be read before the ACK it causes is due:
	// no later than minAckPs after it reaches the target's far end.
	dequeue  bool
	dq       ecnmark.Queue
	waiting  []queued
	head     int
	minAckPs int64
	armed    bool // an evDequeue is pending
	switched bool // the target is a switch port fed by the sources' first hops
	nics     []nic
	dests    []port
	fs       []flowState
	q        eventQueue
	now      int64
	next     int // next flow to start
	rto      int64
	res      Result
}

func newSim(l Link, flows []workload.Flow, cfg netcfg.Config, newCC packetsim.NewCC) *sim {
	s := &sim{cfg: cfg, q: newEventQueue(), target: newPort(l.Target, cfg), k: float64(l.KBytes), switched: len(l.Sources) > 0, dequeue: cfg.MarkAtDequeue()}
	if cfg.BufferBytes > 0 {
		s.rto = cfg.DCTCP.MinRTONanos * 1000
	}
	srcs := l.Sources
	if !s.switched {
		srcs = []Hop{l.Target} // the target is the sender's NIC
	}
	s.nics = make([]nic, len(srcs))
	for i, h := range srcs {
		s.nics[i].port, s.nics[i].id = newPort(h, cfg), int32(i)
	}
	s.dests = make([]port, len(l.Dests))
	for i, h := range l.Dests {
		s.dests[i] = newPort(h, cfg)
	}
	s.fs = make([]flowState, len(flows))
	for i, f := range flows {
		fs := &s.fs[i]
		fs.size, fs.startPs, fs.npkts = f.Size, f.Start*1000, int32(cfg.Packets(f.Size))
		fs.src, fs.dst = int32(f.Src), int32(f.Dst)
		fs.finish, fs.lastNack = -1, -1
		// The ACK crosses the destination's hop, the target and the
		// source's first hop backwards.
		fs.ackPs = s.target.ackPs
		if s.switched {
			fs.ackPs += s.nics[f.Src].ackPs
		}
		if len(s.dests) > 0 {
			fs.ackPs += s.dests[f.Dst].ackPs
		}
		fs.cc = newCC(cfg, s.nics[f.Src].bw)
		if i == 0 || fs.ackPs < s.minAckPs {
			s.minAckPs = fs.ackPs
		}
	}
	return s
}

func (s *sim) push(e event) { s.q.push(e) }

// seqBytes is the payload carried by packets 0..p-1 of f.
func (s *sim) seqBytes(f *flowState, p int32) int64 {
	return min(int64(p)*s.cfg.PayloadBytes, f.size)
}

// wire is the size of data packet p of f on the wire.
func (s *sim) wire(f *flowState, p int32) int64 {
	return s.seqBytes(f, p+1) - s.seqBytes(f, p) + s.cfg.HeaderBytes
}

func (s *sim) run() error {
	for {
		t, ok := s.q.next()
		if s.next < len(s.fs) && (!ok || s.fs[s.next].startPs <= t) {
			s.now = s.fs[s.next].startPs
			s.start(int32(s.next))
			s.next++
			continue
		}
		if !ok {
			break
		}
		e := s.q.pop()
		s.now = e.t
		s.res.Events++
		switch e.kind {
		case evNicWake:
			n := &s.nics[e.pkt]
			if n.wakeAt == e.t {
				n.wakeAt = 0
			}
			s.pull(n)
		case evTarget:
			s.onTarget(e)
		case evAck:
			s.onAck(e)
		case evRTO:
			s.timeout(e)
		case evDequeue:
			s.armed = false
			s.release()
		}
	}
	for i := range s.fs {
		if s.fs[i].finish < 0 {
			// Cannot happen with a CC that keeps its window open; say so
			// rather than return a wrong FCT.
			return fmt.Errorf("linksim: flow index %d never finished (%d of %d packets acknowledged)", i, s.fs[i].sndUna, s.fs[i].npkts)
		}
	}
	return nil
}

func (s *sim) start(i int32) {
	f := &s.fs[i]
	f.progress = s.now
	f.nextSend = s.now
	if s.rto > 0 {
		s.push(event{t: s.now + s.rto, kind: evRTO, flow: i})
	}
	s.activate(i, f)
}

// activate puts a flow that has data to (re)send back into its NIC's
// rotation and lets the NIC look at it.
func (s *sim) activate(fi int32, f *flowState) {
	n := &s.nics[f.src]
	if !f.active && f.sndNxt < f.npkts {
		f.active = true
		n.active = append(n.active, fi)
	}
	s.pull(n)
}

// pull starts the next transmission of an idle NIC: a data packet of the
// next eligible flow. A busy NIC, or one whose flows wait only for their
// pacing time, wakes up when it can send. Unlike packetsim's NICs, which
// look for work whenever a transmission ends, a NIC here sleeps while all
// its flows' windows are closed: the ACK that opens one calls pull.
func (s *sim) pull(n *nic) {
	if s.now < n.busyUntil {
		s.wake(n, n.busyUntil)
		return
	}
	wake := int64(math.MaxInt64)
	for tried := 0; tried < len(n.active); tried++ {
		i := n.rr + tried
		for i >= len(n.active) {
			i -= len(n.active)
		}
		fi := n.active[i]
		f := &s.fs[fi]
		if !s.windowOpen(f) {
			continue // window closed: an ACK will call pull again
		}
		if f.nextSend > s.now {
			wake = min(wake, f.nextSend)
			continue
		}
		pkt := f.sndNxt
		f.sndNxt++
		if pkt < f.maxSent {
			s.res.Retransmits++
		} else {
			f.maxSent = pkt + 1
		}
		s.res.DataPackets++
		wire := s.wire(f, pkt)
		f.nextSend = s.now + int64(float64(wire)*psPerSecondBits/f.cc.RateBps()+0.5)
		n.rr = i + 1
		if f.sndNxt == f.npkts { // nothing left to send: leave the rotation
			f.active = false
			n.active = append(n.active[:i], n.active[i+1:]...)
			n.rr = i
		}
		s.send(n, event{flow: fi, pkt: pkt, ts: s.now}, wire)
		// Look again when the transmission ends if some flow may be
		// able to send then; a lone flow's pacing time is known now.
		switch len(n.active) {
		case 0:
		case 1:
			if g := &s.fs[n.active[0]]; s.windowOpen(g) {
				s.wake(n, max(n.busyUntil, g.nextSend))
			}
		default:
			s.wake(n, n.busyUntil)
		}
		return
	}
	if wake != math.MaxInt64 {
		s.wake(n, wake)
	}
}

// windowOpen reports whether f's window lets it send another packet.
func (s *sim) windowOpen(f *flowState) bool {
	return s.seqBytes(f, f.sndNxt)-s.seqBytes(f, f.sndUna) < f.cc.WindowBytes()
}

// wake makes NIC n pull at time t, unless it already will sooner.
func (s *sim) wake(n *nic, t int64) {
	if n.wakeAt == 0 || t < n.wakeAt {
		n.wakeAt = t
		s.push(event{t: t, kind: evNicWake, pkt: n.id})
	}
}

// send puts data packet e of wire bytes on NIC n's channel.
func (s *sim) send(n *nic, e event, wire int64) {
	end := s.now + n.tx(wire)
	n.busyUntil = end
	if s.switched {
		e.t, e.kind = end+n.delay, evTarget
		s.push(e)
		return
	}
	s.res.TargetBytes += wire
	s.leave(e, wire, end+n.delay)
}

// onTarget is a data packet reaching the target's port: dropped if the
// buffer is full, else queued; marked at enqueue if the queue is above
// the threshold, or marked at dequeue once its start has come.
func (s *sim) onTarget(e event) {
	f := &s.fs[e.flow]
	wire := s.wire(f, e.pkt)
	p := &s.target
	q := p.backlog(s.now)
	if s.cfg.BufferBytes > 0 && q+float64(wire) > float64(s.cfg.BufferBytes) {
		s.res.Drops++
		return
	}
	start := max(s.now, p.busyUntil)
	end := start + p.tx(wire)
	p.busyUntil = end
	s.res.TargetBytes += wire
	if !s.dequeue {
		if q > s.k {
			e.flag |= flagECE
			s.res.Marks++
		}
		s.leave(e, wire, end+p.delay)
		return
	}
	s.dq.Push(s.now, start, wire)
	s.waiting = append(s.waiting, queued{e, wire, start, end + p.delay})
	s.release()
}

// release reads the marks of the packets whose transmission at the
// target has started by now (marked if more than K bytes arrived behind
// them before they started), lets them leave, and makes sure the next
// waiting packet is read in time.
func (s *sim) release() {
	for s.head < len(s.waiting) && s.waiting[s.head].start <= s.now {
		w := s.waiting[s.head]
		s.head++
		if s.dq.Pop() > int64(s.k) {
			w.e.flag |= flagECE
			s.res.Marks++
		}
		s.leave(w.e, w.wire, w.at)
	}
	switch {
	case s.head == len(s.waiting):
		s.waiting, s.head = s.waiting[:0], 0
	case s.head >= 1024 && 2*s.head >= len(s.waiting):
		s.waiting = s.waiting[:copy(s.waiting, s.waiting[s.head:])]
		s.head = 0
	}
	if s.head < len(s.waiting) && !s.armed {
		s.armed = true
		s.push(event{t: s.waiting[s.head].at + s.minAckPs, kind: evDequeue})
	}
}

// leave takes a data packet that reaches the target's far end at time at
// over its destination's hop to the receiver, runs the receiver (which
// takes packets in order, discards others and answers each with a
// cumulative ACK echoing its CE mark; the first out-of-order packet after
// an in-order one asks for go-back-N) and schedules the ACK's arrival at
// the sender. Nothing after the target depends on other flows except the
// destination hop's FIFO, which packets reach in the order they leave the
// target, so all of this can be decided now.
func (s *sim) leave(e event, wire, at int64) {
	f := &s.fs[e.flow]
	if len(s.dests) > 0 {
		d := &s.dests[f.dst]
		end := max(at, d.busyUntil) + d.tx(wire)
		d.busyUntil = end
		at = end + d.delay
	}
	flag := e.flag & flagECE
	if e.pkt == f.rcvNxt {
		f.rcvNxt++
		f.nackSent = false
		s.res.DeliveredBytes += s.seqBytes(f, e.pkt+1) - s.seqBytes(f, e.pkt)
		if f.rcvNxt == f.npkts {
			f.finish = at
		}
	} else if e.pkt > f.rcvNxt && !f.nackSent {
		f.nackSent = true
		flag |= flagNack
	}
	s.push(event{t: at + f.ackPs, kind: evAck, flow: e.flow, pkt: f.rcvNxt, ts: e.ts, flag: flag})
}

// onAck is the sender's side of an ACK.
func (s *sim) onAck(e event) {
	f := &s.fs[e.flow]
	var acked int64
	if e.pkt > f.sndUna {
		acked = s.seqBytes(f, e.pkt) - s.seqBytes(f, f.sndUna)
		f.sndUna = e.pkt
		f.progress = s.now
	}
	f.cc.OnAck(packetsim.Ack{
		Now:     s.now,
		Acked:   acked,
		AckSeq:  s.seqBytes(f, e.pkt),
		NextSeq: s.seqBytes(f, f.sndNxt),
		ECE:     e.flag&flagECE != 0,
		RTT:     s.now - e.ts,
	})
	if e.flag&flagNack != 0 && e.pkt > f.lastNack && e.pkt < f.sndNxt {
		f.lastNack = e.pkt
		f.sndNxt = e.pkt
		f.progress = s.now
	}
	if f.active || f.sndNxt < f.npkts {
		s.activate(e.flow, f)
	}
}

// timeout is a flow's retransmission timer (finite buffers only): without
// progress for an RTO the sender goes back to its first unacknowledged
// packet.
func (s *sim) timeout(e event) {
	f := &s.fs[e.flow]
	if f.sndUna >= f.npkts {
		return
	}
	if s.now-f.progress >= s.rto && f.sndNxt > f.sndUna {
		f.sndNxt = f.sndUna
		f.progress = s.now
		f.cc.OnTimeout(s.now)
		s.activate(e.flow, f)
	}
	s.push(event{t: s.now + s.rto, kind: evRTO, flow: e.flow})
}

func (s *sim) result() *Result {
	r := &s.res
	r.FCT = make([]int64, len(s.fs))
	for i := range s.fs {
		f := &s.fs[i]
		r.FCT[i] = (f.finish - f.startPs + 500) / 1000
	}
	return r
}
