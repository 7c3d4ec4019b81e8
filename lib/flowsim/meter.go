package flowsim

import (
	"fmt"
	"math"
)

// Meter asks a run for the bits chosen links carry over time: between
// events every flow sends at a constant max-min rate, so the bits a link
// carries in each time bin are exact (up to float64 rounding), not
// estimated from completion times. Metering the channels into destination
// hosts gives the bytes each destination receives per bin, pfs's accuracy
// metric.
//
// Set BinNs, Links and optionally a window, pass the Meter to Simulate or
// in Options, and read Bits after the run. A Meter is filled by one run.
type Meter struct {
	// BinNs is the bin width: bin b covers [b*BinNs, (b+1)*BinNs) in
	// absolute simulated time.
	BinNs int64
	// Links are the metered links: indices into Simulate's capacities, or
	// channel ids in Run. Each at most once.
	Links []int
	// From and To bound what is counted to bits carried in [From, To); To
	// 0 means no upper bound. Chunked runs meter disjoint windows whose
	// bins add up.
	From, To int64

	// Bits[i][b] is the number of bits Links[i] carried in bin b (filled
	// by the run; slices are as long as the last bin with traffic needs).
	Bits [][]float64

	index map[int]int // link -> position in Links
}

// prepare checks the meter against nLinks links and resets Bits.
func (m *Meter) prepare(nLinks int) error {
	if m.BinNs <= 0 {
		return fmt.Errorf("flowsim: meter bin width %d ns; it must be positive", m.BinNs)
	}
	if m.From < 0 || (m.To != 0 && m.To <= m.From) {
		return fmt.Errorf("flowsim: meter window [%d, %d) ns is empty or negative", m.From, m.To)
	}
	m.index = make(map[int]int, len(m.Links))
	for i, l := range m.Links {
		if l < 0 || l >= nLinks {
			return fmt.Errorf("flowsim: meter names link %d; there are %d links", l, nLinks)
		}
		if _, dup := m.index[l]; dup {
			return fmt.Errorf("flowsim: meter names link %d twice", l)
		}
		m.index[l] = i
	}
	m.Bits = make([][]float64, len(m.Links))
	return nil
}

// add spreads rate bits/ns over [a, b) into metered link i's bins.
func (m *Meter) add(i int, a, b, rate float64) {
	a = max(a, float64(m.From))
	if m.To != 0 {
		b = min(b, float64(m.To))
	}
	if !(b > a) {
		return
	}
	w := float64(m.BinNs)
	last := int(math.Floor(b / w))
	if float64(last)*w == b {
		last-- // [a, b) ends exactly on a bin edge
	}
	bits := m.Bits[i]
	for len(bits) <= last {
		bits = append(bits, 0)
	}
	for k := int(math.Floor(a / w)); k <= last; k++ {
		lo, hi := max(a, float64(k)*w), min(b, float64(k+1)*w)
		bits[k] += rate * (hi - lo)
	}
	m.Bits[i] = bits
}

// Total is the number of bits all metered links carried.
func (m *Meter) Total() float64 {
	var s float64
	for _, bs := range m.Bits {
		for _, b := range bs {
			s += b
		}
	}
	return s
}
