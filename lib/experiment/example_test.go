package experiment_test

import (
	"context"
	"fmt"
	"os"
	"reflect"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/scenario"
)

// Sample two scenarios from Parsimon's space (small: 200 flows each), run
// packetsim on them, then run the same sweep again: everything is done
// already, so nothing runs.
func Example() {
	space := experiment.DefaultSpace()
	space.Flows = []int{200}
	specs, err := experiment.Sample(space, 2, 1)
	if err != nil {
		panic(err)
	}
	for _, s := range specs {
		c := s.Workload.Components[0]
		fmt.Printf("%s: %s, matrix %s, %s, sigma %g, max load %.2f\n", s.Name, s.Topology.Preset, c.Matrix, c.Sizes.Dist, c.Arrival.Sigma, c.MaxLoad)
	}
	tasks, err := experiment.Tasks(specs, []string{"packetsim"}, nil)
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "sweep")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	for run := 1; run <= 2; run++ {
		rep, err := experiment.Sweep(context.Background(), dir, tasks, experiment.Local{}, nil)
		if err != nil {
			panic(err)
		}
		fmt.Printf("run %d: %d tasks, %d skipped, %d ran\n", run, rep.Total, rep.Skipped, rep.Ran)
	}
	// Output:
	// sample-0: meta32-2:1, matrix C, webserver, sigma 1, max load 0.70
	// sample-1: meta32-2:1, matrix C, webserver, sigma 2, max load 0.36
	// run 1: 2 tasks, 0 skipped, 2 ran
	// run 2: 2 tasks, 2 skipped, 0 ran
}

// Parsimon's link simulations as tasks on the local pool: each task reads
// an input file holding its simulations' flows, and the estimates are
// those of the run in process.
func ExampleParsimonLinks() {
	sc, err := scenario.Build(scenario.PFSDumbbell(4, 1500, 0.6, 5))
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "links")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	links := experiment.ParsimonLinks(dir, experiment.Local{Workers: 2}, nil)
	got, err := estimator.RunParsimon(context.Background(), "parsimon", sc, "", links)
	if err != nil {
		panic(err)
	}
	want, err := estimator.RunParsimon(context.Background(), "parsimon", sc, "", nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s link simulations, %d records, the same as in process: %v\n", got.Extra["link_sims"], len(got.Records), reflect.DeepEqual(got.Records, want.Records))
	// Output:
	// 9 link simulations, 1500 records, the same as in process: true
}
