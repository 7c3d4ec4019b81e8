package atlas_test

import (
	"fmt"

	"github.com/tailscope/tailscope/lib/atlas"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
)

// A scenario's region, and what a summary says of an estimator there.
func ExampleSummary_Expect() {
	spec := scenario.Default() // meta32-2:1, 20k flows
	spec.Network, _ = netcfg.Preset("ns3")
	r := atlas.RegionOf(spec)
	coarse := r.Pooled()[2]
	s := &atlas.Summary{Threshold: 0.25, MinScenarios: 5, Coverage: 0.8,
		Widen: map[string]map[string]float64{"parsimon": {"all": 1.5}}, Intervals: []atlas.Interval{
			{Estimator: "parsimon", Region: coarse, Bin: "all", N: 12, P10: 0.05, P50: 0.2, P90: 0.6, Max: 1.1, AbsP90: 0.6},
		}}
	e := s.Expect("parsimon", spec)
	fmt.Println(r)
	fmt.Println(e.Refuse)
	for _, l := range e.Lines() {
		fmt.Println(l)
	}
	// Output:
	// ns3, 32 racks, load 40-60%, 2:1, 5k-50k flows
	// true
	// parsimon: expected p99 error (80% interval, accuracy atlas, region ns3, 32 racks, 5k-50k flows):
	//   fewer than 5 atlas scenarios in ns3, 32 racks, load 40-60%, 2:1, 5k-50k flows (0) and in ns3, 32 racks, load 40-60%, 5k-50k flows (0): stated for the coarser region ns3, 32 racks, 5k-50k flows
	//   all            -3% ..    +80%  median    +20%  worst   +110%  (12 scenarios)
}
