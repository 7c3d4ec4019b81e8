package packetsim

import (
	"math"
	"math/bits"
	"slices"
	"sort"
)

// Event kinds.
const (
	evArrive   uint8 = iota // a packet reaches the far end of the channel at its hop (0: packets start as arrivals)
	evNicFree               // host NIC port (channel in event.ref) finished sending a packet
	evNicWake               // a paced flow on NIC port ref may send again
	evRTO                   // retransmission check of the flow in slot ref
	evSample                // per-port sampling tick
	evPortFree              // a port holding its packets (shared buffer) finished sending one
	evPause                 // a PFC pause (pkt 1) or resume (pkt 0) frame reaches the transmitter of channel ref
)

// Packet flags.
const (
	flagAck    uint8 = 1 << iota // an ACK (otherwise a data packet)
	flagECE                      // data: marked CE on the way; ACK: echoes it
	flagWaited                   // marking at dequeue: it waited at the port of the channel it is crossing
	flagNack                     // ACK sent for an out-of-order data packet (the sign bit of event.w: never a constant shift)
)

// event is one scheduled happening, 24 bytes. Packets in flight exist
// only as events, so moving a packet costs no allocation. The channel a
// packet crosses is not stored: it is the hop-th channel of its flow's
// route. The send time shares its word with the small fields: bits 0-49
// hold it (up to 562 s), then the hop, the kind and the flags.
type event struct {
	t   int64 // ps
	w   int64 // data: send time (ps), ACK: the echoed send time; hop, kind, flags
	ref int32 // flow slot (packets, evRTO) or channel (NIC events)
	pkt int32 // data: packet index; ACK: cumulative packets received
}

const (
	tsBits  = 49
	maxTs   = 1<<tsBits - 1 // ps
	hopPos  = tsBits
	kindPos = hopPos + 8
	flagPos = kindPos + 3
)

// newEvent is a non-packet event of kind for ref at t.
func newEvent(t int64, kind uint8, ref int32) event {
	return event{t: t, w: int64(kind) << kindPos, ref: ref}
}

// packet is a packet of the flow in slot, sent at ts, at hop 0 (packets
// are evArrive events).
func packet(slot, pkt int32, ts int64, flag uint8) event {
	return event{w: ts | int64(evArrive)<<kindPos | int64(flag)<<flagPos, ref: slot, pkt: pkt}
}

func (e *event) ts() int64   { return e.w & maxTs }
func (e *event) hop() uint8  { return uint8(e.w >> hopPos) }
func (e *event) kind() uint8 { return uint8(e.w>>kindPos) & 7 }
func (e *event) flag() uint8 { return uint8(e.w>>flagPos) & 15 }

// eventQueue delivers events in (time, scheduling order). It is a
// calendar queue: a wheel of buckets of 2^bucketShift ps covering the
// next wheelSize buckets, each an unsorted slice sorted only when the
// clock reaches it, with a heap for events beyond the wheel. Nearly every
// event lands within a few microseconds of now, so scheduling is an
// append and sorting a bucket of a handful of events is cheap;
// profiling showed a heap of all events took half the run time.
//
// No event carries a sequence number: a bucket's slice is in scheduling
// order, so a stable sort by time alone gives (time, scheduling order).
// Events of a bucket that were beyond the wheel when scheduled were
// scheduled before every event that went to the bucket directly (the
// wheel only moves forward), so they go first; only the far heap keeps
// sequence numbers, to order its own ties.
type eventQueue struct {
	seq     uint64
	wheel   [][]event // bucket b holds events with t>>bucketShift == b, for b in [base, base+wheelSize)
	base    int64     // bucket of cur
	cur     []event   // bucket base, sorted; cur[pos:] still to deliver
	pos     int
	inWheel int        // events in wheel, cur excluded
	occ     []uint64   // bit b&(wheelSize-1) set: bucket b of the wheel holds events
	far     []farEvent // 4-ary min-heap of events beyond the wheel
	spare   []event    // scratch for merging far events into a bucket
	keys    []uint64   // scratch for sorting a crowded bucket
	moved   []event
}

// farEvent is an event beyond the wheel with its scheduling order.
type farEvent struct {
	seq uint64
	e   event
}

const (
	bucketShift       = 13      // 8.2 ns
	wheelSize   int64 = 1 << 10 // 8.4 us ahead; a small wheel stays in cache (measured faster than 2^11-2^17)
)

// newEventQueue returns an empty queue. Finer buckets (fewer events to
// sort each) were measured slower on both fabrics, even with the
// occupancy bitmap skipping empty ones: a larger wheel falls out of cache.
func newEventQueue() eventQueue {
	return eventQueue{wheel: make([][]event, wheelSize), occ: make([]uint64, wheelSize/64)}
}

func (q *eventQueue) empty() bool {
	return q.pos == len(q.cur) && q.inWheel == 0 && len(q.far) == 0
}

// next is the time of the earliest event, MaxInt64 if there is none.
func (q *eventQueue) next() int64 {
	if q.pos == len(q.cur) && !q.advance() {
		return math.MaxInt64
	}
	return q.cur[q.pos].t
}

// push schedules e, which must not be earlier than the last event popped.
func (q *eventQueue) push(e event) {
	b := e.t >> bucketShift
	switch {
	case b <= q.base:
		// The bucket being delivered, or earlier: next may have moved
		// base ahead to the next event while a flow start (not in the
		// queue) happens first. Insert after the events of equal time.
		rest := q.cur[q.pos:]
		i := q.pos + sort.Search(len(rest), func(i int) bool { return rest[i].t > e.t })
		q.cur = slices.Insert(q.cur, i, e)
	case b < q.base+wheelSize:
		i := b & (wheelSize - 1)
		q.wheel[i] = append(q.wheel[i], e)
		q.occ[i>>6] |= 1 << (i & 63)
		q.inWheel++
	default:
		q.pushFar(farEvent{q.seq, e})
		q.seq++
	}
}

// advance makes cur[pos] the earliest event, reporting false if there is
// none.
func (q *eventQueue) advance() bool {
	for q.pos == len(q.cur) {
		if q.inWheel == 0 {
			if len(q.far) == 0 {
				return false
			}
			q.base = q.far[0].e.t>>bucketShift - 1 // jump over empty buckets
		}
		// Recycle the finished bucket's storage for the slot it leaves.
		q.wheel[q.base&(wheelSize-1)] = q.cur[:0]
		if q.inWheel == 0 {
			q.base++
		} else {
			q.base = q.nextBucket()
		}
		slot := q.base & (wheelSize - 1)
		q.cur, q.pos = q.wheel[slot], 0
		q.wheel[slot] = nil
		q.occ[slot>>6] &^= 1 << (slot & 63)
		q.inWheel -= len(q.cur)
		if len(q.far) > 0 && q.far[0].e.t>>bucketShift == q.base {
			// Far events first: they were scheduled earlier.
			m := q.spare[:0]
			for len(q.far) > 0 && q.far[0].e.t>>bucketShift == q.base {
				m = append(m, q.popFar().e)
			}
			m = append(m, q.cur...)
			q.cur, q.spare = m, q.cur
		}
		q.sortEvents(q.cur)
	}
	return true
}

// nextBucket is the first bucket after base that holds events: the
// first occupied bucket of the wheel (which must hold some), found a word
// of the occupancy bitmap at a time, or a far event's if earlier.
func (q *eventQueue) nextBucket() int64 {
	mask := wheelSize - 1
	i, d := (q.base+1)&mask, int64(1)
	for {
		if word := q.occ[i>>6] >> (i & 63); word != 0 {
			d += int64(bits.TrailingZeros64(word))
			break
		}
		step := 64 - i&63
		d += step
		i = (i + step) & mask
	}
	if len(q.far) > 0 {
		d = min(d, q.far[0].e.t>>bucketShift-q.base)
	}
	return q.base + d
}

// sortEvents sorts a bucket stably by time: insertion sort for the usual
// handful of events; a crowded bucket (tens of events on large fabrics)
// sorts keys of time within the bucket and position, which are distinct,
// and then moves the events once.
func (q *eventQueue) sortEvents(b []event) {
	if len(b) <= 16 {
		for i := 1; i < len(b); i++ {
			e := b[i]
			j := i
			for j > 0 && e.t < b[j-1].t {
				b[j] = b[j-1]
				j--
			}
			b[j] = e
		}
		return
	}
	keys := q.keys[:0]
	for i := range b {
		keys = append(keys, uint64(b[i].t&(1<<bucketShift-1))<<32|uint64(i))
	}
	slices.Sort(keys)
	q.moved = append(q.moved[:0], b...)
	for i, k := range keys {
		b[i] = q.moved[uint32(k)]
	}
	q.keys = keys
}

// pop removes and returns the earliest event; next must have found one.
func (q *eventQueue) pop() event {
	e := q.cur[q.pos]
	q.pos++
	return e
}

func farLess(a, b *farEvent) bool {
	return a.e.t < b.e.t || (a.e.t == b.e.t && a.seq < b.seq)
}

func (q *eventQueue) pushFar(e farEvent) {
	h := append(q.far, e)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !farLess(&e, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
	q.far = h
}

func (q *eventQueue) popFar() farEvent {
	h := q.far
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < min(c+4, n); j++ {
			if farLess(&h[j], &h[m]) {
				m = j
			}
		}
		if !farLess(&h[m], &last) {
			break
		}
		h[i] = h[m]
		i = m
	}
	if n > 0 {
		h[i] = last
	}
	q.far = h
	return top
}
