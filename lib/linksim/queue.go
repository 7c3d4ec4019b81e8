package linksim

import "github.com/tailscope/tailscope/lib/internal/calendar"

// eventQueue delivers linksim's events in (time, scheduling order). A
// link simulation has few events pending at a time (8-63 at 97% of the
// pushes in Parsimon's link simulations of the meta32 30% scenario at 20k
// flows), nearly all within a round trip of now, so most of them live in
// near, a sorted array small enough to stay in the L1 cache: an ACK, the
// latest event, is appended; a NIC's wake-up is inserted a few places
// from the front, an arrival at the target a few from either end. The
// shared calendar queue, a wheel of buckets with a slice each, took 30%
// of the link simulations' time (perf); it now holds only the events
// beyond the horizon, such as the retransmission timers of finite
// buffers, which would otherwise make every insertion shift past them.
//
// Every event before the horizon is in near and every event in far is at
// or after it, so all of near precedes all of far: near's events are
// either moved there from far, in far's order, or scheduled directly
// before the horizon, after every event of near at their time. When near
// runs dry the horizon moves on and far's earliest events move to near.
type eventQueue struct {
	near       []event // near[head:tail] in delivery order
	head, tail int
	horizon    int64 // ps
	far        calendar.Queue
}

const (
	// The far calendar's buckets and wheel are those measured best when
	// it held all of linksim's events: buckets of 1.05 us, a wheel of 134
	// us.
	bucketShift = 20
	wheelBits   = 7
	// horizonPs is how far past far's earliest event a refill reaches:
	// 537 us, many round trips of a link-level topology, and short of the
	// 1 ms minimum RTO of netcfg.Default, whose timers stay in far.
	horizonPs = 1 << 29
	// refillMax bounds the events one refill moves to near; the horizon
	// then stops at the first one left in far.
	refillMax = nearMax / 2
	// nearMax is the most events near holds before its latest go back to
	// far (evict): Parsimon's link simulations have more than 63 events
	// pending at well under 1% of their pushes.
	nearMax = 64
	nearCap = 2 * nearMax // near's initial size, with room at both ends
)

func newEventQueue() eventQueue {
	return eventQueue{near: make([]event, nearCap), head: nearCap / 2, tail: nearCap / 2, far: calendar.New(bucketShift, wheelBits)}
}

// push schedules e, which must not be earlier than the last event
// delivered, after every event of its time. Inserting into near moves the
// events between e's place and the nearer end by one, and finds the place
// while doing so.
func (q *eventQueue) push(e event) {
	if e.t >= q.horizon {
		q.far.Push(calendar.Event{T: e.t, W: e.w, A: e.flow, B: e.pkt})
		return
	}
	h, t := q.head, q.tail
	if t-h >= nearMax && q.evict() && e.t >= q.horizon {
		q.far.Push(calendar.Event{T: e.t, W: e.w, A: e.flow, B: e.pkt})
		return
	}
	h, t = q.head, q.tail
	b := q.near
	if t > h && e.t < b[(h+t)>>1].t {
		// From the front: stops at the middle event at the latest.
		if h == 0 {
			q.grow()
			q.push(e)
			return
		}
		i := h
		for b[i].t <= e.t {
			b[i-1] = b[i]
			i++
		}
		b[i-1] = e
		q.head = h - 1
		return
	}
	if t == len(b) {
		q.grow()
		q.push(e)
		return
	}
	i := t
	for i > h && b[i-1].t > e.t {
		b[i] = b[i-1]
		i--
	}
	b[i] = e
	q.tail = t + 1
}

// evict moves near's latest events, those of its last time, to far and
// lowers the horizon to that time, reporting whether it did: a busy link
// would otherwise keep hundreds of events in near, where an insertion
// shifts more of them than the calendar costs. It leaves near as it is
// when all its events have one time, or when that time is the horizon:
// such events were moved from far before the events far still has at
// that time, so they must stay ahead of them.
func (q *eventQueue) evict() bool {
	b := q.near
	t := b[q.tail-1].t
	if t == q.horizon {
		return false
	}
	i := q.tail - 1
	for i > q.head && b[i-1].t == t {
		i--
	}
	if i == q.head {
		return false
	}
	// Not earlier than any event far delivered: near's latest event is
	// at least the last one moved from far.
	for _, e := range b[i:q.tail] {
		q.far.Push(calendar.Event{T: e.t, W: e.w, A: e.flow, B: e.pkt})
	}
	q.tail, q.horizon = i, t
	return true
}

// grow centres near's events in an array with room for as many again on
// each side, reusing near's if it is large enough.
func (q *eventQueue) grow() {
	n := q.tail - q.head
	b := q.near
	if 2*n > len(b) {
		b = make([]event, 2*len(b))
	}
	off := (len(b) - n) / 2
	copy(b[off:off+n], q.near[q.head:q.tail])
	q.near, q.head, q.tail = b, off, off+n
}

// peek is the earliest event, which stays in the queue until drop; nil if
// there is none. The pointer is valid until the next push or drop.
func (q *eventQueue) peek() *event {
	if q.head == q.tail && !q.refill() {
		return nil
	}
	return &q.near[q.head]
}

// drop removes the event peek returned; an emptied near starts again in
// the middle of its array.
func (q *eventQueue) drop() {
	q.head++
	if q.head == q.tail {
		q.head = len(q.near) / 2
		q.tail = q.head
	}
}

// refill moves far's earliest events, those before the new horizon, to
// the empty near, reporting false if there are none.
func (q *eventQueue) refill() bool {
	p := q.far.Peek()
	if p == nil {
		return false
	}
	q.horizon = p.T + horizonPs
	for n := 0; p != nil && p.T < q.horizon; p = q.far.Peek() {
		if n == refillMax {
			// near may end with events at p.T: they were scheduled before
			// p and everything pushed from now on at p.T.
			q.horizon = p.T
			break
		}
		if q.tail == len(q.near) {
			q.grow()
		}
		q.near[q.tail] = event{t: p.T, w: p.W, flow: p.A, pkt: p.B}
		q.tail++
		n++
		q.far.Drop()
	}
	return true
}
