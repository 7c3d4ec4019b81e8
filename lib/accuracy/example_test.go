package accuracy_test

import (
	"fmt"

	"github.com/tailscope/tailscope/lib/accuracy"
)

// The tiny design: two atlas draws and one calibration draw of 300 flows,
// half of them with a counterfactual partner, and the first atlas pair's
// first scenario under another seed for the seed-noise sample.
func ExampleDesign() {
	scs, pairs, err := accuracy.Design(accuracy.Sizes["tiny"])
	if err != nil {
		panic(err)
	}
	for _, s := range scs {
		c := s.Spec.Workload.Components[0]
		fmt.Printf("%-11s %d %-11s %-10s %-7s %-13s load %.2f %q\n", s.Sample, s.Draw, s.Preset, s.Spec.Topology.Preset, c.Matrix, c.Sizes.Dist, c.MaxLoad, s.Change)
	}
	fmt.Println(len(pairs), "pairs")
	// Output:
	// atlas       0 timely      meta32-4:1 uniform hadoop        load 0.73 ""
	// atlas       1 hpcc        meta32-1:1 uniform hadoop        load 0.41 ""
	// atlas       1 hpcc        meta32-1:1 uniform hadoop        load 0.41 "hpcc.eta=0.7"
	// calibration 0 timely      meta32-4:1 uniform cachefollower load 0.40 ""
	// calibration 0 timely      meta32-4:1 uniform cachefollower load 0.40 "timely.tlow_nanos=25000"
	// noise       1 hpcc        meta32-1:1 uniform hadoop        load 0.41 ""
	// 2 pairs
}

// The wide design's parts: each part's scenarios (pairs count twice,
// their runs under further seeds are the noise sample's), its fabrics,
// flow counts and buffers.
func ExampleDesign_wide() {
	o := accuracy.Sizes["wide"]
	scs, pairs, err := accuracy.Design(o)
	if err != nil {
		panic(err)
	}
	for _, p := range o.Parts {
		n := map[string]int{}
		for _, s := range scs {
			if s.Part == p.Label {
				n[s.Sample]++
			}
		}
		fmt.Printf("%-9s atlas %3d calibration %2d noise %3d  %v %v %v\n", p.Label, n[accuracy.SampleAtlas], n[accuracy.SampleCalibration], n[accuracy.SampleNoise], p.Topologies, p.Flows, p.Buffers)
	}
	fmt.Println(len(pairs), "pairs")
	// Output:
	// 384       atlas  74 calibration 19 noise   0  [meta384-1:1 meta384-2:1] [50000 200000] []
	// 384-1M    atlas   8 calibration  2 noise   0  [meta384-1:1 meta384-2:1] [1000000] []
	// 32-large  atlas  26 calibration  7 noise   0  [] [50000 50000 200000] []
	// buffers   atlas  44 calibration 11 noise  32  [] [10000 20000] [per-port shared shared+pfc]
	// pairs     atlas  24 calibration  8 noise  32  [] [50000] [infinite infinite shared shared+pfc]
	// 48 pairs
}
