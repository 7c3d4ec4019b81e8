package flowsim

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
)

// Job is one transfer for Simulate: Bytes wire bytes (headers included)
// sent over the links of Route from Start on, at most CapBps. A job that
// was already under way, such as a flow carried into a temporal chunk of a
// larger run, is a job with its remaining bytes starting at the chunk's
// start.
type Job struct {
	ID     int   // orders completions at equal times (ascending), and names the job in errors
	Route  []int // indices into the link capacities, each link at most once
	Bytes  int64 // wire bytes to send, > 0
	CapBps int64 // the job's own rate limit (its host's rate), bits/s; 0 means none
	Start  int64 // arrival, ns
}

// Simulate runs jobs on links of the given capacities (bits/s) under
// max-min fair sharing and returns each job's finish time in nanoseconds,
// index-aligned with jobs. Jobs may come in any order. A non-nil meter is
// filled with the bits its links carried per time bin.
func Simulate(capBps []int64, jobs []Job, meter *Meter) ([]float64, error) {
	for l, c := range capBps {
		if c <= 0 {
			return nil, fmt.Errorf("flowsim: link %d has capacity %d bps; it must be positive", l, c)
		}
	}
	if len(jobs) > math.MaxInt32 {
		return nil, fmt.Errorf("flowsim: %d jobs; at most %d are supported", len(jobs), math.MaxInt32)
	}
	if meter != nil {
		if err := meter.prepare(len(capBps)); err != nil {
			return nil, err
		}
	}
	order := make([]int, len(jobs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return jobs[order[a]].Start < jobs[order[b]].Start })
	e := newEngine(capBps, len(jobs))
	e.meter = meter
	seen := make([]int, len(capBps)) // job index + 1 that last used each link
	for _, i := range order {
		j := jobs[i]
		switch {
		case j.Bytes <= 0:
			return nil, fmt.Errorf("flowsim: job %d has %d bytes; it must be positive", j.ID, j.Bytes)
		case j.Start < 0:
			return nil, fmt.Errorf("flowsim: job %d starts at negative time %d ns", j.ID, j.Start)
		case j.CapBps < 0:
			return nil, fmt.Errorf("flowsim: job %d has negative rate cap %d bps", j.ID, j.CapBps)
		case len(j.Route) == 0:
			return nil, fmt.Errorf("flowsim: job %d has an empty route", j.ID)
		}
		for _, l := range j.Route {
			if l < 0 || l >= len(capBps) {
				return nil, fmt.Errorf("flowsim: job %d crosses link %d, which does not exist (%d links)", j.ID, l, len(capBps))
			}
			if seen[l] == i+1 {
				return nil, fmt.Errorf("flowsim: job %d crosses link %d twice", j.ID, l)
			}
			seen[l] = i + 1
		}
		e.add(j.ID, e.intern(j.Route, j.CapBps), j.Bytes, j.Start)
	}
	// A job set is a chunk of a larger run (pfs), whose caller stops
	// between chunks; a chunk alone runs to its end.
	if err := e.run(context.Background()); err != nil {
		return nil, err
	}
	finish := make([]float64, len(jobs))
	for k, i := range order {
		finish[i] = e.finish[k]
	}
	return finish, nil
}

// engine is the event loop. Rates are in bits per nanosecond and times in
// float64 nanoseconds: for runs shorter than about a day of simulated time
// the rounding error of a finish time stays far below a nanosecond.
//
// Jobs with the same route and cap always get the same rate, so the engine
// shares one route record among them: water-filling works on routes
// weighted by their job counts, and a route's jobs drain in the order of
// the level of per-job service at which each finishes (processor
// sharing), kept in a heap. A parking lot has a handful of routes however
// many jobs are active, so its water-filling stays small.
type engine struct {
	linkCap []float64 // bits/ns
	active  [][]int32 // per link: the routes with jobs on it
	routes  []route
	idle    []*routeState // states of routes gone idle, for reuse
	byHash  map[uint64]int32

	// Jobs, in arrival order.
	start  []int64
	bits   []float64
	id     []int
	route  []int32
	finish []float64
	next   int // first job not yet arrived

	events []int32 // heap of active routes by next completion
	dense  *dense  // the allocator for few routes; nil: the general path

	// Scratch for refill.
	dirty   []int32
	comp    []int32
	links   []int32
	touched []int32
	shares  []share
	rem     []float64 // remaining capacity of each link during a refill
	unfroze []int64   // jobs not yet frozen on each link during a refill
	lstamp  []uint32  // link visited in the current refill (epoch)
	tstamp  []uint32  // link touched in the current freezing step
	lver    []uint32  // bumped when a link's share changes
	epoch   uint32    // refills
	fillNo  uint32    // fills (a refill may fill more than once)
	stepNo  uint32    // freezing steps and overload checks

	// Per link, across refills.
	linkJobs []int64   // active jobs crossing the link
	usage    []float64 // sum of the rates of those jobs, bits/ns
	tight    []bool    // a bottleneck in the last fill that covered it

	// Metering, when meter is set: per route, the positions in the meter
	// of its metered links and the time up to which its traffic is
	// counted. Kept out of route so that unmetered runs stay lean.
	meter   *Meter
	meters  [][]int32
	meterAt []float64
}

// route is the state shared by the jobs with one route and cap. Every
// flow's route is interned before the run, and on a large fabric nearly
// every flow has a route of its own, so what a route needs only while it
// has jobs is held apart (routeState) and, off the dense path, handed back
// to engine.idle when its last job completes.
type route struct {
	links       []int32
	capRate     float64 // per-job cap, bits/ns; +Inf when none
	capBinds    bool    // capRate is below every link's capacity, so it can bind
	minCap      float64 // smallest link capacity on the route, bits/ns
	nextHash    int32   // next route with the same hash, -1 at the end
	*routeState         // nil until the route's first job arrives, and while it has none
}

// routeState is a route's state while it has jobs. A fresh one acts as
// the route's state from its last busy period would: counts, rates and
// contributions are zero when a route goes idle, and the epochs of its
// marks (stamp, frozen) lie in the past either way.
type routeState struct {
	pos    []int32   // this route's index in active[links[i]] while active
	count  int64     // active jobs
	rate   float64   // per job, bits/ns
	served float64   // bits served to each job since activation
	at     float64   // time served refers to
	jobs   []pending // heap by finish level
	hpos   int32     // index in engine.events, -1 when inactive
	due    float64   // finish time of jobs[0] at the current rate

	stamp   uint32 // refill epoch this route was visited in
	frozen  uint32 // fill this route was frozen in
	newRate float64
	contrib float64 // rate*count as last committed to the links' usage

	oldContrib float64 // contrib before a commit that may be undone
	moved      bool    // the head job changed since the last refill
}

// pending is an active job: it finishes when its route's per-job service
// reaches level.
type pending struct {
	level float64
	id    int
	job   int32
}

func (a pending) before(b pending) bool {
	if a.level != b.level {
		return a.level < b.level
	}
	if a.id != b.id {
		return a.id < b.id
	}
	return a.job < b.job
}

// share is a candidate water level in a refill: a link's fair share
// (id >= 0) or a route's own cap (id = -1-route).
type share struct {
	v   float64
	id  int32
	ver uint32
}

func newEngine(capBps []int64, jobs int) *engine {
	L := len(capBps)
	e := &engine{
		linkCap: make([]float64, L),
		active:  make([][]int32, L),
		byHash:  make(map[uint64]int32),
		start:   make([]int64, 0, jobs),
		bits:    make([]float64, 0, jobs),
		id:      make([]int, 0, jobs),
		route:   make([]int32, 0, jobs),
		rem:     make([]float64, L),
		unfroze: make([]int64, L),
		lstamp:  make([]uint32, L),
		tstamp:  make([]uint32, L),
		lver:    make([]uint32, L),

		linkJobs: make([]int64, L),
		usage:    make([]float64, L),
		tight:    make([]bool, L),
	}
	for l, c := range capBps {
		e.linkCap[l] = float64(c) / 1e9
	}
	return e
}

// intern returns the route of links with per-job cap capBps (0: none),
// creating it on first use. links must be valid.
func (e *engine) intern(links []int, capBps int64) int32 {
	h := uint64(14695981039346656037) ^ uint64(capBps)
	for _, l := range links {
		h = (h ^ uint64(l)) * 1099511628211
	}
	head, ok := e.byHash[h]
	if !ok {
		head = -1
	}
	for r := head; r >= 0; r = e.routes[r].nextHash {
		rt := &e.routes[r]
		if rt.sameAs(links, capBps, e) {
			return r
		}
	}
	rt := route{links: make([]int32, len(links)), nextHash: head, capRate: math.Inf(1), minCap: math.Inf(1)}
	for i, l := range links {
		rt.links[i] = int32(l)
		rt.minCap = min(rt.minCap, e.linkCap[l])
	}
	if e.meter != nil {
		var ms []int32
		for _, l := range links {
			if m, ok := e.meter.index[l]; ok {
				ms = append(ms, int32(m))
			}
		}
		e.meters, e.meterAt = append(e.meters, ms), append(e.meterAt, 0)
	}
	if capBps > 0 {
		rt.capRate = float64(capBps) / 1e9
	}
	rt.capBinds = rt.capRate < rt.minCap
	r := int32(len(e.routes))
	e.routes = append(e.routes, rt)
	e.byHash[h] = r
	return r
}

func (rt *route) sameAs(links []int, capBps int64, e *engine) bool {
	if len(links) != len(rt.links) {
		return false
	}
	want := math.Inf(1)
	if capBps > 0 {
		want = float64(capBps) / 1e9
	}
	if rt.capRate != want {
		return false
	}
	for i, l := range links {
		if int32(l) != rt.links[i] {
			return false
		}
	}
	return true
}

// add appends a job; jobs must be added in order of start.
func (e *engine) add(id int, r int32, bytes, start int64) {
	e.start = append(e.start, start)
	e.bits = append(e.bits, float64(bytes)*8)
	e.id = append(e.id, id)
	e.route = append(e.route, r)
}

// begin prepares the run once every job has been added: it allocates
// e.finish and picks the dense allocator when the routes are few.
func (e *engine) begin() {
	e.finish = make([]float64, len(e.start))
	e.dense = newDense(e)
}

// run simulates every job to completion and fills e.finish.
func (e *engine) run(ctx context.Context) error {
	e.begin()
	for n := 1; ; n++ {
		if _, ok := e.step(); !ok {
			return nil
		}
		if n%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("flowsim: stopped at %d of %d flows: %w", e.next, len(e.start), err)
			}
		}
	}
}

// checkEvery is how many instants run between two looks at the context:
// a look costs nanoseconds, an instant of a large run microseconds, so
// a cancelled run stops within milliseconds at no measurable cost.
const checkEvery = 1024

// step applies all events of the next instant (completions, then
// arrivals) and one re-allocation, which touches only the routes that
// can change. It returns the instant, or false when every job has
// finished. e.begin must have run.
func (e *engine) step() (float64, bool) {
	r, due := e.first()
	if e.next == len(e.start) && r < 0 {
		return 0, false
	}
	t := due
	if e.next < len(e.start) && float64(e.start[e.next]) <= t {
		t = float64(e.start[e.next])
	}
	if math.IsInf(t, 1) {
		panic("flowsim: active jobs with no rate") // max-min gives every active job a positive rate
	}
	for ; r >= 0 && due <= t; r, due = e.first() {
		e.complete(r, t)
	}
	for e.next < len(e.start) && float64(e.start[e.next]) == t {
		e.arrive(e.next, t)
		e.next++
	}
	e.refill(t)
	return t, true
}

// first returns the active route whose head job finishes first, and
// when; -1 and +Inf when no route is active. The dense path scans its
// few routes instead of keeping the event heap.
func (e *engine) first() (int32, float64) {
	if e.dense == nil {
		if len(e.events) == 0 {
			return -1, math.Inf(1)
		}
		return e.events[0], e.routes[e.events[0]].due
	}
	best, due := int32(-1), math.Inf(1)
	for m := e.dense.act; m != 0; m &= m - 1 {
		r := int32(bits.TrailingZeros64(m))
		if d := e.dense.due[r]; best < 0 || d < due || d == due && e.eventBefore(r, best) {
			best, due = r, d
		}
	}
	return best, due
}

// advance brings a route's per-job service up to time t.
func (rt *route) advance(t float64) {
	rt.served += rt.rate * (t - rt.at)
	rt.at = t
}

// metered credits route r's traffic since meterAt, at its current
// per-job rate and job count, to its metered links. It must run before
// either changes.
func (e *engine) metered(r int32, t float64) {
	rt := &e.routes[r]
	if thr := rt.rate * float64(rt.count); thr > 0 {
		for _, m := range e.meters[r] {
			e.meter.add(int(m), e.meterAt[r], t, thr)
		}
	}
	e.meterAt[r] = t
}

// reschedule recomputes when the head job of an active route finishes.
func (e *engine) reschedule(r int32) {
	rt := &e.routes[r]
	rt.due = rt.at + max(0, rt.jobs[0].level-rt.served)/rt.rate
	if e.dense != nil {
		e.dense.due[r] = rt.due
	} else {
		e.fixEvent(rt.hpos)
	}
}

// countJobs records that route r gained (d = 1) or lost (d = -1) a job:
// its links' job counts change and they need a refill. The dense
// allocator counts per route only.
func (e *engine) countJobs(r int32, d int64) {
	rt := &e.routes[r]
	rt.count += d
	if e.dense != nil {
		e.dense.add(r, float64(d))
		return
	}
	for _, l := range rt.links {
		e.linkJobs[l] += d
	}
	e.dirty = append(e.dirty, rt.links...)
}

func (e *engine) arrive(j int, t float64) {
	r := e.route[j]
	rt := &e.routes[r]
	if rt.routeState == nil {
		rt.routeState = e.state(len(rt.links))
	}
	if rt.count == 0 {
		if e.dense != nil {
			e.dense.act |= 1 << r
			e.dense.due[r] = math.Inf(1)
		} else {
			for i, l := range rt.links {
				rt.pos[i] = int32(len(e.active[l]))
				e.active[l] = append(e.active[l], r)
			}
		}
		rt.served, rt.at, rt.rate, rt.due = 0, t, 0, math.Inf(1)
		if e.meter != nil {
			e.meterAt[r] = t
		}
	} else {
		rt.advance(t)
		if e.meter != nil {
			e.metered(r, t)
		}
	}
	e.countJobs(r, 1)
	rt.jobs = pushPending(rt.jobs, pending{level: rt.served + e.bits[j], id: e.id[j], job: int32(j)})
	if e.dense == nil && rt.hpos < 0 {
		// Due at +Inf until the refill that follows gives it a rate.
		rt.hpos = int32(len(e.events))
		e.events = append(e.events, r)
		e.fixEvent(rt.hpos)
	}
	rt.moved = true
}

func (e *engine) complete(r int32, t float64) {
	rt := &e.routes[r]
	rt.advance(t)
	if e.meter != nil {
		e.metered(r, t)
	}
	var done pending
	rt.jobs, done = popPending(rt.jobs)
	e.finish[done.job] = t
	e.countJobs(r, -1)
	if rt.count > 0 {
		// The next job may finish at this very instant; the refill
		// reschedules it again if the rate changes.
		e.reschedule(r)
		rt.moved = true
		return
	}
	if e.dense != nil {
		e.dense.act &^= 1 << r
	} else {
		e.retire(r)
	}
	rt.hpos, rt.rate, rt.served, rt.moved, rt.contrib = -1, 0, 0, false, 0
	if e.dense == nil {
		e.idle = append(e.idle, rt.routeState)
		rt.routeState = nil
	}
}

// state returns an idle route state, or a new one, for a route of n
// links, as a fresh route's: no jobs, no rate, out of the event heap.
func (e *engine) state(n int) *routeState {
	var st *routeState
	if k := len(e.idle); k > 0 {
		st = e.idle[k-1]
		e.idle = e.idle[:k-1]
		*st = routeState{pos: st.pos[:0], jobs: st.jobs[:0]}
	} else {
		st = new(routeState)
	}
	st.pos = slices.Grow(st.pos, n)[:n]
	st.hpos = -1
	return st
}

// retire takes route r, which has lost its last job, off its links'
// route lists and usage and out of the event heap.
func (e *engine) retire(r int32) {
	rt := &e.routes[r]
	for i, l := range rt.links {
		act := e.active[l]
		last := act[len(act)-1]
		p := rt.pos[i]
		act[p] = last
		lr := &e.routes[last]
		for k, ll := range lr.links {
			if ll == l {
				lr.pos[k] = p
				break
			}
		}
		e.active[l] = act[:len(act)-1]
		e.usage[l] -= rt.contrib
		if len(act) == 1 {
			e.usage[l] = 0 // drop the rounding accumulated over the busy period
		}
	}
	e.removeEvent(rt.hpos)
}

// refill recomputes max-min fair rates after the events of one instant by
// progressive filling: the lowest of the links' fair shares and the routes'
// caps freezes its routes at that rate, their usage leaves their links,
// and the next lowest follows.
//
// Only a neighbourhood is re-solved. A route's rate depends on the links
// that bottleneck it, which are saturated ("tight"), so the routes re-solved
// (R) are those reached from the links whose job counts changed through
// tight links; every route on such a "problem" link is in R, so problem
// links are filled at full capacity. Routes outside R keep their rates:
// their bottleneck links carry no route of R. The other links of R's
// routes had slack; they are only checked for overload at the new rates,
// and one that would overload becomes a problem link and the solve is
// repeated on the larger neighbourhood. The result is the max-min fair
// allocation (unique), as a full recomputation would give.
func (e *engine) refill(t float64) {
	if e.dense != nil {
		e.dense.fill()
		for m := e.dense.act; m != 0; m &= m - 1 {
			r := int32(bits.TrailingZeros64(m))
			e.setRate(r, e.dense.rate[r], t)
		}
		return
	}
	if len(e.dirty) == 0 {
		return
	}
	e.epoch++
	ep := e.epoch
	links, comp := e.links[:0], e.comp[:0]
	for _, l := range e.dirty {
		if e.lstamp[l] != ep {
			e.lstamp[l] = ep
			links = append(links, l)
		}
	}
	e.dirty = e.dirty[:0]
	for from := 0; ; {
		links, comp = e.expand(links, comp, from)
		from = len(links)
		e.fill(links, comp)
		if !e.overloads(&links, comp) {
			break
		}
	}
	for _, r := range comp {
		e.setRate(r, e.routes[r].newRate, t)
	}
	e.links, e.comp = links[:0], comp[:0]
}

// setRate gives route r the per-job rate v from time t on and reschedules
// it, if the rate or its head job changed.
func (e *engine) setRate(r int32, v, t float64) {
	rt := &e.routes[r]
	if v == rt.rate && !rt.moved {
		return
	}
	if e.meter != nil {
		e.metered(r, t)
	}
	// Service accrued at the old rate is brought up to date only here,
	// for the routes whose rate changes.
	rt.advance(t)
	rt.rate, rt.moved = v, false
	e.reschedule(r)
}

// expand adds to comp every route on the problem links from links[from:],
// and to links the tight links of those routes, until closed.
func (e *engine) expand(links, comp []int32, from int) ([]int32, []int32) {
	ep := e.epoch
	for i := from; i < len(links); i++ {
		for _, r := range e.active[links[i]] {
			rt := &e.routes[r]
			if rt.stamp == ep {
				continue
			}
			rt.stamp = ep
			comp = append(comp, r)
			for _, l := range rt.links {
				if e.tight[l] && e.lstamp[l] != ep {
					e.lstamp[l] = ep
					links = append(links, l)
				}
			}
		}
	}
	return links, comp
}

// smallFill is the largest number of problem links fill scans linearly
// for the next water level instead of keeping a heap of shares: below it
// (a parking lot has a handful) the scan is cheaper than the heap's
// upkeep. A variable so that the tests can force either way.
var smallFill = 16

// fill runs progressive filling over the problem links and the routes of
// comp, setting each route's newRate and each problem link's tightness.
func (e *engine) fill(links, comp []int32) {
	e.fillNo++
	if len(links) <= smallFill {
		e.fillScan(links, comp)
		return
	}
	fn := e.fillNo
	sh := e.shares[:0]
	for _, l := range links {
		n := e.linkJobs[l]
		e.rem[l], e.unfroze[l], e.tight[l] = e.linkCap[l], n, false
		e.lver[l]++
		if n > 0 {
			sh = append(sh, share{v: e.linkCap[l] / float64(n), id: l, ver: e.lver[l]})
		}
	}
	for _, r := range comp {
		if rt := &e.routes[r]; rt.capBinds {
			sh = append(sh, share{v: rt.capRate, id: -1 - r})
		}
	}
	heapifyShares(sh)
	for left := len(comp); left > 0; {
		var s share
		sh, s = popShare(sh)
		e.stepNo++
		touched := e.touched[:0]
		if s.id < 0 {
			r := -1 - s.id
			if e.routes[r].frozen == fn {
				continue
			}
			touched = e.freeze(r, s.v, touched)
			left--
		} else {
			l := s.id
			if s.ver != e.lver[l] || e.unfroze[l] == 0 {
				continue // stale: the link's share has moved up since
			}
			e.tight[l] = true
			for _, r := range e.active[l] {
				if e.routes[r].frozen != fn {
					touched = e.freeze(r, s.v, touched)
					left--
				}
			}
		}
		for _, l := range touched {
			if n := e.unfroze[l]; n > 0 {
				// Shares only rise as routes freeze; the max guards
				// against rounding taking one below the current level.
				sh = pushShare(sh, share{v: max(e.rem[l]/float64(n), s.v), id: l, ver: e.lver[l]})
			}
		}
		e.touched = touched
	}
	e.shares = sh[:0]
}

// fillScan is fill finding each next level by a scan of the problem links
// and the capped routes. Ties go the same way as in fill's heap: caps
// before links, lower ids first.
func (e *engine) fillScan(links, comp []int32) {
	fn := e.fillNo
	for _, l := range links {
		e.rem[l], e.unfroze[l], e.tight[l] = e.linkCap[l], e.linkJobs[l], false
	}
	level := 0.0
	for left := len(comp); left > 0; {
		best := share{v: math.Inf(1)}
		for _, r := range comp {
			if rt := &e.routes[r]; rt.capBinds && rt.frozen != fn {
				if s := (share{v: max(rt.capRate, level), id: -1 - r}); s.below(best) {
					best = s
				}
			}
		}
		for _, l := range links {
			if n := e.unfroze[l]; n > 0 {
				// Levels only rise as routes freeze; the max guards
				// against rounding taking one below the current level.
				if s := (share{v: max(e.rem[l]/float64(n), level), id: l}); s.below(best) {
					best = s
				}
			}
		}
		level = best.v
		if best.id < 0 {
			e.freezeScan(-1-best.id, level)
			left--
			continue
		}
		e.tight[best.id] = true
		for _, r := range e.active[best.id] {
			if e.routes[r].frozen != fn {
				e.freezeScan(r, level)
				left--
			}
		}
	}
}

// freezeScan is freeze for fillScan, which needs no share versions and no
// list of touched links.
func (e *engine) freezeScan(r int32, v float64) {
	rt := &e.routes[r]
	rt.frozen, rt.newRate = e.fillNo, v
	use := v * float64(rt.count)
	for _, l := range rt.links {
		if e.lstamp[l] == e.epoch {
			e.rem[l] -= use
			e.unfroze[l] -= rt.count
		}
	}
}

// overloads commits the new rates of comp's routes to their links' usage
// and checks the links that are not problem links (filling saw them not)
// for overload. If one overloads it becomes a problem link (appended to
// links), the commit is undone, and overloads reports true.
func (e *engine) overloads(links *[]int32, comp []int32) bool {
	ep := e.epoch
	e.stepNo++
	checks := e.touched[:0]
	for _, r := range comp {
		rt := &e.routes[r]
		use := rt.newRate * float64(rt.count)
		d := use - rt.contrib
		rt.oldContrib, rt.contrib = rt.contrib, use
		if d == 0 {
			continue // its links' usage is unchanged by it
		}
		for _, l := range rt.links {
			e.usage[l] += d
			if e.lstamp[l] != ep && e.tstamp[l] != e.stepNo {
				e.tstamp[l] = e.stepNo
				checks = append(checks, l)
			}
		}
	}
	over := false
	for _, l := range checks {
		// The tolerance absorbs rounding in the running usage sums.
		if e.usage[l] > e.linkCap[l]*(1+1e-9) {
			e.lstamp[l] = ep
			*links = append(*links, l)
			over = true
		}
	}
	e.touched = checks
	if over {
		for _, r := range comp {
			rt := &e.routes[r]
			d := rt.contrib - rt.oldContrib
			for _, l := range rt.links {
				e.usage[l] -= d
			}
			rt.contrib = rt.oldContrib
		}
	}
	return over
}

// freeze fixes route r's per-job rate at v and takes its usage off its
// links, appending links first touched in this step to touched.
func (e *engine) freeze(r int32, v float64, touched []int32) []int32 {
	rt := &e.routes[r]
	rt.frozen, rt.newRate = e.fillNo, v
	use := v * float64(rt.count)
	for _, l := range rt.links {
		if e.lstamp[l] != e.epoch {
			continue // not a problem link: checked afterwards
		}
		e.rem[l] -= use
		e.unfroze[l] -= rt.count
		e.lver[l]++
		if e.tstamp[l] != e.stepNo {
			e.tstamp[l] = e.stepNo
			touched = append(touched, l)
		}
	}
	return touched
}
