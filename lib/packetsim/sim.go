package packetsim

import (
	"context"
	"fmt"
	"math"

	"github.com/tailscope/tailscope/lib/cc"
	"github.com/tailscope/tailscope/lib/internal/ecnmark"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

const psPerSecondBits = 8_000_000_000_000 // ps per second times bits per byte

// port is the output side of one channel: what a hop reads and writes,
// 64 bytes in one place so that a hop touches one cache line of port
// state (the large port array is page-aligned).
// Switch ports are FIFO queues kept in closed form: a packet's departure
// is fixed when it arrives (max(now, busyUntil) + serialization), so a
// hop costs one event. Ports leaving a host are NICs, which pick their
// next packet when they fall idle (see nic).
type port struct {
	busyUntil int64 // ps, end of the last transmission scheduled
	psPerByte int64 // 8e12/bw when that is an integer, else 0
	delay     int64 // ps
	// markAbove is the ECN threshold K as the time the backlog takes to
	// drain: marking at enqueue, a data packet is marked when
	// busyUntil-now exceeds it. It is the exact integer image of the test
	// backlog(now) > K in bytes.
	markAbove  int64
	queueNanos float64 // waits of the packets put on the channel, ns
	bytes      int64   // wire bytes put on the channel
	packets    int64
	bw         int64
}

// tx is the serialization time of b bytes in ps.
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

// markThreshold is the largest drain time d (ps) whose backlog
// float64(d)*bw/8e12 is not above k bytes, found by bisection (the
// backlog is monotone in d), so that comparing integers marks exactly the
// packets the float test marks.
func markThreshold(k float64, bw int64) int64 {
	if k < 0 {
		return math.MinInt64 // even an empty port is above K
	}
	backlog := func(d int64) float64 { return float64(d) * float64(bw) / psPerSecondBits }
	lo, hi := int64(0), int64(1)<<62
	if backlog(hi) <= k {
		return math.MaxInt64
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if backlog(mid) <= k {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// dequeuePort is the dequeue marking state of one FIFO port.
type dequeuePort struct {
	q ecnmark.Queue
	k int64 // bytes: data is marked when more are queued behind it
}

// nic is a host's sending side on one channel. ACKs wait in a FIFO and go
// first; data is pulled from the active flows round-robin, each flow
// eligible when its pacing time has come and its window is open.
type nic struct {
	ch       int32
	busy     bool
	paused   bool // by PFC
	acks     []event
	ackHead  int
	ackBytes int64
	active   []int32 // slots of flows with unsent data, in round-robin order
	rr       int
	wakeAt   int64 // pending pacing wake-up, 0 if none
}

// flow is the state of one flow in flight, in a slot that is reused
// once the flow has finished and no packet of it is left: what both ends
// know (its input position, size and packet count), the sender's state,
// and the receiver's, grouped apart: only the destination's side of the
// simulation (onData, tcpReceive) touches the receiver's fields. (DCQCN's
// CNP pacing, flowExt's lastCNP, and stock TCP's out-of-order packets,
// tcpFlow's rcvd, are the receiver's too, kept where only runs that use
// them pay for them.) What a packet needs at a switch (route, sizes) is in
// sim.routes instead, so that forwarding does not touch this. The layout
// keeps a slot at 256 bytes, four cache lines.
type flow struct {
	index int // position in the input
	size  int64
	npkts int32
	alive int32 // packets (data or ACK) of the flow in flight or waiting at a NIC

	// The sender.
	nextSend   int64 // ps, pacing
	progress   int64 // ps, last time sndUna advanced or the flow rewound
	sndNxt     int32 // next packet to send
	sndUna     int32 // first packet not acknowledged
	maxSent    int32 // packets sent at least once
	lastNack   int32 // highest packet a go-back-N request rewound to
	active     bool
	rtoPending bool
	tx         uint32 // under INT, the number of the next transmission (wraps)

	// The sender's congestion control.
	cc    cc.CC        // the flow's controller; nil when dctcp is used
	dctcp cc.DCTCPRate // the built-in rate-based DCTCP, held inline to skip the interface

	// The receiver, on a cache line of its own: in a parallel run the
	// two ends of a flow may be simulated on two cores at once. It keeps
	// its own copy of the flow's size and packet count, since reading the
	// sender's would fetch a line the other core keeps writing.
	nackSent bool  // go-back-N was asked for since the last in-order packet
	rcvNxt   int32 // next packet expected in order
	rcvPkts  int32 // npkts
	rcvSize  int64 // size
	_        [40]byte
}

func (f *flow) window() int64 {
	if f.cc == nil {
		return f.dctcp.WindowBytes()
	}
	return f.cc.WindowBytes()
}

// rate is the pacing rate at now, after the controller's own timers ran.
func (f *flow) rate(now int64) float64 {
	if f.cc == nil {
		return f.dctcp.RateBps()
	}
	if c, ok := f.cc.(cc.Clocked); ok {
		c.Advance(now)
	}
	return f.cc.RateBps()
}

func (f *flow) onAck(a cc.Ack) {
	if f.cc == nil {
		f.dctcp.OnAck(a)
	} else {
		f.cc.OnAck(a)
	}
}

func (f *flow) onTimeout(now int64) {
	if f.cc == nil {
		f.dctcp.OnTimeout(now)
	} else {
		f.cc.OnTimeout(now)
	}
}

// Layout of a slot's entry in sim.routes: the path length, the index and
// wire size of the last data packet, then the path's channels.
const (
	rtLen = iota
	rtLastPkt
	rtLastWire
	rtPath
)

// pending is a started flow waiting for its record to be emitted in flow
// order.
type pending struct {
	rec   metrics.Record
	slot  int32
	done  bool
	start int64 // ps
}

type sim struct {
	net  *topo.Network
	cfg  netcfg.Config
	opts Options
	// Flows enter from src in start order; next is the one to start
	// next, the started-th of the input.
	src      workload.Source
	check    *workload.Checker
	next     workload.Flow
	nextPs   int64
	haveNext bool
	started  int
	newCC    cc.NewCC
	fastCC   bool // flows run the built-in dctcp inline

	fs     []flow
	free   []int32 // retired slots
	routes []int32 // stride entries per slot, see rtLen
	stride int
	// pend is a ring of the started flows from the oldest whose record
	// has not been emitted: pend[(head+i)&(len-1)] is flow emitted+i.
	pend        []pending
	head, npend int
	emitted     int
	emit        func(metrics.Record) error
	err         error // stops the run: emit's error or the time limit
	pathBuf     []int
	ports       []port
	nicOf       []int32 // channel -> index into nics, -1 for switch ports
	drops       []int64 // per channel
	// dequeue holds, when marking at dequeue, each channel's memory of
	// the packets put on its FIFO port, read as they reach its far end.
	dequeue   []dequeuePort
	nics      []nic
	q         eventQueue
	now       int64
	stop      int64
	rto       int64
	dataWire  int64 // wire size of a full data packet
	sampled   []int
	lastBytes []int64
	res       Result
	// What DCQCN and HPCC add, nil or zero (and not paid for) otherwise.
	red     *cc.RED   // RED-style marking instead of the step at K
	cnpGap  int64     // ps; the receiver echoes a mark at most once per gap per flow
	intHops bool      // switch ports stamp INT records into data packets
	ext     []flowExt // per slot, when cnpGap or intHops is set
	extra   bool      // red or intHops: the per-hop work above is on
	// buf is the shared switch buffer and PFC, nil (and not paid for)
	// unless configured.
	buf *buffers
	// finite: buffers are finite, per port (cfg.BufferBytes) or shared
	// (buf); one test on the fast path for both.
	finite bool
	// tcp holds, per slot, stock TCP's loss recovery state when window
	// DCTCP runs with finite buffers (tcp.go); nil otherwise.
	tcp []tcpFlow
	// dropHook, set by tests, drops a packet entering a finite per-port
	// buffer when it returns true, as if the buffer were full.
	dropHook func(e event, c int32) bool
	// par is, in a parallel run, the partition this copy of the
	// simulator runs (parallel.go); nil in a sequential run.
	par *partition
}

// flowExt is the per-flow state of the receiver's CNP pacing and of INT.
//
// Under INT a data packet's send-time field carries instead the number
// of its transmission (flow.tx), which its ACK echoes: INT records are
// kept per transmission, not per packet, so that an ACK reads those of
// the very packet it answers, never those a resent copy is writing.
type flowExt struct {
	lastCNP int64       // ps, last time an ACK echoed a mark; -1 if never
	ints    []cc.INTHop // ring of INT records: (transmission & intMask) * hops + switch hop
	sent    []sentTx    // the sender's ring of transmissions: transmission & intMask
	intMask int32
	hops    int32
}

// entry is the ring entry of transmission tx.
func (x *flowExt) entry(tx uint32) int32 { return int32(tx) & x.intMask }

// sentTx is a transmission under INT, live from its sending until its
// ACK is read or it or its ACK is dropped: its ring entries are not
// reused before.
type sentTx struct {
	at   int64 // ps, sent
	tx   uint32
	live bool
}

func newSim(net *topo.Network, src workload.Source, cfg netcfg.Config, opts Options, newCC cc.NewCC, emit func(metrics.Record) error) (*sim, error) {
	// The network's NIC discipline; the option says the same for runs
	// that set it before the network model held it.
	opts.HostFIFO = opts.HostFIFO || cfg.HostFIFO()
	s := &sim{
		net: net, cfg: cfg, opts: opts, src: src, check: workload.NewChecker(net),
		newCC: newCC, fastCC: opts.CC == nil && cfg.CC == "dctcp",
		stop: math.MaxInt64, emit: emit,
		stride:   rtPath + 6,
		pend:     make([]pending, 1024),
		dataWire: cfg.PayloadBytes + cfg.HeaderBytes,
	}
	if opts.StopAtNanos > 0 {
		s.stop = opts.StopAtNanos * 1000
	}
	switch cfg.CC {
	case "dcqcn":
		d := cfg.DCQCN
		s.red = cc.NewRED(d, opts.Seed, len(net.Channels))
		s.cnpGap = d.ReceiverCNPGapNanos() * 1000
	case "hpcc":
		s.intHops = true
	}
	if s.cnpGap > 0 || s.intHops {
		s.ext = make([]flowExt, 0, 64)
	}
	s.extra = s.red != nil || s.intHops
	if cfg.Lossy() {
		if cfg.DCTCP.MinRTONanos <= 0 {
			return nil, fmt.Errorf("packetsim: a finite buffer needs loss recovery: set dctcp min_rto_nanos > 0")
		}
		s.rto = cfg.DCTCP.MinRTONanos * 1000
		if opts.CC == nil && cfg.CC == "dctcp-window" {
			s.tcp = make([]tcpFlow, 0, 64)
		}
	}
	s.ports = make([]port, len(net.Channels))
	s.nicOf = make([]int32, len(net.Channels))
	s.drops = make([]int64, len(net.Channels))
	for c, ch := range net.Channels {
		p := &s.ports[c]
		p.bw, p.delay = ch.Bandwidth, ch.Delay*1000
		s.nicOf[c] = -1
		if psPerSecondBits%ch.Bandwidth == 0 {
			p.psPerByte = psPerSecondBits / ch.Bandwidth
		}
		k := s.kFor(c)
		p.markAbove = markThreshold(k, ch.Bandwidth)
		if cfg.MarkAtDequeue() && !cfg.SharedBuffer() {
			if s.dequeue == nil {
				s.dequeue = make([]dequeuePort, len(net.Channels))
			}
			s.dequeue[c].k = int64(k)
		}
		if net.IsHost(ch.Src) {
			s.nicOf[c] = int32(len(s.nics))
			s.nics = append(s.nics, nic{ch: int32(c)})
		}
	}
	if cfg.SharedBuffer() {
		s.buf = newBuffers(s)
	}
	s.finite = cfg.BufferBytes > 0 || s.buf != nil
	s.q = newEventQueue()
	if opts.SampleEveryNanos > 0 {
		s.sampled = opts.SampleChannels
		if len(s.sampled) == 0 {
			s.sampled = make([]int, len(net.Channels))
			for c := range s.sampled {
				s.sampled[c] = c
			}
		}
		s.lastBytes = make([]int64, len(s.sampled))
		s.q.pushKey(newEvent(opts.SampleEveryNanos*1000, evSample, 0), sampleKey)
	}
	if err := s.fetch(); err != nil {
		return nil, err
	}
	return s, nil
}

// kFor is the ECN marking threshold of channel c's port, bytes.
func (s *sim) kFor(c int) float64 {
	if kb, ok := s.opts.KBytes[c]; ok {
		return float64(kb)
	}
	return float64(s.cfg.KBytesFor(s.net.Channels[c].Bandwidth))
}

// fetch takes the next flow from the source, checked.
func (s *sim) fetch() error {
	f, ok := s.src.Next()
	if !ok {
		s.haveNext = false
		if err := s.src.Err(); err != nil {
			return fmt.Errorf("packetsim: %w", err)
		}
		return nil
	}
	if err := s.check.Add(f); err != nil {
		return fmt.Errorf("packetsim: %w", err)
	}
	s.next, s.nextPs, s.haveNext = f, f.Start*1000, true
	return nil
}

// checkPath reports a pinned path that does not lead from the flow's
// source to its destination over existing channels, one after the other.
func checkPath(net *topo.Network, f workload.Flow, path []int) error {
	at := f.Src
	for _, c := range path {
		if c < 0 || c >= len(net.Channels) || net.Channels[c].Src != at {
			return fmt.Errorf("packetsim: flow %d: pinned path %v does not continue from node %d with channel %d", f.ID, path, at, c)
		}
		at = net.Channels[c].Dst
		if at != f.Dst && net.IsHost(at) {
			return fmt.Errorf("packetsim: flow %d: pinned path %v passes through host %d", f.ID, path, at)
		}
	}
	if at != f.Dst || len(path) == 0 {
		return fmt.Errorf("packetsim: flow %d: pinned path %v does not reach its destination %d", f.ID, path, f.Dst)
	}
	return nil
}

// route returns a slot's entry in routes (see rtLen).
func (s *sim) route(slot int32) []int32 {
	o := int(slot) * s.stride
	return s.routes[o : o+s.stride]
}

// sampleKey is the tie-break key of port sampling: after every other
// event of its time, so that a sample sees the state that time left.
const sampleKey = math.MaxUint64

// arriveVia schedules packet e's arrival at the far end of channel c,
// which the port of c has just put it on: keyed by c, the port that
// scheduled it.
func (s *sim) arriveVia(e event, c int32) {
	if s.par != nil {
		s.arriveAcross(e, c)
		return
	}
	s.q.push(e, c)
}

// arriveAcross is arriveVia in a parallel run.
func (s *sim) arriveAcross(e event, c int32) {
	if p := s.par; p.chDst[c] != p.id {
		if e.flag()&flagWaited != 0 {
			// Marking at dequeue is decided where the port's queue is,
			// as the transmission ends; the packet leaves then.
			e.t -= s.ports[c].delay
			e.w |= int64(evDepart) << kindPos
			s.q.push(e, c)
			return
		}
		p.send(p.chDst[c], e, c)
		return
	}
	s.q.push(e, c)
}

// pauseVia schedules a PFC frame e for the transmitter of channel cin,
// sent by the switch at cin's far end over the reverse channel, which is
// its key.
func (s *sim) pauseVia(e event, cin int32) {
	if p := s.par; p != nil && p.chSrc[cin] != p.id {
		p.send(p.chSrc[cin], e, cin^1)
		return
	}
	s.q.push(e, cin^1)
}

// channel is the channel a packet crosses at hop, given its flow's route
// entry: the flow's path for data, the reverse channels in reverse order
// for ACKs.
func channel(r []int32, hop int32, ack bool) int32 {
	if !ack {
		return r[rtPath+hop]
	}
	return r[rtPath+r[rtLen]-1-hop] ^ 1
}

// seqBytes is the payload carried by packets 0..p-1 of f.
func (s *sim) seqBytes(size int64, p int32) int64 {
	return min(int64(p)*s.cfg.PayloadBytes, size)
}

// wire is the size of a packet on the wire; r is its flow's route entry.
func (s *sim) wire(e *event, r []int32) int64 {
	switch {
	case e.flag()&flagAck != 0:
		return s.cfg.AckBytes
	case e.pkt == r[rtLastPkt]:
		return int64(r[rtLastWire])
	}
	return s.dataWire
}

func (s *sim) run(ctx context.Context) error {
	for {
		// A look at ctx every 65,536 events (a few milliseconds): records
		// leave in flow order, so a long flow can hold every emit for
		// longer than an interrupt should wait.
		if s.res.Events&(1<<16-1) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		p := s.q.Peek()
		t := int64(math.MaxInt64)
		if p != nil {
			t = p.T
		}
		if s.haveNext && s.nextPs <= t {
			if s.nextPs > s.stop {
				break
			}
			s.now = s.nextPs
			if err := s.start(); err != nil {
				return err
			}
			continue
		}
		if t == math.MaxInt64 || t > s.stop { // no event left, or the stop
			break
		}
		e := eventOf(p)
		s.q.Drop()
		s.now = t
		s.res.Events++
		s.handle(e)
		if s.err != nil {
			return s.err
		}
	}
	return nil
}

// handle runs event e at its time, s.now.
func (s *sim) handle(e event) {
	switch e.kind() {
	case evArrive:
		s.arrive(e)
	case evNicFree:
		n := &s.nics[s.nicOf[e.ref]]
		n.busy = false
		s.pull(n)
	case evNicWake:
		n := &s.nics[s.nicOf[e.ref]]
		if n.wakeAt == e.t {
			n.wakeAt = 0
		}
		s.pull(n)
	case evRTO:
		if s.tcp != nil {
			s.tcpTimer(e)
		} else {
			s.timeout(e)
		}
	case evSample:
		s.sample()
	case evPortFree:
		s.portFree(e.ref)
	case evPause:
		s.pauseArrived(e)
	case evDepart:
		s.depart(e)
	}
}

// start puts the next flow into a slot and lets it send.
func (s *sim) start() error {
	slot, err := s.setUp()
	if err != nil {
		return err
	}
	s.launch(slot)
	return nil
}

// launch lets the flow in slot, set up and starting now, send: it arms
// its retransmission check (finite buffers) and joins its NIC.
func (s *sim) launch(slot int32) {
	f := &s.fs[slot]
	if s.rto > 0 && s.tcp == nil {
		f.rtoPending = true
		s.q.push(newEvent(s.now+s.rto, evRTO, slot), s.route(slot)[rtPath])
	}
	s.activate(slot, f)
}

// lose takes dropped packet e out of its flow's count in flight and,
// under INT, ends its transmission. Both are the sender's, so a
// partition of a parallel run leaves them to the coordinator, which also
// frees the slot if that was the flow's last packet.
func (s *sim) lose(e *event) {
	if s.par != nil {
		s.par.lost = append(s.par.lost, dropped{e.ref, uint32(e.ts())})
		return
	}
	s.drop(e.ref, uint32(e.ts()))
}

// dropped is a packet a partition dropped: its flow's slot and its
// send-time field, under INT its transmission.
type dropped struct {
	slot int32
	tx   uint32
}

// drop is lose on the sender's side.
func (s *sim) drop(slot int32, tx uint32) {
	s.fs[slot].alive--
	if s.intHops {
		x := &s.ext[slot]
		x.sent[x.entry(tx)].live = false
	}
}

// setUp puts the next flow, starting now, into a slot and takes the
// flow after it from the source.
func (s *sim) setUp() (int32, error) {
	fl, index := s.next, s.started
	var path []int
	if s.opts.Paths != nil {
		if index >= len(s.opts.Paths) {
			return 0, fmt.Errorf("packetsim: flow %d has no pinned path: %d paths for more flows", fl.ID, len(s.opts.Paths))
		}
		if err := checkPath(s.net, fl, s.opts.Paths[index]); err != nil {
			return 0, err
		}
		path = append(s.pathBuf[:0], s.opts.Paths[index]...)
	} else {
		var err error
		if path, err = s.net.AppendPath(s.pathBuf[:0], fl.ID, fl.Src, fl.Dst); err != nil {
			return 0, fmt.Errorf("packetsim: flow %d is unroutable: %w", fl.ID, err)
		}
	}
	s.pathBuf = path
	if len(path) > math.MaxUint8 {
		return 0, fmt.Errorf("packetsim: flow %d has a %d-hop path; at most %d hops are supported", fl.ID, len(path), math.MaxUint8)
	}
	npkts := s.cfg.Packets(fl.Size)
	if npkts > math.MaxInt32 {
		return 0, fmt.Errorf("packetsim: flow %d has %d packets; at most %d are supported", fl.ID, npkts, math.MaxInt32)
	}
	slot := s.alloc(len(path))
	r := s.route(slot)
	r[rtLen], r[rtLastPkt] = int32(len(path)), int32(npkts-1)
	r[rtLastWire] = int32(fl.Size - (npkts-1)*s.cfg.PayloadBytes + s.cfg.HeaderBytes)
	for i, c := range path {
		r[rtPath+i] = int32(c)
	}
	f := &s.fs[slot]
	*f = flow{index: index, size: fl.Size, npkts: int32(npkts), lastNack: -1, progress: s.now, nextSend: s.now, rcvPkts: int32(npkts), rcvSize: fl.Size}
	line := s.net.Channels[path[0]].Bandwidth
	if s.fastCC {
		f.dctcp = cc.MakeDCTCPRate(s.cfg, line)
	} else {
		f.cc = s.newCC(s.cfg, line)
		if b, ok := f.cc.(cc.BaseRTTSetter); ok {
			b.SetBaseRTT(s.baseRTT(path))
		}
	}
	if s.ext != nil {
		s.initExt(slot, f, len(path)-1)
	}
	if s.tcp != nil {
		s.tcpStart(slot, f)
	}
	s.addPending(pending{rec: metrics.Record{FlowID: fl.ID, Src: fl.Src, Dst: fl.Dst, Size: fl.Size, Start: fl.Start, Class: fl.Class}, slot: slot, start: s.now})
	s.started++
	return slot, s.fetch()
}

// baseRTT is the round trip of a full data packet along path and of its
// ACK back, over empty queues, in ps.
func (s *sim) baseRTT(path []int) int64 {
	var t int64
	for _, c := range path {
		t += 2*s.ports[c].delay + s.ports[c].tx(s.dataWire) + s.ports[c^1].tx(s.cfg.AckBytes)
	}
	return t
}

// initExt resets the receiver's CNP state of a flow in slot and, under
// INT, sizes its rings to hold every packet the flow can have in flight:
// its window at start, which HPCC never exceeds, or all its packets if
// fewer. A flow that loses packets can have more, the resent ones beside
// the copies still in flight: the rings are then four times that, which
// no flow outgrew in runs at 80% load with one-packet buffers (transmit).
func (s *sim) initExt(slot int32, f *flow, hops int) {
	x := &s.ext[slot]
	x.lastCNP = -1
	if !s.intHops {
		return
	}
	pkts := int64(f.npkts) // a flow has no more packets than that in flight
	if w := f.window(); w/s.cfg.PayloadBytes < pkts {
		pkts = (w+s.cfg.PayloadBytes-1)/s.cfg.PayloadBytes + 2
	}
	if s.rto > 0 {
		pkts *= 4
	}
	ring := int32(1)
	for int64(ring) < pkts {
		ring <<= 1
	}
	x.intMask, x.hops = ring-1, int32(hops)
	if n := int(ring) * hops; cap(x.ints) >= n {
		x.ints = x.ints[:n]
		clear(x.ints)
	} else {
		x.ints = make([]cc.INTHop, n)
	}
	if cap(x.sent) >= int(ring) {
		x.sent = x.sent[:ring]
		clear(x.sent)
	} else {
		x.sent = make([]sentTx, ring)
	}
}

// transmit numbers a transmission of the flow in slot fi under INT and
// holds its ring entries. A flow that resends can have more
// transmissions in flight than its window: the sequential engine then
// doubles the rings; a parallel run cannot, since other partitions'
// switches write into them, and stops with an error instead.
func (s *sim) transmit(fi int32, f *flow) uint32 {
	x := &s.ext[fi]
	tx := f.tx
	f.tx++
	e := &x.sent[x.entry(tx)]
	if e.live {
		if s.par != nil {
			if s.err == nil {
				s.err = fmt.Errorf("packetsim: HPCC: flow %d in start order has more packets in flight than the %d its INT records were sized for, resent ones included; only one worker can grow them: use workers 1", f.index, len(x.sent))
			}
		} else {
			growINT(x)
			e = &x.sent[x.entry(tx)]
		}
	}
	*e = sentTx{at: s.now, tx: tx, live: true}
	return tx
}

// growINT doubles a flow's rings, moving the live transmissions.
func growINT(x *flowExt) {
	n, h := 2*len(x.sent), int(x.hops)
	sent, ints := make([]sentTx, n), make([]cc.INTHop, n*h)
	mask := int32(n - 1)
	for i, e := range x.sent {
		if e.live {
			j := int(int32(e.tx) & mask)
			sent[j] = e
			copy(ints[j*h:(j+1)*h], x.ints[i*h:(i+1)*h])
		}
	}
	x.sent, x.ints, x.intMask = sent, ints, mask
}

// intRec is the INT record data packet e gets at its hop, a switch's.
func (s *sim) intRec(e *event) *cc.INTHop {
	x := &s.ext[e.ref]
	return &x.ints[x.entry(uint32(e.ts()))*x.hops+int32(e.hop())-1]
}

// alloc returns a free slot for a flow with a path of hops channels,
// widening every route entry if the path is longer than any before.
func (s *sim) alloc(hops int) int32 {
	if rtPath+hops > s.stride {
		stride := rtPath + hops
		routes := make([]int32, len(s.fs)*stride)
		for i := range s.fs {
			copy(routes[i*stride:], s.routes[i*s.stride:(i+1)*s.stride])
		}
		s.routes, s.stride = routes, stride
	}
	if n := len(s.free); n > 0 {
		slot := s.free[n-1]
		s.free = s.free[:n-1]
		return slot
	}
	s.fs = append(s.fs, flow{})
	if s.ext != nil {
		s.ext = append(s.ext, flowExt{})
	}
	if s.tcp != nil {
		s.tcp = append(s.tcp, tcpFlow{})
	}
	s.routes = append(s.routes, make([]int32, s.stride)...)
	s.res.PeakFlows = len(s.fs)
	return int32(len(s.fs) - 1)
}

// retire frees the slot of a flow that is done: all data acknowledged, no
// packet of it left anywhere, no timer and no place in a NIC's rotation.
func (s *sim) retire(slot int32) {
	f := &s.fs[slot]
	if f.sndUna == f.npkts && f.alive == 0 && !f.rtoPending && !f.active {
		f.cc = nil // let the collector have a custom controller
		if s.tcp != nil {
			s.tcp[slot].cc = nil
		}
		f.npkts = -1
		s.free = append(s.free, slot)
	}
}

// addPending appends a started flow to the ring of records to emit.
func (s *sim) addPending(p pending) {
	if s.npend == len(s.pend) {
		ring := make([]pending, 2*len(s.pend))
		for i := 0; i < s.npend; i++ {
			ring[i] = s.pend[(s.head+i)&(len(s.pend)-1)]
		}
		s.pend, s.head = ring, 0
	}
	s.pend[(s.head+s.npend)&(len(s.pend)-1)] = p
	s.npend++
}

// finish records the flow in slot, which received its last byte now,
// and emits every record that is due. A partition of a parallel run
// hands the flow to the coordinator instead, which records it between
// windows.
func (s *sim) finish(slot int32, f *flow) {
	if s.par != nil {
		s.par.done = append(s.par.done, finished{slot: slot, at: s.now})
		return
	}
	s.record(slot, f, s.now)
	s.emitDue()
}

// record fills in the record of the flow in slot, which received its
// last byte at now.
func (s *sim) record(slot int32, f *flow, now int64) {
	p := &s.pend[(s.head+f.index-s.emitted)&(len(s.pend)-1)]
	r := s.route(slot)
	path := s.pathBuf[:0]
	for _, c := range r[rtPath : rtPath+r[rtLen]] {
		path = append(path, int(c))
	}
	s.pathBuf = path
	p.rec.FCT = (now - p.start + 500) / 1000
	p.rec.Ideal = metrics.IdealFCT(s.net, path, f.size, s.cfg)
	p.rec.Slowdown = float64(p.rec.FCT) / float64(p.rec.Ideal)
	p.done = true
}

// emitDue emits the records of the oldest flows that are done, in flow
// order.
func (s *sim) emitDue() {
	for s.npend > 0 && s.pend[s.head].done && s.err == nil {
		s.err = s.emit(s.pend[s.head].rec)
		s.head = (s.head + 1) & (len(s.pend) - 1)
		s.npend--
		s.emitted++
	}
}

func (s *sim) arrive(e event) {
	r := s.route(e.ref)
	ack := e.flag()&flagAck != 0
	if e.flag()&flagWaited != 0 {
		s.markLeft(&e, r, ack, s.now)
	}
	if next := int32(e.hop()) + 1; next < r[rtLen] {
		e.w += 1 << hopPos // next hop
		c := channel(r, next, ack)
		if s.enqueue(e, c, s.wire(&e, r)) {
			if s.par == nil {
				s.retire(e.ref)
			}
		} else if s.extra && s.buf == nil {
			s.stampINT(e, c)
		}
		return
	}
	f := &s.fs[e.ref]
	if ack {
		s.onAck(e, f)
	} else {
		s.onData(e, f, r)
		if s.par != nil {
			// The slot is the sender's to free: without losses a data
			// packet's arrival never frees it (its ACK is in flight).
			return
		}
	}
	s.retire(e.ref)
}

// markLeft is dequeue marking of packet e, which waited at the FIFO port
// of the channel it crosses and reaches its far end at: it is marked if
// more than K bytes queued behind it there (none can be behind a packet
// that did not wait, so the others skip this).
func (s *sim) markLeft(e *event, r []int32, ack bool, at int64) {
	d := &s.dequeue[channel(r, int32(e.hop()), ack)]
	if behind := d.q.Pop(at); s.extra {
		s.dequeued(e, ack, behind)
	} else if !ack && behind > d.k && e.flag()&flagECE == 0 {
		e.w |= int64(flagECE) << flagPos
		s.res.Marks++
	}
}

// enqueue puts a packet of wire bytes on channel c's FIFO port, or drops
// it if the buffer is full, reporting whether it did. Marking at enqueue,
// it CE-marks data above the port's threshold; marking at dequeue, it
// records a packet that has to wait for arrive to judge.
func (s *sim) enqueue(e event, c int32, wire int64) (dropped bool) {
	p := &s.ports[c]
	if s.finite {
		if s.buf != nil {
			return s.bufEnqueue(e, c, wire)
		}
		if p.backlog(s.now)+float64(wire) > float64(s.cfg.BufferBytes) || s.dropHook != nil && s.dropHook(e, c) {
			s.res.Drops++
			if e.flag()&flagAck != 0 {
				s.res.AckDrops++
			}
			s.drops[c]++
			s.lose(&e)
			return true
		}
	}
	wait := p.busyUntil - s.now
	if s.dequeue == nil && e.flag()&(flagAck|flagECE) == 0 && (s.red == nil && wait > p.markAbove || s.red != nil && s.red.Mark(int(c), p.backlog(s.now))) {
		e.w |= int64(flagECE) << flagPos
		s.res.Marks++
	}
	if wait > 0 {
		p.queueNanos += float64(wait) / 1000
	}
	end := max(s.now, p.busyUntil) + p.tx(wire)
	if s.dequeue != nil {
		e.w &^= int64(flagWaited) << flagPos
		if wait > 0 {
			s.dequeue[c].q.Push(s.now, p.busyUntil, end+p.delay, wire)
			e.w |= int64(flagWaited) << flagPos
		}
	}
	p.busyUntil = end
	p.bytes += wire
	p.packets++
	s.res.PacketHops++
	e.t = end + p.delay // e is an evArrive packet
	s.arriveVia(e, c)
	return false
}

// dequeued is arrive's dequeue marking under DCQCN or HPCC: a data packet
// that left behind bytes queued is marked by DCQCN's RED profile or by
// the step at K, and HPCC's INT reads that queue.
func (s *sim) dequeued(e *event, ack bool, behind int64) {
	if ack {
		return
	}
	c := channel(s.route(e.ref), int32(e.hop()), false)
	if e.flag()&flagECE == 0 && (s.red == nil && behind > s.dequeue[c].k || s.red != nil && s.red.Mark(int(c), float64(behind))) {
		e.w |= int64(flagECE) << flagPos
		s.res.Marks++
	}
	if s.intHops && e.hop() > 0 {
		s.intRec(e).QueueBytes = behind
	}
}

// stampINT writes, under HPCC, the INT record of switch port c into data
// packet e, which enqueue has just put on it (so the port's last
// transmission and byte count are the packet's). Its queue length is the
// bytes ahead of the packet; marking at dequeue, dequeued replaces it
// with the bytes behind the packet as it left, as the fork's switches
// report. Stamping here rather than in enqueue keeps enqueue's hot path
// as it was.
func (s *sim) stampINT(e event, c int32) {
	if !s.intHops || e.flag()&flagAck != 0 {
		return
	}
	p := &s.ports[c]
	end := p.busyUntil
	start := end - p.tx(s.wire(&e, s.route(e.ref)))
	*s.intRec(&e) = cc.INTHop{
		QueueBytes: int64(float64(start-s.now)*float64(p.bw)/psPerSecondBits + 0.5),
		TxBytes:    p.bytes,
		TimePs:     end,
		RateBps:    p.bw,
	}
}

// send puts a packet on a NIC's channel.
func (s *sim) send(n *nic, e event, wire int64) {
	p := &s.ports[n.ch]
	end := s.now + p.tx(wire)
	p.busyUntil = end
	n.busy = true
	p.bytes += wire
	p.packets++
	s.res.PacketHops++
	s.q.push(newEvent(end, evNicFree, n.ch), n.ch)
	e.t = end + p.delay // e is an evArrive packet at hop 0
	s.arriveVia(e, n.ch)
}

// pull starts the next transmission of an idle NIC: a queued ACK, else a
// data packet of the next eligible flow; if flows wait only for their
// pacing time, it schedules a wake-up.
func (s *sim) pull(n *nic) {
	if n.busy || n.paused {
		return
	}
	if n.ackHead < len(n.acks) {
		e := popFront(&n.acks, &n.ackHead)
		n.ackBytes -= s.cfg.AckBytes
		s.res.AckPackets++
		s.send(n, e, s.cfg.AckBytes)
		return
	}
	wake := int64(math.MaxInt64)
	for tried := 0; tried < len(n.active); tried++ {
		i := (n.rr + tried) % len(n.active)
		fi := n.active[i]
		f := &s.fs[fi]
		if !s.windowOpen(fi, f) {
			continue // window closed: an ACK will call pull again
		}
		if f.nextSend > s.now {
			wake = min(wake, f.nextSend)
			continue
		}
		e := s.take(fi, f)
		wire := s.wire(&e, s.route(fi))
		f.nextSend = s.now + int64(float64(wire)*psPerSecondBits/f.rate(s.now)+0.5)
		n.rr = i + 1
		if !s.hasData(fi, f) { // nothing left to send: leave the rotation
			f.active = false
			n.active = append(n.active[:i], n.active[i+1:]...)
			n.rr = i
		}
		s.send(n, e, wire)
		return
	}
	if wake != math.MaxInt64 && (n.wakeAt == 0 || wake < n.wakeAt) {
		n.wakeAt = wake
		s.q.push(newEvent(wake, evNicWake, n.ch), n.ch)
	}
}

// nextData takes flow fi's next data packet to send.
func (s *sim) nextData(fi int32, f *flow) event {
	pkt := f.sndNxt
	f.sndNxt++
	if pkt < f.maxSent {
		s.res.Retransmits++
	} else {
		f.maxSent = pkt + 1
	}
	s.res.DataPackets++
	f.alive++
	if s.now > maxTs && s.err == nil {
		s.err = fmt.Errorf("packetsim: simulated time passed %d ns, the most a run supports", maxTs/1000)
	}
	if s.intHops {
		return packet(fi, pkt, int64(s.transmit(fi, f)), 0)
	}
	return packet(fi, pkt, s.now, 0)
}

// windowOpen reports whether the flow in slot fi may send another packet
// now.
func (s *sim) windowOpen(fi int32, f *flow) bool {
	if s.tcp != nil {
		return s.tcpCanSend(fi, f)
	}
	return f.sndNxt < f.npkts && s.seqBytes(f.size, f.sndNxt)-s.seqBytes(f.size, f.sndUna) < f.window()
}

// hasData reports whether the flow in slot fi has a packet to send when
// its window allows.
func (s *sim) hasData(fi int32, f *flow) bool {
	if s.tcp != nil {
		return s.tcpNextSeg(&s.tcp[fi], f) >= 0
	}
	return f.sndNxt < f.npkts
}

// take takes the next packet the flow in slot fi sends.
func (s *sim) take(fi int32, f *flow) event {
	if s.tcp != nil {
		return s.tcpTake(fi, f)
	}
	return s.nextData(fi, f)
}

// activate puts a flow that has data to (re)send back into its NIC's
// rotation and lets the NIC look at it; under HostFIFO it hands the NIC
// every packet the window allows.
func (s *sim) activate(fi int32, f *flow) {
	r := s.route(fi)
	c := r[rtPath]
	if s.opts.HostFIFO {
		for s.windowOpen(fi, f) {
			e := s.take(fi, f)
			s.enqueue(e, c, s.wire(&e, r))
		}
		return
	}
	n := &s.nics[s.nicOf[c]]
	if !f.active && s.hasData(fi, f) {
		f.active = true
		n.active = append(n.active, fi)
	}
	s.pull(n)
}

// onData is the receiver: it takes packets in order, discards others, and
// answers every data packet with a cumulative ACK echoing its CE mark. The
// first out-of-order packet after an in-order one asks for go-back-N.
// Under stock TCP (s.tcp) it holds out-of-order packets instead and the
// ACK reports them (tcpReceive).
func (s *sim) onData(e event, f *flow, r []int32) {
	flag := flagAck | e.flag()&flagECE
	if s.cnpGap > 0 && flag&flagECE != 0 {
		// DCQCN's notification point: at most one CNP per gap.
		if x := &s.ext[e.ref]; x.lastCNP < 0 || s.now-x.lastCNP >= s.cnpGap {
			x.lastCNP = s.now
		} else {
			flag &^= flagECE
		}
	}
	echo := e.ts()
	if s.tcp != nil {
		echo = s.tcpReceive(e, f)
	} else if e.pkt == f.rcvNxt {
		f.rcvNxt++
		f.nackSent = false
		s.res.DeliveredBytes += s.seqBytes(f.rcvSize, e.pkt+1) - s.seqBytes(f.rcvSize, e.pkt)
		if f.rcvNxt == f.rcvPkts {
			s.finish(e.ref, f)
		}
	} else {
		s.res.Duplicates++
		if e.pkt > f.rcvNxt && !f.nackSent {
			f.nackSent = true
			flag |= flagNack
		}
	}
	c := channel(r, 0, true)
	ack := packet(e.ref, f.rcvNxt, echo, flag)
	if s.opts.HostFIFO {
		s.res.AckPackets++
		s.enqueue(ack, c, s.cfg.AckBytes)
		return
	}
	n := &s.nics[s.nicOf[c]]
	n.acks = append(n.acks, ack)
	n.ackBytes += s.cfg.AckBytes
	s.pull(n)
}

// onAck is the sender's side of an ACK.
func (s *sim) onAck(e event, f *flow) {
	if s.tcp != nil {
		s.tcpAck(e, f)
		return
	}
	f.alive--
	var acked int64
	if e.pkt > f.sndUna {
		acked = s.seqBytes(f.size, e.pkt) - s.seqBytes(f.size, f.sndUna)
		f.sndUna = e.pkt
		f.progress = s.now
	}
	a := cc.Ack{
		Now:     s.now,
		Acked:   acked,
		AckSeq:  s.seqBytes(f.size, e.pkt),
		NextSeq: s.seqBytes(f.size, f.sndNxt),
		ECE:     e.flag()&flagECE != 0,
		RTT:     s.now - e.ts(),
	}
	if s.intHops {
		s.ackINT(e, f, a)
	} else {
		f.onAck(a)
	}
	if e.flag()&flagNack != 0 && e.pkt > f.lastNack && e.pkt < f.sndNxt {
		f.lastNack = e.pkt
		f.sndNxt = e.pkt
		f.progress = s.now
	}
	if f.active || f.sndNxt < f.npkts {
		s.activate(e.ref, f)
	}
}

// ackINT hands an ACK to an INTReader with the INT records of the
// transmission it answers, as a switch's INT header travels back in the
// ACK, duplicate or not, and ends that transmission.
func (s *sim) ackINT(e event, f *flow, a cc.Ack) {
	x := &s.ext[e.ref]
	i := x.entry(uint32(e.ts()))
	t := &x.sent[i]
	t.live = false
	a.RTT = s.now - t.at
	r, ok := f.cc.(cc.INTReader)
	if !ok {
		f.onAck(a)
		return
	}
	r.OnAckINT(a, x.ints[i*x.hops:(i+1)*x.hops])
}

// timeout is a flow's retransmission timer (finite buffers only): without
// progress for an RTO the sender goes back to its first unacknowledged
// packet.
func (s *sim) timeout(e event) {
	f := &s.fs[e.ref]
	if f.sndUna >= f.npkts {
		f.rtoPending = false
		s.retire(e.ref)
		return
	}
	if s.now-f.progress >= s.rto && f.sndNxt > f.sndUna {
		s.res.Timeouts++
		f.sndNxt = f.sndUna
		f.progress = s.now
		f.onTimeout(s.now)
		s.activate(e.ref, f)
	}
	s.q.push(newEvent(s.now+s.rto, evRTO, e.ref), s.route(e.ref)[rtPath])
}

func (s *sim) sample() {
	every := s.opts.SampleEveryNanos
	for i, c := range s.sampled {
		p := &s.ports[c]
		q := p.backlog(s.now) + s.buf.queued(c)
		if n := s.nicOf[c]; n >= 0 {
			q += float64(s.nics[n].ackBytes)
		}
		b := p.bytes
		s.res.Samples = append(s.res.Samples, PortSample{
			TimeNanos:   s.now / 1000,
			Channel:     c,
			QueueBytes:  int64(q + 0.5),
			Utilisation: float64(b-s.lastBytes[i]) * 8 / (float64(p.bw) * float64(every) / 1e9),
		})
		s.lastBytes[i] = b
	}
	if !s.q.Empty() || s.haveNext {
		s.q.pushKey(newEvent(s.now+every*1000, evSample, 0), sampleKey)
	}
}

// result emits the records still due, lists the unfinished flows (those
// in flight at the stop, then those that never started) and fills in the
// per-channel counts.
func (s *sim) result() (*Result, error) {
	r := &s.res
	r.EndNanos = (s.now + 500) / 1000
	for ; s.npend > 0; s.npend-- {
		p := &s.pend[s.head]
		s.head = (s.head + 1) & (len(s.pend) - 1)
		if p.done {
			if err := s.emit(p.rec); err != nil {
				return nil, err
			}
			continue
		}
		f := &s.fs[p.slot]
		r.Unfinished = append(r.Unfinished, FlowProgress{
			FlowID: p.rec.FlowID, Size: p.rec.Size,
			Delivered: s.seqBytes(f.size, f.rcvNxt), Acked: s.seqBytes(f.size, f.sndUna),
		})
	}
	for s.haveNext {
		r.Unfinished = append(r.Unfinished, FlowProgress{FlowID: s.next.ID, Size: s.next.Size})
		if err := s.fetch(); err != nil {
			return nil, err
		}
	}
	n := len(s.ports)
	r.ChannelBytes, r.ChannelPackets = make([]int64, n), make([]int64, n)
	r.ChannelQueueNanos, r.ChannelDrops = make([]float64, n), make([]int64, n)
	r.ChannelPauses, r.ChannelPausedNanos = make([]int64, n), make([]int64, n)
	if s.buf != nil {
		s.buf.finishPauses(s.now)
	}
	for c := range s.ports {
		p := &s.ports[c]
		r.ChannelBytes[c], r.ChannelPackets[c] = p.bytes, p.packets
		r.ChannelQueueNanos[c], r.ChannelDrops[c] = p.queueNanos, s.drops[c]
		if s.buf != nil {
			r.ChannelPauses[c], r.ChannelPausedNanos[c] = s.buf.pauses[c], (s.buf.pausedPs[c]+500)/1000
			r.PausedNanos += r.ChannelPausedNanos[c]
		}
	}
	return r, nil
}
