// Package ecnmark decides ECN marks at dequeue for FIFO ports kept in
// closed form, as the papers' ns-3 fork marks them: a data packet is
// marked when the bytes queued behind it as it starts its transmission
// exceed the threshold K. A closed-form port fixes a packet's start when
// the packet arrives, before the packets that will queue behind it have
// arrived, so the mark can only be read later, once the simulation clock
// has passed that start: here, when the packet reaches the channel's far
// end.
//
// Only packets that find the port busy are remembered: a packet that
// finds it idle starts at once, so nothing is ever behind it, and it is
// behind no other (every earlier packet has started). Reading in FIFO
// order costs amortized O(1).
package ecnmark

// entry is one packet that waited at the port.
type entry struct {
	arrive, start, at int64 // ps: arrival, start of transmission, arrival at the far end
	cum               int64 // wire bytes of the waiting packets pushed up to this one
}

// compactAt is the fewest read entries that Push drops from a queue that
// never empties (a packet that waited is still on the wire when the next
// one has to wait). Once at least half the entries are read they are
// dropped, so a queue holds at most about twice the packets it remembers
// or compactAt more, and copies at most one entry per read. It is small
// because a fabric has many ports: at 1024, most of the 10,752 switch
// ports of meta384-2:1 grew to 2,048 entries over a long run (0.7 GB).
const compactAt = 32

// Queue is the mark memory of one port. The zero value is an empty queue.
type Queue struct {
	buf  []entry
	head int // next packet to read
	seen int // packets of buf[:seen] arrived before the last start read
}

// Push records a packet of wire bytes that arrived at the port at time
// arrive (ps) and found it busy: it starts its transmission at start >
// arrive, after every packet pushed before, and reaches the channel's far
// end at at.
func (q *Queue) Push(arrive, start, at, wire int64) {
	var cum int64
	switch n := len(q.buf); {
	case q.head == n:
		q.buf, q.head, q.seen = q.buf[:0], 0, 0
	case q.head >= compactAt && 2*q.head >= n:
		// A queue that never empties: drop what was read.
		q.seen = max(q.seen, q.head) - q.head
		q.buf = q.buf[:copy(q.buf, q.buf[q.head:])]
		q.head = 0
		cum = q.buf[len(q.buf)-1].cum
	default:
		cum = q.buf[n-1].cum
	}
	q.buf = append(q.buf, entry{arrive, start, at, cum + wire})
}

// Pop is called as each packet that crossed the port reaches the far end,
// at time at, in the order they left: it returns the bytes that arrived
// behind the packet before its start (strictly before: a packet arriving
// as it starts is not behind it). Every packet arriving before that start
// must have been pushed.
func (q *Queue) Pop(at int64) (behind int64) {
	if q.head == len(q.buf) || q.buf[q.head].at != at {
		return 0 // it found the port idle
	}
	e := q.buf[q.head]
	q.head++
	q.seen = max(q.seen, q.head)
	for q.seen < len(q.buf) && q.buf[q.seen].arrive < e.start {
		q.seen++
	}
	return q.buf[q.seen-1].cum - e.cum
}

// Len is the number of packets pushed and not yet read.
func (q *Queue) Len() int { return len(q.buf) - q.head }
