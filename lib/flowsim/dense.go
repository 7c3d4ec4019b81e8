package flowsim

import (
	"math"
	"math/bits"
)

// denseRoutes is the largest number of routes, and of distinct links on
// them, for which the engine uses the dense allocator: route and link sets
// then fit in one machine word. A variable so that the tests can force the
// general path.
var denseRoutes = 64

// dense is the allocator for networks with few routes, such as a 6-hop
// parking lot with one background host per switch (21 routes over 18
// links): at every instant it recomputes
// all rates by progressive filling over small arrays indexed by route and
// by compact link number, and the next completion is found by a scan of
// the active routes. With so few routes this costs less than the general
// path's bookkeeping (neighbourhoods, event heap, per-link route lists).
// Job counts are kept as float64, exact for integers, so that a fill
// needs no conversions.
type dense struct {
	act     uint64    // routes with jobs
	capped  uint64    // routes whose own cap can bind
	on      []uint64  // per link, the routes crossing it
	mask    []uint64  // per route, the links it crosses
	off     []int32   // route r's links are links[off[r]:off[r+1]]
	links   []uint8   // compact link numbers
	linkCap []float64 // per link, bits/ns
	jobs    []float64 // per link, its active jobs
	rem     []float64 // per link, capacity left during a fill
	left    []float64 // per link, jobs not yet frozen during a fill
	caps    []float64 // per route, its per-job cap, bits/ns
	count   []float64 // per route, its active jobs
	rate    []float64 // per route, the new per-job rate
	due     []float64 // per route, route.due, packed for the scan
}

// newDense returns the dense allocator for e's routes, or nil when they
// are too many or cross too many links.
func newDense(e *engine) *dense {
	if len(e.routes) > denseRoutes {
		return nil
	}
	compact := make(map[int32]uint8)
	d := &dense{off: make([]int32, 1, len(e.routes)+1)}
	for r := range e.routes {
		rt := &e.routes[r]
		var m uint64
		for _, l := range rt.links {
			c, ok := compact[l]
			if !ok {
				if len(d.linkCap) == denseRoutes {
					return nil
				}
				c = uint8(len(d.linkCap))
				compact[l] = c
				d.linkCap = append(d.linkCap, e.linkCap[l])
				d.on = append(d.on, 0)
			}
			d.on[c] |= 1 << r
			m |= 1 << c
			d.links = append(d.links, c)
		}
		d.off = append(d.off, int32(len(d.links)))
		d.mask = append(d.mask, m)
		if rt.capBinds {
			d.capped |= 1 << r
		}
		d.caps = append(d.caps, rt.capRate)
	}
	d.jobs = make([]float64, len(d.linkCap))
	d.rem = make([]float64, len(d.linkCap))
	d.left = make([]float64, len(d.linkCap))
	d.count = make([]float64, len(e.routes))
	d.rate = make([]float64, len(e.routes))
	d.due = make([]float64, len(e.routes))
	return d
}

// fill sets d.rate for every active route to its max-min fair rate by
// progressive filling: the lowest of the links' fair shares and the
// routes' caps freezes its routes at that level, their jobs leave their
// links, and the next lowest follows.
func (d *dense) fill() {
	copy(d.rem, d.linkCap)
	copy(d.left, d.jobs)
	level := 0.0
	for unfrozen := d.act; unfrozen != 0; {
		var live uint64 // links with unfrozen jobs
		for m := unfrozen; m != 0; m &= m - 1 {
			live |= d.mask[bits.TrailingZeros64(m)]
		}
		// The lowest share rem/left, compared by cross-multiplying so
		// that the scan needs no division.
		bl, brem, bleft := -1, math.Inf(1), 1.0
		for m := live; m != 0; m &= m - 1 {
			l := bits.TrailingZeros64(m)
			if d.rem[l]*bleft < brem*d.left[l] {
				bl, brem, bleft = l, d.rem[l], d.left[l]
			}
		}
		best := brem / bleft
		freeze := unfrozen & d.on[bl]
		for m := unfrozen & d.capped; m != 0; m &= m - 1 {
			r := bits.TrailingZeros64(m)
			if d.caps[r] <= best {
				best, freeze = d.caps[r], 1<<r
			}
		}
		// Levels only rise as routes freeze; the max guards against
		// rounding taking one below the current level.
		level = max(level, best)
		unfrozen &^= freeze
		for m := freeze; m != 0; m &= m - 1 {
			r := bits.TrailingZeros64(m)
			d.rate[r] = level
			use, n := level*d.count[r], d.count[r]
			for _, l := range d.links[d.off[r]:d.off[r+1]] {
				d.rem[l] -= use
				d.left[l] -= n
			}
		}
	}
}

// add records that route r gained (n = 1) or lost (n = -1) a job.
func (d *dense) add(r int32, n float64) {
	d.count[r] += n
	for _, l := range d.links[d.off[r]:d.off[r+1]] {
		d.jobs[l] += n
	}
}
