package packetsim

import "testing"

// A FIFO that never empties keeps its order and holds about twice what
// waits, however many elements pass through it.
func TestPopFrontBounded(t *testing.T) {
	for _, waiting := range []int{1, 10, 100, 1000} {
		var q []int
		head, next, want := 0, 0, 0
		for range waiting {
			q = append(q, next)
			next++
		}
		for range 100_000 {
			q = append(q, next)
			next++
			if got := popFront(&q, &head); got != want {
				t.Fatalf("waiting %d: popped %d, want %d", waiting, got, want)
			}
			want++
		}
		if n := len(q) - head; n != waiting {
			t.Errorf("waiting %d: %d left", waiting, n)
		}
		if c := cap(q); c > 4*(waiting+compactAt) {
			t.Errorf("waiting %d: the slice holds %d after 100,000 passed, want about twice what waits", waiting, c)
		}
	}
}
