package dscalestudy_test

import (
	"context"
	"fmt"

	"github.com/tailscope/tailscope/lib/dscalestudy"
	"github.com/tailscope/tailscope/lib/scenario"
)

// The CENIC-like backbone against its DSCALEd replica and a DSCALEs
// replica that keeps half of each group's flows.
func ExampleRun() {
	spec, floor, err := dscalestudy.Preset("cenic", 3000, 0, 0, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	sc, err := scenario.Build(spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	st, err := dscalestudy.Run(context.Background(), sc, dscalestudy.Options{Alphas: []float64{0.5}, MinQueueNs: floor})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range st.Eval.Systems {
		fmt.Printf("%s: %d flows\n", s.Name, s.Flows)
	}
	// Output:
	// original: 3000 flows
	// DSCALEd: 1118 flows
	// DSCALEs a=0.5: 211 flows
}
