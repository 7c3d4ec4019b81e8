package packetsim

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// The calendar queue must deliver exactly the order of a plain sort by
// (time, scheduling order), whatever the spread of times: same-bucket,
// in-wheel and far events, equal times, and pushes into the bucket being
// delivered. Each event carries its scheduling order in its send-time
// word, which the queue never reads.
func TestEventQueueOrder(t *testing.T) {
	for _, spread := range []int64{1, 1 << 10, 1 << 20, 1 << 30, 1 << 40} {
		r := rand.New(rand.NewPCG(uint64(spread), 1))
		q := newEventQueue()
		type key struct {
			t   int64
			seq uint64
		}
		var pending []key
		var got, want []key
		var now int64
		var seq uint64
		for step := 0; step < 8000; step++ {
			if len(pending) == 0 || r.IntN(3) > 0 {
				e := event{t: now + r.Int64N(spread), w: int64(seq)}
				if r.IntN(10) == 0 {
					e.t = now // ties with the present
				}
				q.push(e)
				pending = append(pending, key{e.t, seq})
				seq++
				continue
			}
			if r.IntN(4) == 0 {
				// Peek, then schedule before the peeked event, as a flow
				// start does.
				if nx := q.next(); nx > now {
					e := event{t: now + r.Int64N(nx-now), w: int64(seq)}
					q.push(e)
					pending = append(pending, key{e.t, seq})
					seq++
				}
			}
			sort.Slice(pending, func(i, j int) bool {
				return pending[i].t < pending[j].t || (pending[i].t == pending[j].t && pending[i].seq < pending[j].seq)
			})
			want = append(want, pending[0])
			pending = pending[1:]
			if q.next() != want[len(want)-1].t {
				t.Fatalf("spread %d: next %d, want %d", spread, q.next(), want[len(want)-1].t)
			}
			e := q.pop()
			got = append(got, key{e.t, uint64(e.ts())})
			now = e.t
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("spread %d: event %d is %+v, want %+v", spread, i, got[i], want[i])
			}
		}
		for !q.empty() {
			q.next()
			q.pop()
			pending = pending[1:]
		}
		if len(pending) != 0 {
			t.Fatalf("spread %d: queue ran dry with %d events pending", spread, len(pending))
		}
	}
}
