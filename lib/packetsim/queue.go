package packetsim

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
	seq  uint64 // insertion order: breaks ties between equal times
	ts   int64  // data: send time (ps); ACK: the echoed send time
	ch   int32  // channel just traversed (evArrive) or NIC port
	flow int32
	pkt  int32 // data: packet index; ACK: cumulative packets received
	kind uint8
	hop  uint8 // index of ch along the packet's route
	flag uint8
}

// eventQueue is a 4-ary min-heap ordered by (t, seq). Four children per
// node halve the depth of a binary heap and keep siblings in one or two
// cache lines, which profiling showed is where the simulator spends its
// time.
type eventQueue struct {
	h   []event
	seq uint64
}

func (q *eventQueue) len() int { return len(q.h) }

func less(a, b *event) bool {
	return a.t < b.t || (a.t == b.t && a.seq < b.seq)
}

// push schedules e, stamping it with the next sequence number.
func (q *eventQueue) push(e event) {
	e.seq = q.seq
	q.seq++
	h := append(q.h, e)
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
	q.h = h
}

// pop removes and returns the earliest event.
func (q *eventQueue) pop() event {
	h := q.h
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
		end := min(c+4, n)
		for j := c + 1; j < end; j++ {
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
	q.h = h
	return top
}
