package packetsim

import (
	"fmt"
	"math"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

const psPerSecondBits = 8_000_000_000_000 // ps per second times bits per byte

// port is the output side of one channel. Switch ports are FIFO queues
// kept in closed form: a packet's departure is fixed when it arrives
// (max(now, busyUntil) + serialization), so a hop costs one event.
// Ports leaving a host are NICs, which pick their next packet when they
// fall idle (see nic).
type port struct {
	bw        int64
	psPerByte int64 // 8e12/bw when that is an integer, else 0
	delay     int64 // ps
	k         float64
	busyUntil int64 // ps, end of the last transmission scheduled
	bytes     int64
	nic       int32 // index into sim.nics, -1 for switch ports
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

// nic is a host's sending side on one channel. ACKs wait in a FIFO and go
// first; data is pulled from the active flows round-robin, each flow
// eligible when its pacing time has come and its window is open.
type nic struct {
	ch       int32
	busy     bool
	acks     []event
	ackHead  int
	ackBytes int64
	active   []int32 // flows with unsent data, in round-robin order
	rr       int
	wakeAt   int64 // pending pacing wake-up, 0 if none
}

type flowState struct {
	size     int64
	startPs  int64
	pathOff  int32
	pathLen  int32
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
	cc       CC
}

type sim struct {
	net   *topo.Network
	cfg   netcfg.Config
	opts  Options
	flows []workload.Flow
	fs    []flowState
	paths []int32
	ports []port
	nics  []nic
	q     eventQueue
	now   int64
	next  int // next flow to start
	stop  int64
	rto   int64

	sampled   []int
	lastBytes []int64
	res       Result
}

func newSim(net *topo.Network, flows []workload.Flow, cfg netcfg.Config, opts Options, newCC NewCC) (*sim, error) {
	s := &sim{net: net, cfg: cfg, opts: opts, flows: flows, stop: math.MaxInt64, q: newEventQueue()}
	if opts.StopAtNanos > 0 {
		s.stop = opts.StopAtNanos * 1000
	}
	if cfg.BufferBytes > 0 {
		if cfg.DCTCP.MinRTONanos <= 0 {
			return nil, fmt.Errorf("packetsim: a finite buffer needs loss recovery: set dctcp min_rto_nanos > 0")
		}
		s.rto = cfg.DCTCP.MinRTONanos * 1000
	}
	s.ports = make([]port, len(net.Channels))
	for c, ch := range net.Channels {
		p := &s.ports[c]
		p.bw, p.delay, p.nic = ch.Bandwidth, ch.Delay*1000, -1
		if psPerSecondBits%ch.Bandwidth == 0 {
			p.psPerByte = psPerSecondBits / ch.Bandwidth
		}
		p.k = float64(cfg.KBytesFor(ch.Bandwidth))
		if k, ok := opts.KBytes[c]; ok {
			p.k = float64(k)
		}
		if net.IsHost(ch.Src) {
			p.nic = int32(len(s.nics))
			s.nics = append(s.nics, nic{ch: int32(c)})
		}
	}
	s.fs = make([]flowState, len(flows))
	var buf []int
	for i, f := range flows {
		if opts.Paths != nil {
			if err := checkPath(net, f, opts.Paths[i]); err != nil {
				return nil, err
			}
			buf = append(buf[:0], opts.Paths[i]...)
		} else {
			var err error
			if buf, err = net.AppendPath(buf[:0], f.ID, f.Src, f.Dst); err != nil {
				return nil, fmt.Errorf("packetsim: flow %d is unroutable: %w", f.ID, err)
			}
		}
		if len(buf) > math.MaxUint8 {
			return nil, fmt.Errorf("packetsim: flow %d has a %d-hop path; at most %d hops are supported", f.ID, len(buf), math.MaxUint8)
		}
		npkts := cfg.Packets(f.Size)
		if npkts > math.MaxInt32 {
			return nil, fmt.Errorf("packetsim: flow %d has %d packets; at most %d are supported", f.ID, npkts, math.MaxInt32)
		}
		fs := &s.fs[i]
		fs.size, fs.startPs, fs.npkts = f.Size, f.Start*1000, int32(npkts)
		fs.pathOff, fs.pathLen = int32(len(s.paths)), int32(len(buf))
		fs.finish, fs.lastNack = -1, -1
		for _, c := range buf {
			s.paths = append(s.paths, int32(c))
		}
		fs.cc = newCC(cfg, net.Channels[buf[0]].Bandwidth)
	}
	s.res.ChannelBytes = make([]int64, len(net.Channels))
	s.res.ChannelPackets = make([]int64, len(net.Channels))
	s.res.ChannelQueueNanos = make([]float64, len(net.Channels))
	s.res.ChannelDrops = make([]int64, len(net.Channels))
	if opts.SampleEveryNanos > 0 {
		s.sampled = opts.SampleChannels
		if len(s.sampled) == 0 {
			s.sampled = make([]int, len(net.Channels))
			for c := range s.sampled {
				s.sampled[c] = c
			}
		}
		s.lastBytes = make([]int64, len(s.sampled))
		s.q.push(event{t: opts.SampleEveryNanos * 1000, kind: evSample})
	}
	return s, nil
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

// route is the channel a packet of flow f crosses at hop: the flow's path
// for data, the reverse channels in reverse order for ACKs.
func (s *sim) route(f *flowState, hop int32, ack bool) int32 {
	if !ack {
		return s.paths[f.pathOff+hop]
	}
	return s.paths[f.pathOff+f.pathLen-1-hop] ^ 1
}

// seqBytes is the payload carried by packets 0..p-1 of f.
func (s *sim) seqBytes(f *flowState, p int32) int64 {
	return min(int64(p)*s.cfg.PayloadBytes, f.size)
}

// wire is the size of a packet on the wire.
func (s *sim) wire(e *event) int64 {
	if e.flag&flagAck != 0 {
		return s.cfg.AckBytes
	}
	f := &s.fs[e.flow]
	return s.seqBytes(f, e.pkt+1) - s.seqBytes(f, e.pkt) + s.cfg.HeaderBytes
}

func (s *sim) run() {
	for {
		if s.next < len(s.fs) && s.fs[s.next].startPs <= s.q.next() {
			if s.fs[s.next].startPs > s.stop {
				break
			}
			s.now = s.fs[s.next].startPs
			s.start(int32(s.next))
			s.next++
			continue
		}
		if s.q.empty() || s.q.next() > s.stop {
			break
		}
		e := s.q.pop()
		s.now = e.t
		s.res.Events++
		switch e.kind {
		case evArrive:
			s.arrive(e)
		case evNicFree:
			n := &s.nics[s.ports[e.ch].nic]
			n.busy = false
			s.pull(n)
		case evNicWake:
			n := &s.nics[s.ports[e.ch].nic]
			if n.wakeAt == e.t {
				n.wakeAt = 0
			}
			s.pull(n)
		case evRTO:
			s.timeout(e)
		case evSample:
			s.sample()
		}
	}
}

func (s *sim) start(i int32) {
	f := &s.fs[i]
	f.progress = s.now
	f.nextSend = s.now
	if s.rto > 0 {
		s.q.push(event{t: s.now + s.rto, kind: evRTO, flow: i})
	}
	s.activate(i, f)
}

func (s *sim) arrive(e event) {
	f := &s.fs[e.flow]
	ack := e.flag&flagAck != 0
	if int32(e.hop)+1 < f.pathLen {
		s.forward(e, s.route(f, int32(e.hop)+1, ack))
		return
	}
	if ack {
		s.onAck(e, f)
	} else {
		s.onData(e, f)
	}
}

// forward puts a packet that reached a switch on its next channel c.
func (s *sim) forward(e event, c int32) {
	e.hop++
	s.enqueue(e, c)
}

// enqueue puts a packet on channel c's FIFO port, dropping it if the
// buffer is full and CE-marking data above the port's threshold.
func (s *sim) enqueue(e event, c int32) {
	p := &s.ports[c]
	wire := s.wire(&e)
	q := p.backlog(s.now)
	if s.cfg.BufferBytes > 0 && q+float64(wire) > float64(s.cfg.BufferBytes) {
		s.res.Drops++
		s.res.ChannelDrops[c]++
		return
	}
	if e.flag&(flagAck|flagECE) == 0 && q > p.k {
		e.flag |= flagECE
		s.res.Marks++
	}
	if p.busyUntil > s.now {
		s.res.ChannelQueueNanos[c] += float64(p.busyUntil-s.now) / 1000
	}
	end := max(s.now, p.busyUntil) + p.tx(wire)
	p.busyUntil = end
	s.res.ChannelBytes[c] += wire
	s.res.ChannelPackets[c]++
	s.res.PacketHops++
	e.t, e.ch, e.kind = end+p.delay, c, evArrive
	s.q.push(e)
}

// send puts a packet on a NIC's channel.
func (s *sim) send(n *nic, e event) {
	p := &s.ports[n.ch]
	wire := s.wire(&e)
	end := s.now + p.tx(wire)
	p.busyUntil = end
	n.busy = true
	s.res.ChannelBytes[n.ch] += wire
	s.res.ChannelPackets[n.ch]++
	s.res.PacketHops++
	s.q.push(event{t: end, kind: evNicFree, ch: n.ch})
	e.t, e.ch, e.hop, e.kind = end+p.delay, n.ch, 0, evArrive
	s.q.push(e)
}

// pull starts the next transmission of an idle NIC: a queued ACK, else a
// data packet of the next eligible flow; if flows wait only for their
// pacing time, it schedules a wake-up.
func (s *sim) pull(n *nic) {
	if n.busy {
		return
	}
	if n.ackHead < len(n.acks) {
		e := n.acks[n.ackHead]
		n.ackHead++
		if n.ackHead == len(n.acks) {
			n.acks, n.ackHead = n.acks[:0], 0
		}
		n.ackBytes -= s.cfg.AckBytes
		s.res.AckPackets++
		s.send(n, e)
		return
	}
	wake := int64(math.MaxInt64)
	for tried := 0; tried < len(n.active); tried++ {
		i := (n.rr + tried) % len(n.active)
		fi := n.active[i]
		f := &s.fs[fi]
		if s.seqBytes(f, f.sndNxt)-s.seqBytes(f, f.sndUna) >= f.cc.WindowBytes() {
			continue // window closed: an ACK will call pull again
		}
		if f.nextSend > s.now {
			wake = min(wake, f.nextSend)
			continue
		}
		e := s.nextData(fi, f)
		wire := s.wire(&e)
		f.nextSend = s.now + int64(float64(wire)*psPerSecondBits/f.cc.RateBps()+0.5)
		n.rr = i + 1
		if f.sndNxt == f.npkts { // nothing left to send: leave the rotation
			f.active = false
			n.active = append(n.active[:i], n.active[i+1:]...)
			n.rr = i
		}
		s.send(n, e)
		return
	}
	if wake != math.MaxInt64 && (n.wakeAt == 0 || wake < n.wakeAt) {
		n.wakeAt = wake
		s.q.push(event{t: wake, kind: evNicWake, ch: n.ch})
	}
}

// nextData takes flow fi's next data packet to send.
func (s *sim) nextData(fi int32, f *flowState) event {
	pkt := f.sndNxt
	f.sndNxt++
	if pkt < f.maxSent {
		s.res.Retransmits++
	} else {
		f.maxSent = pkt + 1
	}
	s.res.DataPackets++
	return event{flow: fi, pkt: pkt, ts: s.now}
}

// windowOpen reports whether f may send another packet now.
func (s *sim) windowOpen(f *flowState) bool {
	return f.sndNxt < f.npkts && s.seqBytes(f, f.sndNxt)-s.seqBytes(f, f.sndUna) < f.cc.WindowBytes()
}

// activate puts a flow that has data to (re)send back into its NIC's
// rotation and lets the NIC look at it; under HostFIFO it hands the NIC
// every packet the window allows.
func (s *sim) activate(fi int32, f *flowState) {
	if s.opts.HostFIFO {
		c := s.paths[f.pathOff]
		for s.windowOpen(f) {
			s.enqueue(s.nextData(fi, f), c)
		}
		return
	}
	n := &s.nics[s.ports[s.paths[f.pathOff]].nic]
	if !f.active && f.sndNxt < f.npkts {
		f.active = true
		n.active = append(n.active, fi)
	}
	s.pull(n)
}

// onData is the receiver: it takes packets in order, discards others, and
// answers every data packet with a cumulative ACK echoing its CE mark. The
// first out-of-order packet after an in-order one asks for go-back-N.
func (s *sim) onData(e event, f *flowState) {
	flag := flagAck | e.flag&flagECE
	if e.pkt == f.rcvNxt {
		f.rcvNxt++
		f.nackSent = false
		s.res.DeliveredBytes += s.seqBytes(f, e.pkt+1) - s.seqBytes(f, e.pkt)
		if f.rcvNxt == f.npkts {
			f.finish = s.now
		}
	} else {
		s.res.Duplicates++
		if e.pkt > f.rcvNxt && !f.nackSent {
			f.nackSent = true
			flag |= flagNack
		}
	}
	c := s.route(f, 0, true)
	ack := event{flow: e.flow, pkt: f.rcvNxt, ts: e.ts, flag: flag}
	if s.opts.HostFIFO {
		s.res.AckPackets++
		s.enqueue(ack, c)
		return
	}
	n := &s.nics[s.ports[c].nic]
	n.acks = append(n.acks, ack)
	n.ackBytes += s.cfg.AckBytes
	s.pull(n)
}

// onAck is the sender's side of an ACK.
func (s *sim) onAck(e event, f *flowState) {
	var acked int64
	if e.pkt > f.sndUna {
		acked = s.seqBytes(f, e.pkt) - s.seqBytes(f, f.sndUna)
		f.sndUna = e.pkt
		f.progress = s.now
	}
	f.cc.OnAck(Ack{
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
	s.q.push(event{t: s.now + s.rto, kind: evRTO, flow: e.flow})
}

func (s *sim) sample() {
	every := s.opts.SampleEveryNanos
	for i, c := range s.sampled {
		p := &s.ports[c]
		q := p.backlog(s.now)
		if p.nic >= 0 {
			q += float64(s.nics[p.nic].ackBytes)
		}
		b := s.res.ChannelBytes[c]
		s.res.Samples = append(s.res.Samples, PortSample{
			TimeNanos:   s.now / 1000,
			Channel:     c,
			QueueBytes:  int64(q + 0.5),
			Utilisation: float64(b-s.lastBytes[i]) * 8 / (float64(p.bw) * float64(every) / 1e9),
		})
		s.lastBytes[i] = b
	}
	if !s.q.empty() || s.next < len(s.fs) {
		s.q.push(event{t: s.now + every*1000, kind: evSample})
	}
}

func (s *sim) result() *Result {
	r := &s.res
	r.EndNanos = (s.now + 500) / 1000
	path := make([]int, 0, 8)
	for i, fl := range s.flows {
		f := &s.fs[i]
		if f.finish < 0 {
			r.Unfinished = append(r.Unfinished, FlowProgress{
				FlowID: fl.ID, Size: fl.Size,
				Delivered: s.seqBytes(f, f.rcvNxt), Acked: s.seqBytes(f, f.sndUna),
			})
			continue
		}
		path = path[:0]
		for _, c := range s.paths[f.pathOff : f.pathOff+f.pathLen] {
			path = append(path, int(c))
		}
		fct := (f.finish - f.startPs + 500) / 1000
		ideal := metrics.IdealFCT(s.net, path, fl.Size, s.cfg)
		r.Records = append(r.Records, metrics.Record{
			FlowID: fl.ID, Src: fl.Src, Dst: fl.Dst, Size: fl.Size, Start: fl.Start,
			FCT: fct, Ideal: ideal, Slowdown: float64(fct) / float64(ideal), Class: fl.Class,
		})
	}
	return r
}
