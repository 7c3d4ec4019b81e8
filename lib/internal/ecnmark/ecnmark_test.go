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
				// Push everything that arrived before this packet's start
				// (and at it), then read it.
				for pushed < len(pkts) && pkts[pushed].arrive <= p.start {
					pp := pkts[pushed]
					q.Push(pp.arrive, pp.start, pp.wire)
					pushed++
				}
				var want int64
				for j := i + 1; j < len(pkts) && pkts[j].arrive < p.start; j++ {
					want += pkts[j].wire
				}
				if got := q.Pop(); got != want {
					t.Fatalf("packet %d (arrive %d, start %d): %d bytes behind, pairwise count %d", i, p.arrive, p.start, got, want)
				}
			}
			if q.Len() != 0 {
				t.Errorf("Len %d after reading every packet, want 0", q.Len())
			}
		})
	}
}
