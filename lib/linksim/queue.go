package linksim

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sort"
)

// eventQueue delivers events in (time, scheduling order). It is a
// calendar queue like packetsim's (whose queue is internal to it): a
// wheel of buckets of 2^bucketShift ps covering the next wheelSize
// buckets, each an unsorted slice sorted only when the clock reaches it,
// with a heap for events beyond the wheel, and a bitmap of the buckets
// that hold events, so that the sparse events of a lightly loaded link
// cost no walk over empty buckets. A link simulation schedules nearly
// everything within a round-trip time, a few microseconds ahead, so
// scheduling is an append; profiling showed a heap of all events took
// half the run time. Events carry no sequence number: a bucket is filled
// in scheduling order (the far heap's events for a bucket, all scheduled
// before any of the wheel's, first) and sorted stably by time.
type eventQueue struct {
	wheel   [][]event // bucket b holds events with t>>bucketShift == b, for b in (base, base+wheelSize)
	base    int64     // bucket of cur
	cur     []event   // bucket base, sorted; cur[pos:] still to deliver
	pos     int
	inWheel int                    // events in wheel, cur excluded
	used    [wheelSize / 64]uint64 // bit s set: wheel slot s holds events
	far     eventHeap              // events beyond the wheel
}

const (
	// Measured: 2^7-2^8 buckets of 131-262 ns beat 2^11 of 16 ns by 5-10%
	// on BenchmarkRun; on Parsimon's link simulations (mostly lightly
	// loaded, a bucket change per event or two) 1.05 us buckets take 7%
	// fewer instructions than 262 ns and 3.5% fewer than 2.1 us.
	bucketShift = 20     // 1.05 us: a bucket holds a few packet times, few enough to sort cheaply
	wheelSize   = 1 << 7 // 134 us ahead, more than a link-level round trip; a small wheel stays in cache
	wheelMask   = wheelSize - 1
)

func newEventQueue() eventQueue {
	return eventQueue{wheel: make([][]event, wheelSize)}
}

// peek is the earliest event, which stays in the queue until drop; nil
// if there is none.
func (q *eventQueue) peek() *event {
	if q.pos == len(q.cur) && !q.advance() {
		return nil
	}
	return &q.cur[q.pos]
}

// drop removes the event peek returned.
func (q *eventQueue) drop() { q.pos++ }

// push schedules e, which must not be earlier than the last event popped.
func (q *eventQueue) push(e event) {
	b := e.t >> bucketShift
	switch {
	case b <= q.base:
		// The bucket being delivered (or earlier, when next moved base
		// ahead while a flow start, not in the queue, comes first):
		// insert after the events of its time and before later ones.
		i := q.pos + sort.Search(len(q.cur)-q.pos, func(i int) bool { return e.t < q.cur[q.pos+i].t })
		q.cur = slices.Insert(q.cur, i, e)
	case b < q.base+wheelSize:
		slot := b & wheelMask
		q.wheel[slot] = append(q.wheel[slot], e)
		q.used[slot>>6] |= 1 << (slot & 63)
		q.inWheel++
	default:
		q.far.push(e)
	}
}

// advance makes cur[pos] the earliest event, reporting false if there is
// none.
func (q *eventQueue) advance() bool {
	for q.pos == len(q.cur) {
		b := int64(math.MaxInt64)
		if q.inWheel > 0 {
			b = q.nextUsed()
		}
		if len(q.far.items) > 0 {
			b = min(b, q.far.items[0].t>>bucketShift)
		}
		if b == math.MaxInt64 {
			return false
		}
		slot := b & wheelMask
		w := q.wheel[slot]
		q.inWheel -= len(w)
		q.used[slot>>6] &^= 1 << (slot & 63)
		if len(q.far.items) > 0 && q.far.items[0].t>>bucketShift == b {
			// The far heap's events for b were all scheduled before the
			// wheel's: they go first.
			cur := q.cur[:0]
			for len(q.far.items) > 0 && q.far.items[0].t>>bucketShift == b {
				cur = append(cur, q.far.pop())
			}
			q.cur = append(cur, w...)
			q.wheel[slot] = w[:0]
		} else {
			// Recycle the finished bucket's storage for the slot.
			q.wheel[slot] = q.cur[:0]
			q.cur = w
		}
		q.base, q.pos = b, 0
		sortEvents(q.cur)
	}
	return true
}

// nextUsed is the first bucket after base that holds events; the wheel
// must not be empty.
func (q *eventQueue) nextUsed() int64 {
	start := (q.base + 1) & wheelMask
	for d := int64(0); d < wheelSize; {
		s := (start + d) & wheelMask
		w := q.used[s>>6] >> (s & 63)
		if w != 0 {
			return q.base + 1 + d + int64(bits.TrailingZeros64(w))
		}
		d += 64 - s&63
	}
	panic("linksim: event wheel bitmap out of step with its count")
}

// sortEvents sorts a bucket stably by time: insertion sort for the usual
// handful of events, a merge sort for a crowded bucket.
func sortEvents(b []event) {
	if len(b) > 24 {
		slices.SortStableFunc(b, func(x, y event) int { return cmp.Compare(x.t, y.t) })
		return
	}
	for i := 1; i < len(b); i++ {
		e := b[i]
		j := i
		for j > 0 && e.t < b[j-1].t {
			b[j] = b[j-1]
			j--
		}
		b[j] = e
	}
}
