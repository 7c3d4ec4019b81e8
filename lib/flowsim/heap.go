package flowsim

// Three binary heaps with their orders written out rather than behind
// container/heap's interface: they sit on the hot path of every event.

// pushPending adds p to the heap h of a route's jobs.
func pushPending(h []pending, p pending) []pending {
	h = append(h, p)
	i := len(h) - 1
	for i > 0 {
		up := (i - 1) / 2
		if !h[i].before(h[up]) {
			break
		}
		h[i], h[up] = h[up], h[i]
		i = up
	}
	return h
}

// popPending removes and returns the job that finishes first.
func popPending(h []pending) ([]pending, pending) {
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].before(h[c]) {
			c++
		}
		if !h[c].before(h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	return h, top
}

func (a share) below(b share) bool {
	if a.v != b.v {
		return a.v < b.v
	}
	return a.id < b.id
}

func siftDownShares(h []share, i int) {
	n := len(h)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && h[c+1].below(h[c]) {
			c++
		}
		if !h[c].below(h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

func heapifyShares(h []share) {
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDownShares(h, i)
	}
}

func pushShare(h []share, s share) []share {
	h = append(h, s)
	i := len(h) - 1
	for i > 0 {
		up := (i - 1) / 2
		if !h[i].below(h[up]) {
			break
		}
		h[i], h[up] = h[up], h[i]
		i = up
	}
	return h
}

func popShare(h []share) ([]share, share) {
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	siftDownShares(h, 0)
	return h, top
}

// The event heap holds the active routes ordered by when their head job
// finishes; ties go to the lower job id, so simultaneous completions are
// processed in id order. Each route knows its index (hpos), so a changed
// due time is fixed in place instead of leaving stale entries behind.

func (e *engine) eventBefore(a, b int32) bool {
	ra, rb := &e.routes[a], &e.routes[b]
	if ra.due != rb.due {
		return ra.due < rb.due
	}
	// Every route in the heap has a job (one just activated has due +Inf
	// until its first rate).
	return ra.jobs[0].before(rb.jobs[0])
}

func (e *engine) swapEvents(i, j int32) {
	h := e.events
	h[i], h[j] = h[j], h[i]
	e.routes[h[i]].hpos = i
	e.routes[h[j]].hpos = j
}

func (e *engine) upEvent(i int32) bool {
	moved := false
	for i > 0 {
		up := (i - 1) / 2
		if !e.eventBefore(e.events[i], e.events[up]) {
			break
		}
		e.swapEvents(i, up)
		i, moved = up, true
	}
	return moved
}

func (e *engine) downEvent(i int32) {
	n := int32(len(e.events))
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && e.eventBefore(e.events[c+1], e.events[c]) {
			c++
		}
		if !e.eventBefore(e.events[c], e.events[i]) {
			return
		}
		e.swapEvents(i, c)
		i = c
	}
}

// fixEvent restores the heap order after the route at index i changed.
func (e *engine) fixEvent(i int32) {
	if !e.upEvent(i) {
		e.downEvent(i)
	}
}

// removeEvent takes the route at index i out of the heap.
func (e *engine) removeEvent(i int32) {
	n := int32(len(e.events)) - 1
	if i != n {
		e.swapEvents(i, n)
	}
	e.events = e.events[:n]
	if i != n {
		e.fixEvent(i)
	}
}
