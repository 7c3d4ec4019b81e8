package packetsim

import (
	"math"
	"slices"
	"sort"
)

// Event kinds.
const (
	evArrive  uint8 = iota // a packet reaches the far end of channel ch
	evNicFree              // host NIC port ch finished sending a packet
	evNicWake              // a paced flow on NIC port ch may send again
	evRTO                  // retransmission check of flow
	evSample               // per-port sampling tick
)

// Packet flags.
const (
	flagAck  uint8 = 1 << iota // an ACK (otherwise a data packet)
	flagECE                    // data: marked CE on the way; ACK: echoes it
	flagNack                   // ACK sent for an out-of-order data packet
)

// event is one scheduled happening. Packets in flight exist only as
// events, so moving a packet costs no allocation.
type event struct {
	t    int64  // ps
	seq  uint64 // scheduling order: breaks ties between equal times
	ts   int64  // data: send time (ps); ACK: the echoed send time
	ch   int32  // channel just traversed (evArrive) or NIC port
	flow int32
	pkt  int32 // data: packet index; ACK: cumulative packets received
	kind uint8
	hop  uint8 // index of ch along the packet's route
	flag uint8
}

func less(a, b *event) bool {
	return a.t < b.t || (a.t == b.t && a.seq < b.seq)
}

// eventQueue delivers events in (time, scheduling order). It is a
// calendar queue: a wheel of buckets of 2^bucketShift ps covering the
// next wheelSize buckets, each an unsorted slice sorted only when the
// clock reaches it, with a heap for events beyond the wheel. Nearly every
// event lands within a few microseconds of now, so scheduling is an
// append and sorting a bucket of a handful of events is cheap;
// profiling showed a heap of all events took half the run time.
type eventQueue struct {
	seq     uint64
	wheel   [][]event // bucket b holds events with t>>bucketShift == b, for b in [base, base+wheelSize)
	base    int64     // bucket of cur
	cur     []event   // bucket base, sorted; cur[pos:] still to deliver
	pos     int
	inWheel int     // events in wheel, cur excluded
	far     []event // 4-ary min-heap of events beyond the wheel
}

const (
	bucketShift = 13      // 8.2 ns
	wheelSize   = 1 << 10 // 8.4 us ahead; a small wheel stays in cache (measured faster than 2^11-2^17)
	wheelMask   = wheelSize - 1
)

func newEventQueue() eventQueue {
	return eventQueue{wheel: make([][]event, wheelSize)}
}

func (q *eventQueue) empty() bool {
	return q.pos == len(q.cur) && q.inWheel == 0 && len(q.far) == 0
}

// next is the time of the earliest event, MaxInt64 if there is none.
func (q *eventQueue) next() int64 {
	if !q.advance() {
		return math.MaxInt64
	}
	return q.cur[q.pos].t
}

// push schedules e, which must not be earlier than the last event popped.
func (q *eventQueue) push(e event) {
	e.seq = q.seq
	q.seq++
	b := e.t >> bucketShift
	switch {
	case b <= q.base:
		// The bucket being delivered, or earlier: next may have moved
		// base ahead to the next event while a flow start (not in the
		// queue) happens first. Insert in order among the rest.
		i := q.pos + sort.Search(len(q.cur)-q.pos, func(i int) bool { return less(&e, &q.cur[q.pos+i]) })
		q.cur = append(q.cur, event{})
		copy(q.cur[i+1:], q.cur[i:])
		q.cur[i] = e
	case b < q.base+wheelSize:
		q.wheel[b&wheelMask] = append(q.wheel[b&wheelMask], e)
		q.inWheel++
	default:
		q.pushFar(e)
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
			q.base = q.far[0].t>>bucketShift - 1 // jump over empty buckets
		}
		// Recycle the finished bucket's storage for the slot it leaves.
		q.wheel[q.base&wheelMask] = q.cur[:0]
		q.base++
		slot := q.base & wheelMask
		q.cur, q.pos = q.wheel[slot], 0
		q.wheel[slot] = nil
		q.inWheel -= len(q.cur)
		for len(q.far) > 0 && q.far[0].t>>bucketShift == q.base {
			q.cur = append(q.cur, q.popFar())
		}
		sortEvents(q.cur)
	}
	return true
}

// sortEvents sorts a bucket by (t, seq): insertion sort for the usual
// handful of events, pdqsort for a crowded bucket.
func sortEvents(b []event) {
	if len(b) > 24 {
		slices.SortFunc(b, cmpEvent)
		return
	}
	for i := 1; i < len(b); i++ {
		e := b[i]
		j := i
		for j > 0 && less(&e, &b[j-1]) {
			b[j] = b[j-1]
			j--
		}
		b[j] = e
	}
}

func cmpEvent(a, b event) int {
	switch {
	case a.t < b.t:
		return -1
	case a.t > b.t:
		return 1
	case a.seq < b.seq:
		return -1
	case a.seq > b.seq:
		return 1
	}
	return 0
}

// pop removes and returns the earliest event; the queue must not be empty.
func (q *eventQueue) pop() event {
	q.advance()
	e := q.cur[q.pos]
	q.pos++
	return e
}

func (q *eventQueue) pushFar(e event) {
	h := append(q.far, e)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !less(&e, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
	q.far = h
}

func (q *eventQueue) popFar() event {
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
			if less(&h[j], &h[m]) {
				m = j
			}
		}
		if !less(&h[m], &last) {
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
