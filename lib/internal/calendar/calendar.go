// Package calendar is the event queue of tailscope's discrete-event
// simulators (packetsim and linksim): a calendar queue that delivers
// events in (time, key, scheduling order), the key an event's tie-break
// that the simulator chooses (linksim leaves it 0: time, then scheduling
// order).
//
// A Queue is a wheel of buckets of 2^shift time units covering the next
// 2^wheelBits buckets, each an unsorted slice sorted only when the clock
// reaches it, with an occupancy bitmap to skip empty buckets and a 4-ary
// heap for the events beyond the wheel. A network simulation schedules
// nearly every event within a round-trip time of now, so scheduling is an
// append and sorting a bucket of a handful of events is cheap; profiling
// both simulators showed a heap of all events took half their run time.
//
// No event in the wheel carries a sequence number: a bucket's slice is in
// scheduling order, so a stable sort by (time, key) gives (time, key,
// scheduling order). Events of a bucket that were beyond the wheel when
// scheduled were scheduled before every event that went to the bucket
// directly (the wheel only moves forward), so they go first; only the far
// heap keeps sequence numbers, to order its own ties.
//
// Events are plain 32-byte values with the time first; what the other
// fields mean is the simulator's business. A Queue is not safe for
// concurrent use.
package calendar

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
)

// Event is one scheduled happening. The queue reads only T and K; W, A
// and B are the simulator's own encoding (a packet's send time, kind,
// flags, flow and index, say). 32 bytes: simulators keep packets in
// flight only as events, so their size is the simulation's memory
// traffic.
type Event struct {
	T    int64 // when it happens, in the simulator's time unit; never negative
	W    int64
	A, B int32
	// K orders events of equal time, smaller first; events of equal T
	// and K come in scheduling order. A simulator split among workers
	// derives it from the entity that scheduled the event (one worker's),
	// so that the order of simultaneous events is one every worker
	// computes alone.
	K uint64
}

// Queue delivers Events in (time, key, scheduling order): Push them, take the
// earliest with Peek and remove it with Drop. The zero Queue is
// not usable; make one with New.
type Queue struct {
	shift   uint      // a bucket holds 2^shift time units
	mask    int64     // wheel size - 1
	wheel   [][]Event // bucket b holds events with T>>shift == b, for b in (base, base+wheel size), in slot b&mask
	base    int64     // bucket of cur
	cur     []Event   // bucket base, sorted; cur[pos:] still to deliver
	pos     int
	inWheel int                   // events in wheel, cur excluded
	occ     [maxWheel / 64]uint64 // bit b&mask set: bucket b of the wheel holds events
	far     []farEvent            // 4-ary min-heap of events beyond the wheel
	seq     uint64                // scheduling order of the next far event
	keys    []uint64              // scratch for sorting a crowded bucket
	moved   []Event
}

// farEvent is an event beyond the wheel with its scheduling order.
type farEvent struct {
	e   Event
	seq uint64
}

// maxWheel is the largest wheel: larger ones fall out of cache and were
// measured slower in both simulators. The occupancy bitmap is an array of
// that size, which spares its bounds checks; the wheel itself is a slice
// of the simulator's size (an array would cost every small link
// simulation 24 KB to clear and moved the simulator's own fields apart).
const maxWheel = 1 << 10

// New returns an empty Queue with buckets of 2^shift time units and a
// wheel of 2^wheelBits buckets. Both are tuned per simulator: buckets
// should hold a few events each, and a small wheel stays in cache. It
// panics unless shift is at most 32 (a crowded bucket sorts 32-bit keys
// of time within the bucket) and wheelBits is in [6, 10].
func New(shift, wheelBits uint) Queue {
	if shift > 32 || wheelBits < 6 || 1<<wheelBits > maxWheel {
		panic(fmt.Sprintf("calendar: buckets of 2^%d and a wheel of 2^%d buckets, want shift <= 32 and 6 <= wheelBits <= 10", shift, wheelBits))
	}
	return Queue{shift: shift, mask: 1<<wheelBits - 1, wheel: make([][]Event, 1<<wheelBits)}
}

// Empty reports whether no event is scheduled.
func (q *Queue) Empty() bool {
	return q.pos == len(q.cur) && q.inWheel == 0 && len(q.far) == 0
}

// Peek is the earliest event, which stays in the queue until Drop; nil if
// there is none. The pointer is valid until the next Push or Drop.
func (q *Queue) Peek() *Event {
	if q.pos == len(q.cur) && !q.advance() {
		return nil
	}
	return &q.cur[q.pos]
}

// Drop removes the event Peek returned.
func (q *Queue) Drop() { q.pos++ }

// Push schedules e, which must not be earlier than the last event
// delivered. Its common case, a bucket of the wheel, is kept apart from
// the rest (pushOutside): fewer instructions per event in both
// simulators (callgrind).
func (q *Queue) Push(e Event) {
	b := e.T >> (q.shift & 63) // the mask spares a check for shifts of 64 or more
	if b <= q.base || b > q.base+q.mask {
		q.pushOutside(e, b)
		return
	}
	i := q.slot(b)
	q.wheel[i] = append(q.wheel[i], e)
	q.occ[i>>6] |= 1 << (i & 63)
	q.inWheel++
}

// pushOutside schedules e, of bucket b, outside the wheel: into the
// bucket being delivered or the far heap.
func (q *Queue) pushOutside(e Event, b int64) {
	if b > q.base {
		q.pushFar(farEvent{e, q.seq})
		q.seq++
		return
	}
	// The bucket being delivered, or earlier: Peek may have moved base
	// ahead to the next event while the simulator does something not in
	// the queue (a flow start) first. Insert after the events of equal
	// time and key: usually at the end, an append (linksim's fast NICs
	// wake up within the bucket they sent in).
	if n := len(q.cur); n == q.pos || !less(&e, &q.cur[n-1]) {
		q.cur = append(q.cur, e)
		return
	}
	rest := q.cur[q.pos:]
	i := q.pos + sort.Search(len(rest), func(i int) bool { return less(&e, &rest[i]) })
	q.cur = slices.Insert(q.cur, i, e)
}

// slot is the wheel slot of bucket b. Masking with maxWheel-1 as well
// changes nothing but lets the compiler drop the bitmap's bounds checks.
func (q *Queue) slot(b int64) int64 { return b & q.mask & (maxWheel - 1) }

// advance makes cur[pos] the earliest event, reporting false if there is
// none.
func (q *Queue) advance() bool {
	for q.pos == len(q.cur) {
		b := int64(math.MaxInt64)
		if q.inWheel > 0 {
			b = q.nextUsed()
		}
		if len(q.far) > 0 {
			b = min(b, q.far[0].e.T>>(q.shift&63))
		}
		if b == math.MaxInt64 {
			return false
		}
		slot := q.slot(b)
		w := q.wheel[slot]
		q.inWheel -= len(w)
		q.occ[slot>>6] &^= 1 << (slot & 63)
		if len(q.far) > 0 && q.far[0].e.T>>(q.shift&63) == b {
			// Far events first: they were scheduled earlier.
			cur := q.cur[:0]
			for len(q.far) > 0 && q.far[0].e.T>>(q.shift&63) == b {
				cur = append(cur, q.popFar().e)
			}
			q.cur = append(cur, w...)
			q.wheel[slot] = w[:0]
		} else {
			// Recycle the finished bucket's storage for the slot.
			q.wheel[slot] = q.cur[:0]
			q.cur = w
		}
		q.base, q.pos = b, 0
		q.sort(q.cur)
	}
	return true
}

// nextUsed is the first bucket after base that holds events, found a word
// of the occupancy bitmap at a time; the wheel must not be empty.
func (q *Queue) nextUsed() int64 {
	start := q.base + 1
	for d := int64(0); d <= q.mask; {
		s := q.slot(start + d)
		if w := q.occ[s>>6] >> (s & 63); w != 0 {
			return start + d + int64(bits.TrailingZeros64(w))
		}
		d += 64 - s&63
	}
	panic("calendar: wheel bitmap out of step with its count")
}

// less reports whether a comes before b by (time, key).
func less(a, b *Event) bool {
	return a.T < b.T || a.T == b.T && a.K < b.K
}

// sort sorts a bucket stably by (time, key): insertion sort for the usual
// handful of events; a crowded bucket (tens of events on large fabrics)
// sorts keys of time within the bucket and position, which are distinct,
// and then moves the events once, then orders runs of equal time by key.
func (q *Queue) sort(b []Event) {
	if len(b) <= 24 {
		for i := 1; i < len(b); i++ {
			e := b[i]
			j := i
			for j > 0 && less(&e, &b[j-1]) {
				b[j] = b[j-1]
				j--
			}
			b[j] = e
		}
		return
	}
	keys := q.keys[:0]
	within := int64(1)<<q.shift - 1
	for i := range b {
		keys = append(keys, uint64(b[i].T&within)<<32|uint64(i))
	}
	slices.Sort(keys)
	q.moved = append(q.moved[:0], b...)
	for i, k := range keys {
		b[i] = q.moved[uint32(k)]
	}
	q.keys = keys
	for i := 0; i < len(b); {
		j := i + 1
		for j < len(b) && b[j].T == b[i].T {
			j++
		}
		if j-i > 1 {
			slices.SortStableFunc(b[i:j], func(x, y Event) int { return cmp.Compare(x.K, y.K) })
		}
		i = j
	}
}

func farLess(a, b *farEvent) bool {
	return less(&a.e, &b.e) || (a.e.T == b.e.T && a.e.K == b.e.K && a.seq < b.seq)
}

func (q *Queue) pushFar(e farEvent) {
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

func (q *Queue) popFar() farEvent {
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
