package dscale_test

import (
	"fmt"

	"github.com/tailscope/tailscope/lib/dscale"
)

// DSCALEs on the paper's simple topology (Fig. 1): grp1 crosses an
// uncongested 100 ms link and the congested 5 ms link (RTT 210 ms), grp2
// only the congested one (RTT 10 ms), with equal traffic. With alpha 0.5
// grp1 is sampled at 0.5 and grp2 at 10/210 of that; the replica link gets
// a 210 ms delay (RTT 420 ms), so both RTTs shrink by their factors, and the mean of
// the factors weighted by traffic as its capacity factor, so its traffic
// intensity stays.
func ExampleSolve() {
	s, err := dscale.Solve([]dscale.Demand{
		{RTTNs: 210e6, Kept: []int{2}, Bits: 1},
		{RTTNs: 10e6, Kept: []int{2}, Bits: 1},
	}, 0.5)
	if err != nil {
		panic(err)
	}
	fmt.Printf("alpha %.4f and %.4f, link delay %.0f ms, capacity factor %.4f\n", s.Alpha[0], s.Alpha[1], s.DelayNs/1e6, s.Factor[2])
	// Output:
	// alpha 0.5000 and 0.0238, link delay 210 ms, capacity factor 0.2619
}
