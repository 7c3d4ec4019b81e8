// Package ecnmark decides ECN marks at dequeue for FIFO ports kept in
// closed form, as the papers' ns-3 fork marks them: a data packet is
// marked when the bytes queued behind it as it starts its transmission
// exceed the threshold K. A closed-form port fixes a packet's start when
// the packet arrives, before the packets that will queue behind it have
// arrived, so the mark can only be read later, once the simulation clock
// has passed that start. The queue remembers, per packet still to be
// read, its arrival, its start and the bytes the port had taken in by
// then; reading in FIFO order costs amortized O(1).
package ecnmark

// entry is one packet put on the port.
type entry struct {
	arrive, start int64 // ps
	cum           int64 // bytes the port had taken in, this packet included
}

// Queue is the mark memory of one port. The zero value is an empty queue.
type Queue struct {
	buf  []entry
	head int   // next packet to read
	seen int   // packets of buf[:seen] arrived before the last start read
	cum  int64 // bytes taken in
}

// Push records a packet of wire bytes that arrived at the port at time
// arrive (ps) and starts its transmission at start, no earlier than
// every start pushed before (the port is a FIFO).
func (q *Queue) Push(arrive, start, wire int64) {
	if q.head == len(q.buf) {
		q.buf, q.head, q.seen = q.buf[:0], 0, 0
	} else if q.head >= 1024 && 2*q.head >= len(q.buf) {
		// A queue that never empties: drop what was read.
		q.seen = max(q.seen, q.head) - q.head
		q.buf = q.buf[:copy(q.buf, q.buf[q.head:])]
		q.head = 0
	}
	q.cum += wire
	q.buf = append(q.buf, entry{arrive, start, q.cum})
}

// Pop reads the oldest packet not yet read and returns the bytes that
// arrived behind it before its start (strictly before: a packet arriving
// as it starts is not behind it). Every packet arriving before that start
// must have been pushed; Pop must not be called on an empty queue.
func (q *Queue) Pop() (behind int64) {
	e := q.buf[q.head]
	q.head++
	if e.start == e.arrive {
		return 0 // it found the port idle: nothing was behind it
	}
	q.seen = max(q.seen, q.head)
	for q.seen < len(q.buf) && q.buf[q.seen].arrive < e.start {
		q.seen++
	}
	return q.buf[q.seen-1].cum - e.cum
}

// Len is the number of packets pushed and not yet read.
func (q *Queue) Len() int { return len(q.buf) - q.head }
