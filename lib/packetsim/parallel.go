package packetsim

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tailscope/tailscope/lib/internal/calendar"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
)

// The parallel engine (Options.Workers above 1) splits the network's
// nodes into partitions, one per worker, and synchronizes them
// conservatively. A packet put on a channel at time t reaches its far end
// no earlier than t plus the channel's propagation delay, so with L, the
// lookahead, the smallest delay of a channel between two partitions,
// nothing a partition does in the window [T, T+L) reaches another before
// T+L. Each window the partitions simulate their own events in parallel
// and leave the packets and PFC frames bound elsewhere in outboxes,
// which their receivers take in at the start of the next window.
//
// The records are those of the sequential engine because everything an
// event touches belongs to one partition (a port and its queue, marks and
// random stream to its transmitter's node, a shared buffer and its
// ingress accounting to its switch, a flow's sender state to its source
// host, its receiver state to its destination), and every partition runs
// its events in the order of the sequential engine's tie-break key
// (tieKey), which depends only on the event's time and the channel that
// scheduled it. Two things move: marking at dequeue on a channel between
// partitions is decided at the channel's transmitter as the transmission
// ends (evDepart), not at its far end, which reads the same queue state;
// and records are made by a coordinator between windows and emitted in
// flow order as before. Flows start between windows too: the coordinator
// takes them from the source, gives them slots (shared by all partitions,
// since every node a flow crosses reads its route) and the source host's
// partition lets them send at their start time.
//
// HPCC's INT records stay in the flow's ring, one entry per
// transmission, written by the switches' partitions and read by the
// sender's after the transmission's ACK came back, which crosses at
// least one window barrier when a switch is in another partition. An
// entry is reused only after its transmission ended, its ACK read or it
// or its ACK dropped, so no two partitions touch one entry in a window.
// A drop takes the packet out of its flow's count in flight and ends its
// transmission, both the sender's: the dropping partition lists it, and
// the coordinator applies it between windows and frees the slot if it
// was the flow's last packet. The rings cannot grow while other
// partitions write into them; a flow that outgrows its ring (four times
// its window when it can lose packets) stops a parallel run with an
// error, where one worker grows it.

// partition is one worker's part of a parallel run. The coordinator
// and the worker talk through two cache lines, cmd and rep, and touch
// the worker's lists only when rep counts entries in them: a line passed
// between cores costs hundreds of nanoseconds on some machines, and a
// window holds only microseconds of work.
type partition struct {
	// The padding keeps other objects, another partition's among them,
	// off the cache lines of the fields a worker writes at every event.
	_     [64]byte
	id    int32
	chDst []int32 // channel -> partition of its far end (shared)
	chSrc []int32 // channel -> partition of its transmitter (shared)
	// out holds, per window parity and destination partition, the events
	// sent there in the order they were made. The receivers only read
	// them; the sender empties a parity's outboxes as it starts its next
	// window of that parity.
	out    [2][]outbox
	parity int
	sent   int64 // earliest event sent this window
	// Flows that finished, and slots of packets dropped (one per
	// packet), in the last window: the coordinator reads them between
	// windows, the worker empties them as it starts the next.
	done []finished
	lost []dropped
	// Measured: events, events sent to other partitions, and the wall
	// time inside all windows.
	events, msgs int64
	busy         time.Duration
	_            [64]byte
	cmd          command
	rep          report
}

// outbox is the events one partition sends another in a window, on a
// cache line of its own so that no two senders write one line.
type outbox struct {
	ev []calendar.Event
	_  [40]byte
}

// command is what the coordinator gives a partition for a window, on a
// cache line of its own.
type command struct {
	gen    atomic.Int64 // the window's number, stored last
	end    int64
	starts []flowStart // flows that start sending in the window
	_      [24]byte
}

// report is what a partition tells the coordinator after a window, on a
// cache line of its own.
type report struct {
	gen               atomic.Int64 // the window's number, stored last
	next              int64        // earliest event left after the window or sent in it
	done, lost, freed int32        // entries in the partition's lists
	failed            bool         // the partition's err is set
	last              time.Duration
	_                 [24]byte
}

// barrier starts the workers' windows and waits for them to finish. A
// waiter spins for a while (spinFor) and then blocks.
type barrier struct {
	parts    []*partition // the workers'
	stop     atomic.Bool
	spin     time.Duration   // how long a waiter spins before it blocks
	wake     []chan struct{} // per worker: a window started (or the run ended)
	finished chan struct{}   // a worker left its window
}

// spinFor is how long a waiter looks before it blocks when every worker
// has a core (GOMAXPROCS) of its own: longer than a window's usual
// imbalance, so that a barrier costs an atomic store and load rather
// than waking a parked thread (9 us per window, measured), and short
// enough that a core shared with other processes is soon given up. With
// more workers than cores a spinning waiter would hold the core a worker
// with work needs, so it blocks almost at once.
const spinFor = time.Millisecond

// spinner tells a waiter when it has looked long enough.
type spinner struct {
	n     int
	since time.Time
}

// tired reports whether the waiter should block now, after looking for
// longer than d.
func (s *spinner) tired(d time.Duration) bool {
	s.n++
	if s.n&63 != 0 {
		return false
	}
	if s.since.IsZero() {
		s.since = time.Now()
		return false
	}
	return time.Since(s.since) > d
}

func newBarrier(parts []*partition) *barrier {
	b := &barrier{parts: parts, wake: make([]chan struct{}, len(parts)), finished: make(chan struct{}, 1)}
	if len(parts) < runtime.GOMAXPROCS(0) { // the workers and the coordinator
		b.spin = spinFor
	}
	for i := range b.wake {
		b.wake[i] = make(chan struct{}, 1)
	}
	return b
}

// signal leaves a token in c unless one is there.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// start begins window gen, which ends at end, with the flow starts the
// coordinator has put in each worker's command.
func (b *barrier) start(gen, end int64) {
	for _, p := range b.parts {
		p.cmd.end = end
		p.cmd.gen.Store(gen)
	}
	for _, c := range b.wake {
		signal(c)
	}
}

// await waits, as worker i, for window gen to start, or reports false if
// the run is over.
func (b *barrier) await(i int, gen int64) bool {
	var s spinner
	c := &b.parts[i].cmd
	for c.gen.Load() < gen {
		if b.stop.Load() {
			return false
		}
		if s.tired(b.spin) {
			<-b.wake[i] // a token left by an earlier window only makes it look again
		}
	}
	return true
}

// wait waits for every worker to report window gen.
func (b *barrier) wait(gen int64) {
	var s spinner
	for _, p := range b.parts {
		for p.rep.gen.Load() < gen {
			if s.tired(b.spin) {
				<-b.finished
			}
		}
	}
}

// close stops the workers.
func (b *barrier) close() {
	b.stop.Store(true)
	for _, c := range b.wake {
		signal(c)
	}
}

// flowStart is a flow set up by the coordinator that starts sending at t.
type flowStart struct {
	t    int64
	slot int32
}

// finished is a flow that received its last byte at time at.
type finished struct {
	slot int32
	at   int64
}

// send hands event e, scheduled by entity k, to partition to.
func (p *partition) send(to int32, e event, k int32) {
	o := &p.out[p.parity][to]
	o.ev = append(o.ev, calendar.Event{T: e.t, W: e.w, A: e.ref, B: e.pkt, K: tieKey(e.t, k)})
	p.sent = min(p.sent, e.t)
	p.msgs++
}

// depart is evDepart: a packet that waited at a port whose channel leads
// to another partition ends its transmission. It is marked at dequeue
// here, where the port's queue is, and sent on.
func (s *sim) depart(e event) {
	e.w &^= int64(7) << kindPos // an evArrive again
	r := s.route(e.ref)
	ack := e.flag()&flagAck != 0
	c := channel(r, int32(e.hop()), ack)
	e.t += s.ports[c].delay
	s.markLeft(&e, r, ack, e.t)
	e.w &^= int64(flagWaited) << flagPos
	s.par.send(s.par.chDst[c], e, c)
}

// Models reports whether packetsim with opts models the network of cfg:
// every network model, at any number of workers; port sampling with
// one worker only (Options.Workers). The error names what it refuses.
func Models(cfg netcfg.Config, opts Options) error { return checkWorkers(cfg, opts) }

// checkWorkers refuses, before any work, a worker count the engine
// cannot run on the network model of cfg and opts.
func checkWorkers(cfg netcfg.Config, opts Options) error {
	if opts.Workers < 0 {
		return fmt.Errorf("packetsim: workers must be >= 0, got %d", opts.Workers)
	}
	if opts.Workers <= 1 {
		return nil
	}
	switch {
	case opts.SampleEveryNanos > 0:
		return fmt.Errorf("packetsim: workers %d: port sampling (SampleEveryNanos) runs on one worker only; use workers 1", opts.Workers)
	}
	return nil
}

// Partitions splits net's nodes among at most workers partitions, as
// the parallel engine does: it returns each node's partition and the
// number of partitions. A fabric (every host in a rack of a pod) is cut
// into runs of whole racks in pod order, so that whole pods go to one
// partition when the workers divide the pods; each fabric switch goes
// with racks of its pod and the spine switches are dealt out in turn. Any
// other network is cut into runs of nodes of equal channel counts in
// breadth-first order from the first host.
func Partitions(net *topo.Network, workers int) (part []int32, n int) {
	part = make([]int32, len(net.Nodes))
	workers = max(1, min(workers, len(net.Nodes)))
	if racks := fabricRacks(net); racks != nil {
		workers = min(workers, len(racks))
		rackPart := make(map[int]int32, len(racks))
		for i, r := range racks {
			rackPart[r] = int32(i * workers / len(racks))
		}
		podRacks := map[int][]int{}
		for _, r := range racks {
			pod := rackPod(net, r)
			podRacks[pod] = append(podRacks[pod], r)
		}
		podFabric := map[int]int{} // fabric switches of the pod seen so far
		podFabricN := map[int]int{}
		spines := 0
		for _, nd := range net.Nodes {
			if nd.Kind == topo.Switch && nd.Rack < 0 && nd.Pod >= 0 {
				podFabricN[nd.Pod]++
			}
		}
		for _, nd := range net.Nodes {
			switch {
			case nd.Rack >= 0:
				part[nd.ID] = rackPart[nd.Rack]
			case nd.Pod >= 0:
				rs := podRacks[nd.Pod]
				j := podFabric[nd.Pod]
				podFabric[nd.Pod]++
				if len(rs) == 0 {
					part[nd.ID] = int32(nd.Pod % workers)
					continue
				}
				part[nd.ID] = rackPart[rs[j*len(rs)/podFabricN[nd.Pod]]]
			default:
				part[nd.ID] = int32(spines % workers)
				spines++
			}
		}
		return part, workers
	}
	// Breadth-first order from the first host (then any node not reached).
	order := make([]int, 0, len(net.Nodes))
	seen := make([]bool, len(net.Nodes))
	visit := func(from int) {
		seen[from] = true
		order = append(order, from)
		for i := len(order) - 1; i < len(order); i++ {
			for _, c := range net.Out(order[i]) {
				if d := net.Channels[c].Dst; !seen[d] {
					seen[d] = true
					order = append(order, d)
				}
			}
		}
	}
	if hs := net.Hosts(); len(hs) > 0 {
		visit(hs[0])
	}
	for id := range net.Nodes {
		if !seen[id] {
			visit(id)
		}
	}
	total := 0
	for _, id := range order {
		total += len(net.Out(id))
	}
	acc := 0
	for _, id := range order {
		part[id] = int32(min(acc*workers/max(total, 1), workers-1))
		acc += len(net.Out(id))
	}
	return part, workers
}

// fabricRacks lists the racks of a fabric in pod order, nil if net is
// not one (a host without rack or pod).
func fabricRacks(net *topo.Network) []int {
	pods := map[int]int{}
	for _, h := range net.Hosts() {
		nd := net.Nodes[h]
		if nd.Rack < 0 || nd.Pod < 0 {
			return nil
		}
		if p, ok := pods[nd.Rack]; ok && p != nd.Pod {
			return nil
		}
		pods[nd.Rack] = nd.Pod
	}
	racks := make([]int, 0, len(pods))
	for r := range pods {
		racks = append(racks, r)
	}
	sort.Slice(racks, func(i, j int) bool {
		a, b := racks[i], racks[j]
		return pods[a] < pods[b] || pods[a] == pods[b] && a < b
	})
	return racks
}

// rackPod is the pod of rack r's hosts.
func rackPod(net *topo.Network, r int) int {
	for _, h := range net.Hosts() {
		if net.Nodes[h].Rack == r {
			return net.Nodes[h].Pod
		}
	}
	return -1
}

// ParallelStats are the measured quantities of a parallel run that a
// model of its speed on more cores needs.
type ParallelStats struct {
	Partitions int
	// LookaheadNanos is the window: the smallest propagation delay of a
	// channel between partitions.
	LookaheadNanos float64
	// Windows counts the windows simulated (idle stretches skipped).
	Windows int64
	// Events and Messages are per partition: events run, and events sent
	// to other partitions.
	Events, Messages []int64
	// Nodes counts each partition's nodes, CrossChannels the channels
	// between partitions.
	Nodes         []int
	CrossChannels int
	// Wall time, in nanoseconds: of the whole run (Wall), each
	// partition's inside its windows (Busy), the sum over windows of the
	// slowest partition's (Critical), and the coordinator's between
	// windows (Serial: flow starts and records). Wall less Critical and
	// Serial is what the barriers cost.
	Wall, Critical, Serial int64
	Busy                   []int64
}

// runParallel is run split among opts.Workers partitions.
func (s *sim) runParallel(ctx context.Context) error {
	owner, n := Partitions(s.net, s.opts.Workers)
	chDst := make([]int32, len(s.net.Channels))
	chSrc := make([]int32, len(s.net.Channels))
	look := int64(math.MaxInt64 / 4)
	for c, ch := range s.net.Channels {
		chDst[c], chSrc[c] = owner[ch.Dst], owner[ch.Src]
		if chDst[c] != chSrc[c] {
			if ch.Delay <= 0 {
				return fmt.Errorf("packetsim: workers %d: channel %d between partitions has no propagation delay, so the partitions cannot run apart; use workers 1", s.opts.Workers, c)
			}
			look = min(look, ch.Delay*1000)
		}
	}
	parts := make([]*sim, n)
	for i := range parts {
		c := *s
		c.q = newEventQueue()
		c.res = Result{}
		c.pathBuf, c.err = nil, nil
		// Every buffer a worker appends to in its windows starts at 2 KB
		// or more: the allocator gives blocks of 1 KB or more whole cache
		// lines, so no two workers write one line.
		p := &partition{id: int32(i), chDst: chDst, chSrc: chSrc, sent: math.MaxInt64,
			done: make([]finished, 0, 128), lost: make([]dropped, 0, 512)}
		p.cmd.starts = make([]flowStart, 0, 128)
		p.rep.next = math.MaxInt64
		for k := range p.out {
			p.out[k] = make([]outbox, n)
			for to := range p.out[k] {
				p.out[k][to].ev = make([]calendar.Event, 0, 64)
			}
		}
		c.free = make([]int32, 0, 512)
		c.par = p
		parts[i] = &c
	}
	s.res.Parallel = &ParallelStats{Partitions: n, LookaheadNanos: float64(look) / 1000, Nodes: make([]int, n)}
	for _, o := range owner {
		s.res.Parallel.Nodes[o]++
	}
	for c := range chDst {
		if chDst[c] != chSrc[c] {
			s.res.Parallel.CrossChannels++
		}
	}

	// The coordinator runs partition 0 itself; the others wait for each
	// window on a barrier they spin on, since a window of a microsecond of
	// simulated time holds only microseconds of work.
	workers := make([]*partition, n-1)
	for i, ps := range parts[1:] {
		workers[i] = ps.par
	}
	b := newBarrier(workers)
	var wg sync.WaitGroup
	for i, ps := range parts[1:] {
		wg.Add(1)
		go func(i int, ps *sim) {
			defer wg.Done()
			for gen := int64(1); b.await(i, gen); gen++ {
				ps.window(gen, parts)
				signal(b.finished)
			}
		}(i, ps)
	}
	defer func() {
		b.close()
		wg.Wait()
	}()

	t0 := time.Now()
	err := func() error {
		for gen := int64(1); ; gen++ {
			tSerial := time.Now()
			// Between windows: records, freed slots, errors of the
			// window before, as the partitions reported them.
			next := int64(math.MaxInt64)
			for _, ps := range parts {
				p := ps.par
				r := &p.rep
				if r.failed {
					return ps.err
				}
				if r.done > 0 {
					for _, d := range p.done {
						s.record(d.slot, &s.fs[d.slot], d.at)
					}
				}
				if r.lost > 0 {
					for _, d := range p.lost {
						s.drop(d.slot, d.tx)
						s.retire(d.slot)
					}
				}
				if r.freed > 0 {
					s.free = append(s.free, ps.free...)
				}
				next = min(next, r.next)
			}
			s.emitDue()
			if s.err != nil {
				return s.err
			}
			if gen&63 == 1 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if s.haveNext {
				next = min(next, s.nextPs)
			}
			if next == math.MaxInt64 || next > s.stop {
				return nil
			}
			end := next + look
			if s.stop < end {
				end = s.stop + 1 // events at the stop still run
			}
			for _, ps := range parts {
				ps.par.cmd.starts = ps.par.cmd.starts[:0]
			}
			for s.haveNext && s.nextPs < end {
				s.now = s.nextPs
				slot, err := s.setUp()
				if err != nil {
					return err
				}
				c := &parts[owner[s.net.Channels[s.route(slot)[rtPath]].Src]].par.cmd
				c.starts = append(c.starts, flowStart{t: s.now, slot: slot})
			}
			// The partitions' views of the flow tables, written only when
			// the tables grew (alloc grows them all at once, with the
			// slots or the route stride): a write moves the line to the
			// coordinator's core.
			if len(parts[0].fs) != len(s.fs) || parts[0].stride != s.stride {
				for _, ps := range parts {
					ps.fs, ps.routes, ps.stride, ps.ext, ps.tcp = s.fs, s.routes, s.stride, s.ext, s.tcp
				}
			}
			s.res.Parallel.Windows++
			s.res.Parallel.Serial += int64(time.Since(tSerial))
			parts[0].par.cmd.end = end
			b.start(gen, end)
			parts[0].window(gen, parts)
			b.wait(gen)
			var slowest time.Duration
			for _, ps := range parts {
				slowest = max(slowest, ps.par.rep.last)
			}
			s.res.Parallel.Critical += int64(slowest)
		}
	}()
	s.res.Parallel.Wall = int64(time.Since(t0))
	for _, ps := range parts {
		r := &ps.res
		s.res.Events += r.Events
		s.res.PacketHops += r.PacketHops
		s.res.DataPackets += r.DataPackets
		s.res.AckPackets += r.AckPackets
		s.res.Retransmits += r.Retransmits
		s.res.Drops += r.Drops
		s.res.AckDrops += r.AckDrops
		s.res.Marks += r.Marks
		s.res.Duplicates += r.Duplicates
		s.res.Timeouts += r.Timeouts
		s.res.FastRecoveries += r.FastRecoveries
		s.res.DeliveredBytes += r.DeliveredBytes
		s.res.PauseFrames += r.PauseFrames
		s.res.ResumeFrames += r.ResumeFrames
		s.now = max(s.now, ps.now)
		s.res.Parallel.Events = append(s.res.Parallel.Events, ps.par.events)
		s.res.Parallel.Messages = append(s.res.Parallel.Messages, ps.par.msgs)
		s.res.Parallel.Busy = append(s.res.Parallel.Busy, int64(ps.par.busy))
	}
	if err != nil {
		return err
	}
	return s.err
}

// window runs window gen of this partition: its events and flow starts
// before the command's end, after taking in what the others sent it in
// the window before. It then reports.
func (s *sim) window(gen int64, parts []*sim) {
	p := s.par
	t0 := time.Now()
	// The coordinator has taken the last window's lists, and the
	// receivers this parity's outboxes of the window before that.
	p.done, p.lost, s.free = p.done[:0], p.lost[:0], s.free[:0]
	for to := range p.out[p.parity] {
		if int32(to) == p.id {
			continue // nothing is sent to itself
		}
		o := &p.out[p.parity][to]
		n := len(o.ev)
		o.ev = o.ev[:0]
		// Take the lines this window will likely write (half as many
		// again as the last window of this parity did) from the
		// receiver's cache now, all at once: a store to a line another
		// core holds stalls the worker for the line's round trip, once
		// per line if they come one by one as packets are sent.
		w := o.ev[:min(cap(o.ev), n+n/2+2)]
		for i := 0; i < len(w); i += 2 { // two events to a line
			w[i].T = 0
		}
	}
	p.sent = math.MaxInt64
	prev := 1 - p.parity
	for _, o := range parts {
		for _, e := range o.par.out[prev][p.id].ev {
			s.q.Push(e)
		}
	}
	// The loop keeps the next flow start and the counts in locals: it
	// runs every event of the partition.
	end, starts := p.cmd.end, p.cmd.starts
	si, nextStart := 0, int64(math.MaxInt64)
	if len(starts) > 0 {
		nextStart = starts[0].t
	}
	var events, departs int64
	for {
		pe := s.q.Peek()
		t := int64(math.MaxInt64)
		if pe != nil {
			t = pe.T
		}
		if nextStart <= t && nextStart < end {
			s.now = nextStart
			s.launch(starts[si].slot)
			si++
			nextStart = math.MaxInt64
			if si < len(starts) {
				nextStart = starts[si].t
			}
			continue
		}
		if t >= end {
			break
		}
		e := eventOf(pe)
		s.q.Drop()
		s.now = t
		events++
		if e.kind() == evDepart {
			departs++
		}
		s.handle(e)
		if s.err != nil {
			break
		}
	}
	p.events += events
	s.res.Events += events - departs
	p.parity = prev
	r := &p.rep
	r.next = p.sent
	if pe := s.q.Peek(); pe != nil {
		r.next = min(r.next, pe.T)
	}
	r.done, r.lost, r.freed = int32(len(p.done)), int32(len(p.lost)), int32(len(s.free))
	r.failed = s.err != nil
	r.last = time.Since(t0)
	p.busy += r.last
	r.gen.Store(gen)
}
