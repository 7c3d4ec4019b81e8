package dscale

import (
	"fmt"
	"sort"
)

// Demand is a flow group as the DSCALEs equations see it.
type Demand struct {
	// RTTNs is the group's round-trip propagation delay in the original
	// network, twice the delays along its path.
	RTTNs float64
	// Kept lists the congested links it crosses (any link keys), each
	// once.
	Kept []int
	// Bits is its offered traffic over the run (arrival rate times mean
	// size, up to a factor common to all groups).
	Bits float64
}

// Scaling solves DSCALEs's equations (§IV-B, IV-C) for a set of groups
// with the replica's links all given one propagation delay, as the paper
// does:
//
//	alpha_g * RTT'_g = RTT_g, with RTT'_g = 2 * DelayNs * |Kept_g|   (1), (2), (4), (5)
//	sum_g bits_g / C_l = sum_g alpha_g bits_g / C'_l, over g crossing l   (3), (6), (7)
//	max_g alpha_g = alpha                                             (8)
//
// so every group keeps its RTT up to its own factor (it is sampled with
// probability alpha_g and its time runs 1/alpha_g slower), and every kept
// link keeps its traffic intensity.
type Scaling struct {
	Alpha   []float64       // sampling factor per demand
	DelayNs float64         // propagation delay of every replica link
	Factor  map[int]float64 // per kept link: C'/C
}

// Solve finds the DSCALEs scaling for demands with the largest sampling
// factor alpha in (0, 1].
func Solve(demands []Demand, alpha float64) (Scaling, error) {
	if !(alpha > 0 && alpha <= 1) {
		return Scaling{}, fmt.Errorf("dscale: alpha must be in (0, 1], got %g", alpha)
	}
	if len(demands) == 0 {
		return Scaling{}, fmt.Errorf("dscale: no flow group crosses a congested link")
	}
	var worst float64 // max RTT_g / (2 k_g)
	for i, d := range demands {
		if !(d.RTTNs > 0) || len(d.Kept) == 0 || d.Bits < 0 {
			return Scaling{}, fmt.Errorf("dscale: group %d has RTT %g ns, %d congested links and %g bits; DSCALEs needs a positive RTT and at least one link", i, d.RTTNs, len(d.Kept), d.Bits)
		}
		worst = max(worst, d.RTTNs/(2*float64(len(d.Kept))))
	}
	s := Scaling{Alpha: make([]float64, len(demands)), DelayNs: worst / alpha, Factor: map[int]float64{}}
	num, den := map[int]float64{}, map[int]float64{}
	for i, d := range demands {
		s.Alpha[i] = d.RTTNs / (2 * s.DelayNs * float64(len(d.Kept)))
		for _, l := range d.Kept {
			num[l] += s.Alpha[i] * d.Bits
			den[l] += d.Bits
		}
	}
	links := make([]int, 0, len(den))
	for l := range den {
		links = append(links, l)
	}
	sort.Ints(links)
	for _, l := range links {
		if den[l] == 0 {
			return Scaling{}, fmt.Errorf("dscale: congested link %d carries no traffic", l)
		}
		s.Factor[l] = num[l] / den[l]
	}
	return s, nil
}
