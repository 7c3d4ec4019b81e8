package packetsim

import "github.com/tailscope/tailscope/lib/internal/calendar"

// Event kinds.
const (
	evArrive   uint8 = iota // a packet reaches the far end of the channel at its hop (0: packets start as arrivals)
	evNicFree               // host NIC port (channel in event.ref) finished sending a packet
	evNicWake               // a paced flow on NIC port ref may send again
	evRTO                   // retransmission check of the flow in slot ref
	evSample                // per-port sampling tick
	evPortFree              // a port holding its packets (shared buffer) finished sending one
	evPause                 // a PFC pause (pkt 1) or resume (pkt 0) frame reaches the transmitter of channel ref
	evDepart                // parallel runs: a packet that waited at the port of its hop's channel, which leads to another partition, ends its transmission
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

// eventQueue is the shared calendar queue with packetsim's bucket width
// and wheel size, holding packetsim's events.
type eventQueue struct{ calendar.Queue }

const (
	bucketShift = 13 // 8.2 ns
	wheelBits   = 10 // 8.4 us ahead; a small wheel stays in cache (measured faster than 2^11-2^17)
)

// newEventQueue returns an empty queue. Finer buckets (fewer events to
// sort each) were measured slower on both fabrics, even with the
// occupancy bitmap skipping empty ones: a larger wheel falls out of cache.
func newEventQueue() eventQueue {
	return eventQueue{calendar.New(bucketShift, wheelBits)}
}

// push schedules e, which must not be earlier than the last event
// delivered, for entity k: a channel, whose port, NIC or PFC frames
// scheduled it (see tieKey).
func (q *eventQueue) push(e event, k int32) {
	q.Push(calendar.Event{T: e.t, W: e.w, A: e.ref, B: e.pkt, K: tieKey(e.t, k)})
}

// pushKey schedules e with the queue's key k itself.
func (q *eventQueue) pushKey(e event, k uint64) {
	q.Push(calendar.Event{T: e.t, W: e.w, A: e.ref, B: e.pkt, K: k})
}

// tieKey orders events of equal time t: by a hash of t and the entity k
// that scheduled them, then by k, so that simultaneous events of
// different entities run in an order every partition of a parallel run
// computes alone, and that favours no entity over a run (a fixed order
// by entity let the lowest-numbered of four synchronized senders lose 7%
// of its share of a bottleneck). Events of one entity at one time have
// equal keys and run in the order the entity scheduled them (a PFC pause
// before the resume that follows it).
func tieKey(t int64, k int32) uint64 {
	h := uint64(t)*0x9e3779b97f4a7c15 ^ uint64(uint32(k))*0xc2b2ae3d27d4eb4f
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	return h<<32 | uint64(uint32(k))
}

// eventOf is the event p holds.
func eventOf(p *calendar.Event) event {
	return event{t: p.T, w: p.W, ref: p.A, pkt: p.B}
}

// popFront takes the first waiting element, q[*head], of a FIFO kept as a
// slice and the index of its head. The slice starts over when it empties;
// one that never empties (a port busy for seconds under a lossy shared
// buffer) drops what was read once that is half of it, so that its
// memory stays within about twice what waits rather than growing with
// every packet the port ever held.
func popFront[T any](q *[]T, head *int) T {
	e := (*q)[*head]
	*head++
	switch n := len(*q); {
	case *head == n:
		*q, *head = (*q)[:0], 0
	case *head >= compactAt && 2**head >= n:
		*q, *head = (*q)[:copy(*q, (*q)[*head:])], 0
	}
	return e
}

// compactAt is the fewest read elements popFront drops at once, so that
// a short queue is not copied at every read.
const compactAt = 64
