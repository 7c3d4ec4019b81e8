package calendar

import (
	"container/heap"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// reference is the plain definition of the order: a binary heap of
// events by (time, key, scheduling order), each event's order its W.
type reference []Event

func (r reference) Len() int { return len(r) }
func (r reference) Less(i, j int) bool {
	a, b := r[i], r[j]
	return a.T < b.T || a.T == b.T && (a.K < b.K || a.K == b.K && a.W < b.W)
}
func (r reference) Swap(i, j int) { r[i], r[j] = r[j], r[i] }
func (r *reference) Push(x any)   { *r = append(*r, x.(Event)) }
func (r *reference) Pop() any {
	old := *r
	e := old[len(old)-1]
	*r = old[:len(old)-1]
	return e
}

// sim drives a Queue and the reference with the same random schedule,
// as a simulator would (never scheduling before the present), and fails
// at the first event the two deliver differently. Every event carries its
// scheduling order in W, which the queue never reads.
type sim struct {
	shift, wheelBits uint
	spread           int64 // events are scheduled up to spread after now
	ties             int   // one push in ties is at exactly now (0: none)
	bursts           int   // one push in bursts lands on the same future time as the previous one (0: none)
	peekPush         bool  // sometimes schedule before the peeked event, as a flow start does
	keys             int   // events draw their key K from [0, keys) (0: all keys 0)
}

func (c sim) run(t *testing.T, seed uint64, steps int) {
	r := rand.New(rand.NewPCG(seed, uint64(c.spread)))
	q := New(c.shift, c.wheelBits)
	var ref reference
	var now, last int64
	var seq int64
	push := func(at int64) {
		e := Event{T: at, W: seq, A: int32(seq), B: -int32(seq)}
		if c.keys > 0 {
			e.K = uint64(r.IntN(c.keys))
		}
		seq++
		q.Push(e)
		heap.Push(&ref, e)
		last = at
	}
	deliver := func() {
		want := heap.Pop(&ref).(Event)
		if got := take(&q); got != want {
			t.Fatalf("delivered %+v, want %+v (event %d)", got, want, seq)
		}
		now = want.T
	}
	for range steps {
		if ref.Len() == 0 || r.IntN(3) > 0 {
			switch {
			case c.ties > 0 && r.IntN(c.ties) == 0:
				push(now)
			case c.bursts > 0 && r.IntN(c.bursts) == 0 && last >= now:
				push(last)
			default:
				push(now + r.Int64N(c.spread))
			}
			continue
		}
		if c.peekPush && r.IntN(4) == 0 {
			if p := q.Peek(); p != nil && p.T > now {
				push(now + r.Int64N(p.T-now))
			}
		}
		deliver()
	}
	for ref.Len() > 0 {
		deliver()
	}
	if !q.Empty() || q.Peek() != nil {
		t.Fatalf("queue not empty after the reference ran dry")
	}
}

// TestQueueOrder checks the delivered order against the reference across
// bucket widths and wheel sizes of both simulators and spreads from
// within one bucket to far beyond the wheel.
func TestQueueOrder(t *testing.T) {
	cases := []struct {
		name string
		sim
	}{
		{"one bucket", sim{shift: 13, wheelBits: 10, spread: 1 << 12, ties: 10, peekPush: true}},
		{"within wheel", sim{shift: 13, wheelBits: 10, spread: 1 << 20, ties: 10, peekPush: true}},
		{"wheel edge", sim{shift: 13, wheelBits: 10, spread: 1<<23 + 1<<14, ties: 10, bursts: 5, peekPush: true}},
		{"mostly far", sim{shift: 13, wheelBits: 10, spread: 1 << 30, ties: 10, peekPush: true}},
		{"all far", sim{shift: 13, wheelBits: 10, spread: 1 << 40, ties: 10, peekPush: true}},
		{"crowded buckets", sim{shift: 13, wheelBits: 10, spread: 1 << 16, bursts: 3, peekPush: true}},
		{"linksim shape", sim{shift: 20, wheelBits: 7, spread: 1 << 26, ties: 10, bursts: 10}},
		{"linksim far", sim{shift: 20, wheelBits: 7, spread: 1 << 32, ties: 4}},
		{"widest buckets", sim{shift: 32, wheelBits: 6, spread: 1 << 40, ties: 10, bursts: 10, peekPush: true}},
		{"unit buckets", sim{shift: 0, wheelBits: 6, spread: 200, ties: 3, peekPush: true}},
		{"keyed ties", sim{shift: 13, wheelBits: 10, spread: 1 << 20, ties: 3, bursts: 3, peekPush: true, keys: 4}},
		{"keyed crowds", sim{shift: 13, wheelBits: 10, spread: 1 << 14, ties: 2, bursts: 2, peekPush: true, keys: 3}},
		{"keyed far", sim{shift: 13, wheelBits: 10, spread: 1 << 30, ties: 4, bursts: 2, peekPush: true, keys: 5}},
		{"keyed unit buckets", sim{shift: 0, wheelBits: 6, spread: 50, ties: 2, bursts: 2, peekPush: true, keys: 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for seed := range uint64(3) {
				c.run(t, seed, 20000)
			}
		})
	}
}

// TestBucketBoundaries schedules events exactly on and next to bucket
// and wheel boundaries, where an off-by-one would send an event to the
// wrong bucket or miss the far heap.
func TestBucketBoundaries(t *testing.T) {
	const shift, wheelBits = 4, 6
	const width, span = 1 << shift, 1 << (shift + wheelBits)
	q := New(shift, wheelBits)
	var ref reference
	var seq int64
	for _, base := range []int64{0, width, span - width, span, 3 * span} {
		for _, d := range []int64{-1, 0, 1, width - 1, width, span - 1, span, span + 1} {
			if at := base + d; at >= 0 {
				e := Event{T: at, W: seq}
				seq++
				q.Push(e)
				heap.Push(&ref, e)
			}
		}
	}
	for ref.Len() > 0 {
		want := heap.Pop(&ref).(Event)
		if got := take(&q); got != want {
			t.Fatalf("delivered %+v, want %+v", got, want)
		}
	}
}

// take is Peek then Drop; an event at -1 if there is none.
func take(q *Queue) Event {
	p := q.Peek()
	if p == nil {
		return Event{T: -1}
	}
	e := *p
	q.Drop()
	return e
}

// TestEventSize guards the 32 bytes the simulators' memory traffic is
// sized by.
func TestEventSize(t *testing.T) {
	if n := unsafe.Sizeof(Event{}); n != 32 {
		t.Fatalf("Event is %d bytes, want 32", n)
	}
}

func TestNewRejects(t *testing.T) {
	for _, c := range []struct{ shift, wheelBits uint }{{33, 10}, {13, 5}, {13, 25}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New(%d, %d) did not panic", c.shift, c.wheelBits)
				}
			}()
			New(c.shift, c.wheelBits)
		}()
	}
}

// FuzzQueue delivers a fuzzer's schedule, each byte pair a delay (its
// high bit picks a far one), against the reference.
func FuzzQueue(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 0x80, 3, 0, 0, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		q := New(3, 6)
		var ref reference
		var now, seq int64
		for i := 0; i+1 < len(data); i += 2 {
			d := int64(data[i+1])
			if data[i]&0x80 != 0 {
				d <<= 9 // beyond the wheel of 2^9
			}
			if data[i]&1 == 0 { // push
				e := Event{T: now + d, W: seq, K: uint64(data[i]>>1) & 3}
				seq++
				q.Push(e)
				heap.Push(&ref, e)
			} else if ref.Len() > 0 {
				want := heap.Pop(&ref).(Event)
				if got := take(&q); got != want {
					t.Fatalf("delivered %+v, want %+v", got, want)
				}
				now = want.T
			}
		}
		for ref.Len() > 0 {
			want := heap.Pop(&ref).(Event)
			if got := take(&q); got != want {
				t.Fatalf("delivered %+v, want %+v", got, want)
			}
		}
		if !q.Empty() {
			t.Fatal("queue not empty after the reference ran dry")
		}
	})
}
