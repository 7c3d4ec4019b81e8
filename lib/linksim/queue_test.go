package linksim

import (
	"container/heap"
	"math/rand/v2"
	"testing"
)

// TestQueueOrder drives an eventQueue as a simulator would (never
// scheduling before the present) and checks that it delivers in (time,
// scheduling order) against a binary heap, each event's scheduling order
// in its pkt field. The spreads put events in near only, across the
// horizon, and mostly in far; ties and bursts of one time exercise the
// order of equal times, a crowd of far events the refill's limit.
func TestQueueOrder(t *testing.T) {
	for _, c := range []struct {
		name   string
		spread int64 // events are scheduled up to spread after now
		ties   int   // one push in ties is at exactly now
		crowd  int   // pushes of a crowd of events at one far time, when > 0
	}{
		{"near", 50_000_000, 4, 0},
		{"across", 4 * horizonPs, 8, 0},
		{"far", 1 << 40, 16, 0},
		{"ties", 1000, 2, 0},
		{"crowd", 2 * horizonPs, 8, 3 * refillMax},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(c.spread)))
			q := newEventQueue()
			var want reference // pending
			var now int64
			var seq int32
			push := func(at int64) {
				e := event{t: at, w: int64(seq), pkt: seq}
				seq++
				q.push(e)
				heap.Push(&want, e)
			}
			if c.crowd > 0 {
				at := now + c.spread
				for range c.crowd {
					push(at)
					push(at + r.Int64N(horizonPs))
				}
			}
			deliver := func() {
				w := heap.Pop(&want).(event)
				if p := q.peek(); p == nil || *p != w {
					t.Fatalf("after %d pushes delivered %+v, want %+v", seq, p, w)
				}
				q.drop()
				now = w.t
			}
			for range 100_000 {
				if want.Len() == 0 || r.IntN(3) > 0 {
					if r.IntN(c.ties) == 0 {
						push(now)
					} else {
						push(now + r.Int64N(c.spread))
					}
					continue
				}
				deliver()
			}
			for want.Len() > 0 {
				deliver()
			}
			if p := q.peek(); p != nil {
				t.Fatalf("drained queue delivered %+v", *p)
			}
		})
	}
}

// reference is the plain definition of the order: a heap of events by
// (time, scheduling order).
type reference []event

func (r reference) Len() int { return len(r) }
func (r reference) Less(i, j int) bool {
	return r[i].t < r[j].t || (r[i].t == r[j].t && r[i].pkt < r[j].pkt)
}
func (r reference) Swap(i, j int) { r[i], r[j] = r[j], r[i] }
func (r *reference) Push(x any)   { *r = append(*r, x.(event)) }
func (r *reference) Pop() any {
	old := *r
	e := old[len(old)-1]
	*r = old[:len(old)-1]
	return e
}
