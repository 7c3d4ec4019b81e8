package linksim

// eventHeap is a 4-ary min-heap of events by (time, scheduling order),
// for the events beyond the calendar queue's wheel.
type eventHeap struct {
	items []farEvent
	seq   uint64
}

type farEvent struct {
	event
	seq uint64
}

func less(a, b *farEvent) bool {
	return a.t < b.t || (a.t == b.t && a.seq < b.seq)
}

func (q *eventHeap) push(ev event) {
	e := farEvent{ev, q.seq}
	q.seq++
	h := append(q.items, e)
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
	q.items = h
}

// pop removes and returns the earliest event; the heap must not be empty.
func (q *eventHeap) pop() event {
	h := q.items
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
	q.items = h
	return top.event
}
