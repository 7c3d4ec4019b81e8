package m3study_test

import (
	"context"
	"fmt"
	"os"

	"github.com/tailscope/tailscope/lib/m3study"
)

// A data set's manifest grows with its task count and refuses tasks of
// another seed, which would differ from their index's.
func ExampleWriteManifest() {
	dir, err := os.MkdirTemp("", "m3data")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	fmt.Println(m3study.WriteManifest(dir, m3study.Manifest{Tasks: 100, Flows: 4000, Seed: 1}))
	fmt.Println(m3study.WriteManifest(dir, m3study.Manifest{Tasks: 200, Flows: 4000, Seed: 1}))
	m, _ := m3study.ReadManifest(dir)
	fmt.Println(m.Tasks, "tasks")
	fmt.Println(m3study.WriteManifest(dir, m3study.Manifest{Tasks: 200, Flows: 4000, Seed: 2}) != nil)
	// Output:
	// <nil>
	// <nil>
	// 200 tasks
	// true
}

// The Table-4 test set at a toy size: packetsim against the embedded m3
// model, which answers only the papers' rate-based DCTCP over infinite
// buffers and refuses the rest by name, and flowSim alone, which answers
// every network.
func ExampleRunTestSet() {
	dir, err := os.MkdirTemp("", "m3testset")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	res, err := m3study.RunTestSet(context.Background(), m3study.TestSetOptions{Scenarios: 4, Flows: 200, Others: []string{"flowsim"}, Dir: dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range res.Stats() {
		if s.CC == "all" {
			fmt.Printf("%s: %d answered, %d refused\n", s.Estimator, s.Answered, s.Refused)
		}
	}
	for _, r := range res.Refusals[:1] {
		fmt.Printf("scenario %d (%s): %.60s\n", r.Scenario, r.CC, r.Reason)
	}
	// Output:
	// m3: 1 answered, 3 refused
	// flowsim: 4 answered, 0 refused
	// scenario 0 (dcqcn): estimator m3: m3: the model was not trained on congestion co
}
