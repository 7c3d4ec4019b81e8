package linksim

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/tailscope/tailscope/lib/cc"
	"github.com/tailscope/tailscope/lib/internal/ecnmark"
	"github.com/tailscope/tailscope/lib/netcfg"
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

// event is one scheduled happening, 24 bytes; packets in flight exist
// only as events. The send time shares its word with the kind and the
// flags: bits 0-57 hold it (up to 288,230 s of simulated time, which Run
// checks), then the kind and the flags.
type event struct {
	t    int64 // ps
	w    int64 // data: send time (ps); ACK: the echoed send time; kind, flags
	flow int32
	pkt  int32 // data: packet index; ACK: packets received in order; NIC events: source index
}

const (
	tsBits  = 58
	maxTs   = 1<<tsBits - 1 // ps
	kindPos = tsBits
	flagPos = kindPos + 3
)

// newEvent is an event of kind at t for flow (or NIC) ref, packet pkt,
// with send time ts and flags flag.
func newEvent(t int64, kind uint8, flow, pkt int32, ts int64, flag uint8) event {
	return event{t: t, w: ts | int64(kind)<<kindPos | int64(flag)<<flagPos, flow: flow, pkt: pkt}
}

func (e *event) ts() int64       { return e.w & maxTs }
func (e *event) kind() uint8     { return uint8(e.w>>kindPos) & 7 }
func (e *event) flag() uint8     { return uint8(e.w>>flagPos) & 3 }
func (e *event) setFlag(f uint8) { e.w |= int64(f) << flagPos }

// port is the output side of a channel, a FIFO kept in closed form: a
// packet's departure is fixed when it arrives.
type port struct {
	bw        int64
	psPerByte int64 // 8e12/bw when that is an integer, else 0
	delay     int64 // ps
	busyUntil int64 // ps, end of the last transmission scheduled
	ackPs     int64 // an ACK's serialization plus propagation on the reverse channel
	bytes     int64 // wire bytes sent, counted for INT only
	// A full data packet's wire size and serialization time: Parsimon's
	// ACK-corrected bandwidths seldom divide 8e12, and a 64-bit division
	// per packet and port was about 5% of a link simulation (perf).
	full, txFull int64
}

func newPort(h Hop, cfg netcfg.Config) port {
	p := port{bw: h.Bandwidth, delay: h.Delay * 1000}
	if psPerSecondBits%h.Bandwidth == 0 {
		p.psPerByte = psPerSecondBits / h.Bandwidth
	}
	p.ackPs = p.tx(cfg.AckBytes) + p.delay
	p.txFull = p.tx(cfg.PayloadBytes + cfg.HeaderBytes) // by the formula: full is not set yet
	p.full = cfg.PayloadBytes + cfg.HeaderBytes
	return p
}

// tx is the serialization time of b bytes in ps, rounded as packetsim
// rounds it.
func (p *port) tx(b int64) int64 {
	switch {
	case b == p.full:
		return p.txFull
	case p.psPerByte > 0:
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
	// What a packet's send, arrival and ACK touch, in one 64-byte line.
	size     int64
	nextSend int64 // ps, pacing
	// win and rate are cc's window and rate, read after every call that
	// may change them (sync), so that the NIC's every look at a flow
	// costs no interface call.
	win      int64
	rate     float64
	npkts    int32
	sndNxt   int32 // next packet to send
	sndUna   int32 // first packet not acknowledged
	maxSent  int32 // packets sent at least once
	rcvNxt   int32 // next packet the receiver expects
	src, dst int32
	nackSent bool
	active   bool
	// The rest: the controller, the ACK path and the bookkeeping.
	ackPs    int64 // ACK delay from the receiver back to the sender
	cc       cc.CC
	progress int64 // ps, last time sndUna advanced or the flow rewound
	finish   int64 // ps, -1 until the last byte arrives
	startPs  int64
	gap      int64 // ps, the pacing time of a full-sized packet at rate
	lastNack int32
	_        [4]byte // a flow is two whole cache lines
}

// sync reads the window and rate of flow fi's controller after a call
// that may have changed them. The pacing time of a full packet follows
// the rate, so it is computed once per rate rather than once per packet.
func (s *sim) sync(fi int32, f *flowState) {
	var r float64
	if s.dc != nil {
		d := &s.dc[fi]
		f.win, r = d.WindowBytes(), d.RateBps()
	} else {
		f.win, r = f.cc.WindowBytes(), f.cc.RateBps()
	}
	if r != f.rate || f.gap == 0 {
		f.rate, f.gap = r, pacing(s.fullWire, r)
	}
}

// pacing is the time in ps to send wire bytes at rate bits per second,
// rounded as packetsim rounds it.
func pacing(wire int64, rate float64) int64 {
	return int64(float64(wire)*psPerSecondBits/rate + 0.5)
}

// queued is a data packet on the target's port whose mark is not known
// yet (marking at dequeue): it starts its transmission there at start and
// reaches the target's far end at time at.
type queued struct {
	e               event
	wire, start, at int64
}

// flowExt is a flow's state for DCQCN's CNP pacing and HPCC's INT.
type flowExt struct {
	lastCNP int64       // ps, last time the receiver echoed a mark; -1 if never
	ints    []cc.INTHop // ring of INT records, (packet & intMask) * intHops + hop; nil once the flow is done
	intMask int32
}

// ctxEvery is how many events pass between two looks at the run's
// context: a few hundred microseconds of run time.
const ctxEvery = 1 << 13

type sim struct {
	ctx    context.Context
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
	// dc holds every flow's controller when it is the built-in rate-based
	// DCTCP (the flows' cc is then nil): inline, it costs neither an
	// interface call nor an allocation per flow.
	dc        []cc.DCTCPRate
	q         eventQueue
	now       int64
	next      int   // next flow to start
	nextStart int64 // its start in ps, MaxInt64 once all have started
	rto       int64
	fullWire  int64 // a full data packet's size on the wire
	res       Result
	// What DCQCN and HPCC add, nil or zero (and not paid for) otherwise:
	// extra is set when any of it is, and keeps the rest out of the way
	// of the other CCs.
	extra   bool
	red     *cc.RED       // RED-style marking at the target instead of the step at K
	cnpGap  int64         // ps; the receiver echoes a mark at most once per gap per flow
	intHops int32         // INT records per data packet: the switch ports on its path
	clocked bool          // the controllers have timers (cc.Clocked)
	ext     []flowExt     // per flow, when cnpGap or intHops is set
	rings   [][]cc.INTHop // INT rings of finished flows, for reuse
	// noAcks runs without ACK events (runNIC): acks[i][ackHead[i]:] are
	// flow i's ACK arrival times not yet applied; closed is set when a
	// window is found closed.
	noAcks  bool
	acks    [][]int64
	ackHead []int32
	closed  bool
}

// errWindowClosed stops runNIC: a flow's window closed, so ACKs matter.
var errWindowClosed = errors.New("linksim: a window closed")

// runNIC runs a link whose target is the sender's NIC under the built-in
// rate-based DCTCP, with infinite buffers and no other network part
// (noAcks), without ACK events. No switch port can mark its packets, so
// no ACK echoes a mark: DCTCP keeps its line rate and its window, and an
// ACK moves nothing the NIC reads but the left edge of its flow's window.
// While every window is open, the NIC's sends are thus those of run
// (pull, send and leave are the same) with each flow's ACKs applied when
// its window is looked at, and the one NIC's one pending wake-up is kept
// in a field instead of the event queue. A window found closed, or open
// only by an ACK due at that instant (whose order against the look the
// queue would decide), ends the run with errWindowClosed, and Run starts
// over with events. Parsimon's uplinks took 13-15% of its link
// simulations' time with events, 6-9% without (BENCHMARKS.md).
func (s *sim) runNIC() error {
	n := &s.nics[0]
	for !s.closed {
		// Flow starts first at equal times, as in run.
		if s.next < len(s.fs) && (n.wakeAt == 0 || s.nextStart <= n.wakeAt) {
			s.now = s.nextStart
			s.start(int32(s.next))
			if s.next++; s.next < len(s.fs) {
				s.nextStart = s.fs[s.next].startPs
			}
			continue
		}
		if n.wakeAt == 0 {
			return s.finished()
		}
		s.now, n.wakeAt = n.wakeAt, 0
		if s.now > maxTs {
			return fmt.Errorf("linksim: simulated time passed %d ns, the most supported", maxTs/1000)
		}
		if s.res.Events++; s.res.Events&(ctxEvery-1) == 0 {
			if err := s.ctx.Err(); err != nil {
				return fmt.Errorf("linksim: interrupted: %w", err)
			}
		}
		s.pull(n)
	}
	return errWindowClosed
}

func newSim(ctx context.Context, l Link, flows []workload.Flow, cfg netcfg.Config, opts Options, newCC cc.NewCC) *sim {
	s := &sim{ctx: ctx, cfg: cfg, q: newEventQueue(), target: newPort(l.Target, cfg), k: float64(l.KBytes), switched: len(l.Sources) > 0, dequeue: cfg.MarkAtDequeue()}
	s.fullWire = cfg.PayloadBytes + cfg.HeaderBytes
	if cfg.BufferBytes > 0 {
		s.rto = cfg.DCTCP.MinRTONanos * 1000
	}
	// As in packetsim, the network's part of a CC follows cfg.CC: DCQCN's
	// switches mark by RED and its receivers pace CNPs; under HPCC every
	// switch port on a data packet's path writes an INT record into it,
	// here the target (when sources feed it: else it is a NIC) and the
	// downstream hop.
	switch cfg.CC {
	case "dcqcn":
		s.red = cc.NewRED(cfg.DCQCN, opts.Seed, 1) // one marking port, the target
		s.cnpGap = cfg.DCQCN.ReceiverCNPGapNanos() * 1000
	case "hpcc":
		if s.switched {
			s.intHops++
		}
		if len(l.Dests) > 0 {
			s.intHops++
		}
	}
	if s.extra = s.cnpGap > 0 || s.intHops > 0; s.extra {
		s.ext = make([]flowExt, len(flows))
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
	if opts.CC == nil && cfg.CC == "dctcp" {
		s.dc = make([]cc.DCTCPRate, len(flows))
	}
	if s.noAcks = !s.switched && s.dc != nil && s.rto == 0 && !s.extra && !opts.eventsOnly; s.noAcks {
		s.acks, s.ackHead = make([][]int64, len(flows)), make([]int32, len(flows))
	}
	s.nextStart = math.MaxInt64
	if len(flows) > 0 {
		s.nextStart = flows[0].Start * 1000
	}
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
		if s.dc != nil {
			s.dc[i] = cc.MakeDCTCPRate(cfg, s.nics[f.Src].bw)
		} else {
			fs.cc = newCC(cfg, s.nics[f.Src].bw)
			if b, ok := fs.cc.(cc.BaseRTTSetter); ok {
				b.SetBaseRTT(s.baseRTT(fs))
			}
			if _, ok := fs.cc.(cc.Clocked); ok {
				s.clocked = true
			}
		}
		s.sync(int32(i), fs)
		if s.ext != nil {
			s.ext[i].lastCNP = -1
		}
		if i == 0 || fs.ackPs < s.minAckPs {
			s.minAckPs = fs.ackPs
		}
	}
	return s
}

// baseRTT is the round trip of a full data packet along f's path and of
// its ACK back, over empty queues, in ps, as packetsim computes it.
func (s *sim) baseRTT(f *flowState) int64 {
	wire := s.cfg.PayloadBytes + s.cfg.HeaderBytes
	hop := func(p *port) int64 { return p.tx(wire) + p.delay + p.ackPs }
	t := hop(&s.target)
	if s.switched {
		t += hop(&s.nics[f.src].port)
	}
	if len(s.dests) > 0 {
		t += hop(&s.dests[f.dst])
	}
	return t
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
		p := s.q.Peek()
		if p == nil || s.nextStart <= p.T {
			if s.next == len(s.fs) {
				break
			}
			s.now = s.nextStart
			s.start(int32(s.next))
			if s.next++; s.next < len(s.fs) {
				s.nextStart = s.fs[s.next].startPs
			} else {
				s.nextStart = math.MaxInt64
			}
			continue
		}
		e := eventOf(p)
		s.q.Drop()
		s.now = e.t
		if e.t > maxTs {
			// Send times would no longer fit their share of an event.
			return fmt.Errorf("linksim: simulated time passed %d ns, the most supported", maxTs/1000)
		}
		s.res.Events++
		if s.res.Events&(ctxEvery-1) == 0 {
			if err := s.ctx.Err(); err != nil {
				return fmt.Errorf("linksim: interrupted: %w", err)
			}
		}
		switch e.kind() {
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
	return s.finished()
}

// finished reports a flow that never finished.
func (s *sim) finished() error {
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
		s.push(newEvent(s.now+s.rto, evRTO, i, 0, 0, 0))
	}
	if s.intHops > 0 {
		s.allocRing(i, f)
	}
	s.activate(i, f)
}

// allocRing gives flow i a ring of INT records for every packet it can
// have in flight: its window at start, which HPCC never exceeds, or all
// its packets if fewer (as packetsim sizes it).
func (s *sim) allocRing(i int32, f *flowState) {
	pkts := int64(f.npkts)
	if w := f.win; w/s.cfg.PayloadBytes < pkts {
		pkts = (w+s.cfg.PayloadBytes-1)/s.cfg.PayloadBytes + 2
	}
	ring := int32(1)
	for int64(ring) < pkts {
		ring <<= 1
	}
	n := int(ring * s.intHops)
	var ints []cc.INTHop
	if k := len(s.rings); k > 0 {
		// Reuse a finished flow's ring; one too small is left to the
		// collector, so the spare rings never outnumber the flows that
		// were in flight at once.
		ints = s.rings[k-1]
		s.rings = s.rings[:k-1]
	}
	if cap(ints) >= n {
		ints = ints[:n]
		clear(ints)
	} else {
		ints = make([]cc.INTHop, n)
	}
	s.ext[i].ints, s.ext[i].intMask = ints, ring-1
}

// intRecord is where hop h's INT record of data packet e goes, nil when
// its flow is done (a stray copy still in flight).
func (s *sim) intRecord(e event, h int32) *cc.INTHop {
	x := &s.ext[e.flow]
	if x.ints == nil {
		return nil
	}
	return &x.ints[(e.pkt&x.intMask)*s.intHops+h]
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
		if !s.windowOpen(fi, f) {
			continue // window closed: an ACK will call pull again
		}
		if f.nextSend > s.now {
			wake = min(wake, f.nextSend)
			continue
		}
		pkt := f.sndNxt
		f.sndNxt++
		if s.clocked {
			if c, ok := f.cc.(cc.Clocked); ok {
				c.Advance(s.now)
				s.sync(fi, f)
			}
		}
		if pkt < f.maxSent {
			s.res.Retransmits++
		} else {
			f.maxSent = pkt + 1
		}
		s.res.DataPackets++
		wire := s.wire(f, pkt)
		gap := f.gap
		if wire != s.fullWire {
			gap = pacing(wire, f.rate)
		}
		f.nextSend = s.now + gap
		n.rr = i + 1
		if f.sndNxt == f.npkts { // nothing left to send: leave the rotation
			f.active = false
			n.active = append(n.active[:i], n.active[i+1:]...)
			n.rr = i
			if s.noAcks {
				s.acks[fi] = nil // its window is never looked at again
			}
		}
		s.send(n, newEvent(0, evTarget, fi, pkt, s.now, 0), wire)
		// Look again when the transmission ends if some flow may be
		// able to send then; a lone flow's pacing time is known now.
		switch len(n.active) {
		case 0:
		case 1:
			if g := &s.fs[n.active[0]]; s.windowOpen(n.active[0], g) {
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

// windowOpen reports whether the window of flow fi, f, lets it send
// another packet; without ACK events it first applies the flow's ACKs due
// before now, and notes a closed window.
func (s *sim) windowOpen(fi int32, f *flowState) bool {
	if s.noAcks {
		q, h := s.acks[fi], s.ackHead[fi]
		for int(h) < len(q) && q[h] < s.now {
			h++
			f.sndUna++
		}
		if int(h) == len(q) {
			s.acks[fi], h = q[:0], 0
		}
		s.ackHead[fi] = h
	}
	open := s.seqBytes(f, f.sndNxt)-s.seqBytes(f, f.sndUna) < f.win
	if !open && s.noAcks {
		s.closed = true
	}
	return open
}

// wake makes NIC n pull at time t, unless it already will sooner.
func (s *sim) wake(n *nic, t int64) {
	if n.wakeAt == 0 || t < n.wakeAt {
		n.wakeAt = t
		if !s.noAcks { // runNIC keeps the one wake-up in wakeAt
			s.push(newEvent(t, evNicWake, 0, n.id, 0, 0))
		}
	}
}

// send puts data packet e of wire bytes on NIC n's channel.
func (s *sim) send(n *nic, e event, wire int64) {
	end := s.now + n.tx(wire)
	n.busyUntil = end
	if s.switched {
		e.t = end + n.delay
		s.push(e)
		return
	}
	s.res.TargetBytes += wire
	s.leave(e, wire, end+n.delay)
}

// onTarget is a data packet reaching the target's port: dropped if the
// buffer is full, else queued; marked at enqueue if the queue is above
// the threshold (by RED under DCQCN), or marked at dequeue once its start
// has come. Under HPCC it takes the port's INT record: the bytes ahead
// of it (marking at dequeue, release replaces them with the bytes behind
// it as it starts, as packetsim's ports report), the port's bytes sent
// and the end of its transmission.
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
	if s.extra {
		s.stampTarget(e, start, end)
	}
	if !s.dequeue {
		if s.mark(q) {
			e.setFlag(flagECE)
			s.res.Marks++
		}
		s.leave(e, wire, end+p.delay)
		return
	}
	s.release() // those that started before this packet arrived go first
	if start == s.now {
		s.leave(e, wire, end+p.delay) // it found the port idle: nothing is behind it
		return
	}
	s.dq.Push(s.now, start, end+p.delay, wire)
	// Field by field: a queued built whole on the stack and copied in
	// wide loads stalls on its own narrow stores (perf).
	s.waiting = append(s.waiting, queued{})
	w := &s.waiting[len(s.waiting)-1]
	w.e.t, w.e.w, w.e.flow, w.e.pkt = e.t, e.w, e.flow, e.pkt
	w.wire, w.start, w.at = wire, start, end+p.delay
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
		behind := s.dq.Pop(w.at)
		if s.mark(float64(behind)) {
			w.e.setFlag(flagECE)
			s.res.Marks++
		}
		if s.extra {
			s.stampBehind(w.e, behind)
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
		s.push(newEvent(s.waiting[s.head].at+s.minAckPs, evDequeue, 0, 0, 0, 0))
	}
}

// leave takes a data packet that reaches the target's far end at time at
// over its destination's hop to the receiver, runs the receiver (which
// takes packets in order, discards others and answers each with a
// cumulative ACK echoing its CE mark; the first out-of-order packet after
// an in-order one asks for go-back-N) and schedules the ACK's arrival at
// the sender. Nothing after the target depends on other flows except the
// destination hop's FIFO, which packets reach in the order they leave the
// target, so all of this can be decided now. Under HPCC the destination
// hop writes its INT record (the bytes ahead of the packet: the hop is
// inflated and hardly queues, so the bytes behind it, which packetsim
// reports when marking at dequeue, are as good as zero too); under DCQCN
// the receiver echoes a mark at most once per CNP interval.
func (s *sim) leave(e event, wire, at int64) {
	f := &s.fs[e.flow]
	if len(s.dests) > 0 {
		d := &s.dests[f.dst]
		start := max(at, d.busyUntil)
		end := start + d.tx(wire)
		d.busyUntil = end
		if s.extra {
			s.stampDest(e, d, wire, at-start, end)
		}
		at = end + d.delay
	}
	flag := e.flag() & flagECE
	if flag != 0 && s.extra {
		flag = s.cnp(e.flow, at)
	}
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
	if s.noAcks {
		if f.active { // a flow with nothing left to send needs no ACK
			s.acks[e.flow] = append(s.acks[e.flow], at+f.ackPs)
		}
		return
	}
	s.push(newEvent(at+f.ackPs, evAck, e.flow, f.rcvNxt, e.ts(), flag))
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
	a := cc.Ack{
		Now:     s.now,
		Acked:   acked,
		AckSeq:  s.seqBytes(f, e.pkt),
		NextSeq: s.seqBytes(f, f.sndNxt),
		ECE:     e.flag()&flagECE != 0,
		RTT:     s.now - e.ts(),
	}
	switch {
	case s.dc != nil:
		s.dc[e.flow].OnAck(a)
	case s.extra:
		s.ackINT(e, f, a)
	default:
		f.cc.OnAck(a)
	}
	s.sync(e.flow, f)
	if e.flag()&flagNack != 0 && e.pkt > f.lastNack && e.pkt < f.sndNxt {
		f.lastNack = e.pkt
		f.sndNxt = e.pkt
		f.progress = s.now
	}
	if f.active || f.sndNxt < f.npkts {
		s.activate(e.flow, f)
	}
}

// mark decides whether a data packet that finds q bytes queued (ahead of
// it at enqueue, behind it at dequeue) is marked: by RED under DCQCN,
// else above K.
func (s *sim) mark(q float64) bool {
	if s.red != nil {
		return s.red.Mark(0, q)
	}
	return q > s.k
}

// stampTarget writes, under HPCC, the target's INT record of data packet
// e, which starts its transmission there at start and ends it at end.
func (s *sim) stampTarget(e event, start, end int64) {
	if s.intHops == 0 || !s.switched {
		return
	}
	if r := s.intRecord(e, 0); r != nil {
		p := &s.target
		*r = cc.INTHop{QueueBytes: int64(float64(start-s.now)*float64(p.bw)/psPerSecondBits + 0.5), TxBytes: s.res.TargetBytes, TimePs: end, RateBps: p.bw}
	}
}

// stampBehind replaces, under HPCC with marking at dequeue, the queue of
// e's target record with the bytes behind it as it started.
func (s *sim) stampBehind(e event, behind int64) {
	if s.intHops == 0 {
		return
	}
	if r := s.intRecord(e, 0); r != nil {
		r.QueueBytes = behind
	}
}

// stampDest writes, under HPCC, the downstream hop's INT record of data
// packet e of wire bytes, which waited there for wait ps and ended its
// transmission at end.
func (s *sim) stampDest(e event, d *port, wire, wait, end int64) {
	if s.intHops == 0 {
		return
	}
	d.bytes += wire
	if r := s.intRecord(e, s.intHops-1); r != nil {
		*r = cc.INTHop{QueueBytes: int64(float64(wait)*float64(d.bw)/psPerSecondBits + 0.5), TxBytes: d.bytes, TimePs: end, RateBps: d.bw}
	}
}

// cnp is DCQCN's notification point: the echo flag of a marked data
// packet of flow fi reaching its receiver at time at, which echoes a mark
// at most once per CNP interval (always without DCQCN).
func (s *sim) cnp(fi int32, at int64) uint8 {
	if s.cnpGap == 0 {
		return flagECE
	}
	if x := &s.ext[fi]; x.lastCNP < 0 || at-x.lastCNP >= s.cnpGap {
		x.lastCNP = at
		return flagECE
	}
	return 0
}

// ackINT hands an ACK to an INTReader with the INT records of the last
// packet received in order, which the ACK answers unless it is a
// duplicate, and frees the flow's ring once all its data is acknowledged.
func (s *sim) ackINT(e event, f *flowState, a cc.Ack) {
	if s.intHops == 0 {
		f.cc.OnAck(a)
		return
	}
	x := &s.ext[e.flow]
	r, ok := f.cc.(cc.INTReader)
	if !ok || e.pkt == 0 || x.ints == nil {
		f.cc.OnAck(a)
	} else {
		o := ((e.pkt - 1) & x.intMask) * s.intHops
		r.OnAckINT(a, x.ints[o:o+s.intHops])
	}
	if f.sndUna == f.npkts && x.ints != nil {
		s.rings = append(s.rings, x.ints)
		x.ints = nil
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
		if s.dc != nil {
			s.dc[e.flow].OnTimeout(s.now)
		} else {
			f.cc.OnTimeout(s.now)
		}
		s.sync(e.flow, f)
		s.activate(e.flow, f)
	}
	s.push(newEvent(s.now+s.rto, evRTO, e.flow, 0, 0, 0))
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
