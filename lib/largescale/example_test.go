package largescale_test

import (
	"fmt"

	"github.com/tailscope/tailscope/lib/largescale"
)

// The study's 6,144-host cases at the mid scale, a tenth of the papers'
// flow counts; largescale.Run runs them as a resumable sweep.
func ExampleCases() {
	s, err := largescale.ScaleByName("mid")
	if err != nil {
		panic(err)
	}
	cases, err := largescale.Cases(s, largescale.Parts)
	if err != nil {
		panic(err)
	}
	for _, c := range cases {
		fmt.Printf("%s: %d flows, %v\n", c.Name(), c.Spec.Workload.Flows, c.Estimators)
	}
	// Output:
	// parsimon §5.2 @ 50%: 1140000 flows, [packetsim parsimon parsimon-c m3 flowsim]
	// m3 §5.3 @ 30%: 683000 flows, [packetsim parsimon m3]
	// m3 §5.3 @ 50%: 1140000 flows, [packetsim parsimon m3]
	// m3 §5.3 @ 70%: 1590000 flows, [packetsim parsimon m3]
}
