package ecnmark

import (
	"math/rand/v2"
	"testing"
)

// A FIFO port fed random packets: what Pop reports must equal, for each
// packet, the bytes of the later packets that arrived strictly before it
// started (counted pair by pair), whether the reads trail the pushes
// closely or a long backlog builds up (which exercises compaction).
func TestPopMatchesPairwiseCount(t *testing.T) {
	for _, c := range []struct {
		name string
		gap  int64 // mean interarrival, ps; service is 800 ps per 100 bytes
		n    int
	}{
		{"light", 4000, 5000},
		{"busy", 900, 5000},
		{"overloaded", 500, 20000},
		{"bursts", 0, 5000},
	} {
		t.Run(c.name, func(t *testing.T) {
			const delay = 1000 // ps
			r := rand.New(rand.NewPCG(uint64(c.gap), 3))
			type pkt struct{ arrive, start, wire int64 }
			pkts := make([]pkt, c.n)
			var now, busy int64
			for i := range pkts {
				if c.gap > 0 {
					now += r.Int64N(2 * c.gap)
				} else if r.IntN(20) == 0 {
					now += 100_000 // idle, then a burst at one instant
				}
				wire := 60 + r.Int64N(990)
				start := max(now, busy)
				busy = start + wire*8
				pkts[i] = pkt{now, start, wire}
			}
			var q Queue
			pushed := 0
			for i, p := range pkts {
				// Push every packet that arrived before this packet's
				// start (and at it) and found the port busy, then read
				// this one as it reaches the far end.
				for pushed < len(pkts) && pkts[pushed].arrive <= p.start {
					if pp := pkts[pushed]; pp.start > pp.arrive {
						q.Push(pp.arrive, pp.start, pp.start+pp.wire*8+delay, pp.wire)
					}
					pushed++
				}
				var want int64
				for j := i + 1; j < len(pkts) && pkts[j].arrive < p.start; j++ {
					want += pkts[j].wire
				}
				if got := q.Pop(p.start + p.wire*8 + delay); got != want {
					t.Fatalf("packet %d (arrive %d, start %d): %d bytes behind, pairwise count %d", i, p.arrive, p.start, got, want)
				}
			}
			if q.Len() != 0 {
				t.Errorf("Len %d after reading every packet, want 0", q.Len())
			}
		})
	}
}

// A port in a long busy spell, whose waiting packets are always joined
// by others before the last one reaches the far end, so that the queue
// never empties: its memory must follow the packets it remembers (at
// most 4 entries per packet held, plus 64), not the packets it has
// seen, since a fabric keeps one queue per port for the whole run.
// Pushes and reads come in time order, as in the simulation, and the
// reads are still checked against the pairwise count.
func TestMemoryFollowsBacklog(t *testing.T) {
	for _, c := range []struct {
		name  string
		gap   int64 // mean interarrival, ps; service is 8 ps per byte
		delay int64 // ps from the end of a transmission to the far end
	}{
		{"short wire", 5000, 1000},
		{"long wire", 5000, 200_000},
		{"near capacity", 4600, 50_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			const n = 50_000
			r := rand.New(rand.NewPCG(uint64(c.gap), uint64(c.delay)))
			type pkt struct{ arrive, start, at, wire int64 }
			pkts := make([]pkt, n)
			var now, busy int64
			for i := range pkts {
				now += r.Int64N(2 * c.gap)
				wire := 60 + r.Int64N(990)
				start := max(now, busy)
				busy = start + wire*8
				pkts[i] = pkt{now, start, busy + c.delay, wire}
			}
			var q Queue
			pushed, held, resets := 0, 0, 0
			for i, p := range pkts {
				if p.start == p.arrive {
					continue // found the port idle: never pushed or read
				}
				for pushed < n && pkts[pushed].arrive <= p.at {
					if pp := pkts[pushed]; pp.start > pp.arrive {
						if q.Len() == 0 {
							resets++
						}
						held = max(held, q.Len())
						q.Push(pp.arrive, pp.start, pp.at, pp.wire)
					}
					pushed++
				}
				var want int64
				for j := i + 1; j < n && pkts[j].arrive < p.start; j++ {
					want += pkts[j].wire
				}
				if got := q.Pop(p.at); got != want {
					t.Fatalf("packet %d: %d bytes behind, pairwise count %d", i, got, want)
				}
				if limit := 4*(held+1) + 64; cap(q.buf) > limit {
					t.Fatalf("after %d packets: room for %d entries, holding at most %d packets (limit %d)", i+1, cap(q.buf), held+1, limit)
				}
			}
			t.Logf("%d packets, at most %d held, %d times empty, room for %d", n, held+1, resets, cap(q.buf))
		})
	}
}
