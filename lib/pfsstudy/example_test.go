package pfsstudy_test

import (
	"fmt"

	"github.com/tailscope/tailscope/lib/pfsstudy"
)

// The paper's three sweeps, as "tailscope pfs curves" runs them.
func ExampleCurves() {
	for _, c := range pfsstudy.Curves([]int{2, 4, 8}, []int{1, 2, 4, 8}, []int{2, 4}) {
		fmt.Printf("%s (x: %s chunks):", c.Name, c.X)
		for _, o := range c.Configs {
			fmt.Printf(" T=%d S=%d", o.Temporal, o.Spatial)
		}
		fmt.Println()
	}
	// Output:
	// temporal (x: temporal chunks): T=2 S=0 T=4 S=0 T=8 S=0
	// spatial (x: spatial chunks): T=0 S=1 T=0 S=2 T=0 S=4 T=0 S=8
	// spatio-temporal (x: temporal chunks): T=2 S=8 T=4 S=8
}
