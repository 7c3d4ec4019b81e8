package scenario_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/scenario"
)

// Every preset builds into a network and flows, under its own name, and
// keeps its ID through a JSON round trip (results are keyed by it).
func TestPresetsBuild(t *testing.T) {
	for _, name := range scenario.PresetNames() {
		t.Run(name, func(t *testing.T) {
			s, err := scenario.Named(name)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != name {
				t.Errorf("preset %q builds a spec named %q", name, s.Name)
			}
			if s.Workload.Flows > 0 {
				s.Workload.Flows = 500
			} else {
				s.Workload.DurationNs = 200_000 // hot fabric: a short window
			}
			sc, err := scenario.Build(s)
			if err != nil {
				t.Fatal(err)
			}
			if len(sc.Flows) == 0 {
				t.Fatal("no flows")
			}
			back, err := scenario.Parse(strings.NewReader(s.JSON()))
			if err != nil {
				t.Fatal(err)
			}
			if back.ID() != s.ID() {
				t.Error("the JSON round trip changed the spec's ID")
			}
		})
	}
}

// The fork's §5.4 setting keeps the paper-rules preset's flows, so the
// two answer the same counterfactual question, and changes HPCC alone.
func TestWhatIfHPCCFork(t *testing.T) {
	paper, fork := scenario.WhatIfHPCC(2000, 3), scenario.WhatIfHPCCFork(2000, 3)
	if paper.WorkloadID() != fork.WorkloadID() {
		t.Error("the fork's preset draws other flows")
	}
	a, err := scenario.Build(paper)
	if err != nil {
		t.Fatal(err)
	}
	b, err := scenario.Build(fork)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Flows, b.Flows) {
		t.Error("the fork's preset built other flows")
	}
	n := b.Spec.Network
	if n.CC != "hpcc" || !n.HPCC.QueueOverWindow || n.HPCC.BaseRTTNanos <= 0 || n.HeaderBytes != a.Spec.Network.HeaderBytes+42 {
		t.Errorf("fork network %+v: want HPCC with the queue over the window, T resolved on the network and 42 B of INT", n)
	}
	if a.Spec.Network.HPCC.QueueOverWindow {
		t.Error("the paper-rules preset has the fork's rules")
	}
}

func TestNamedUnknown(t *testing.T) {
	_, err := scenario.Named("dumbell")
	if err == nil || !strings.Contains(err.Error(), "pfs-dumbbell") {
		t.Fatalf("want an error listing the presets, got %v", err)
	}
	if _, err := scenario.Validation("torus", 10, 0.5, 1); err == nil {
		t.Fatal("unknown validation topology accepted")
	}
}

// A named preset, resized and built.
func ExampleNamed() {
	spec, err := scenario.Named("pfs-dumbbell")
	if err != nil {
		panic(err)
	}
	spec.Workload.Flows = 1000
	sc, err := scenario.Build(spec)
	if err != nil {
		panic(err)
	}
	fmt.Println(sc.Net.Summary(), len(sc.Flows), "flows")
	// Output: dumbbell-8x8: 18 nodes (16 hosts, 2 switches), 17 links 1000 flows
}
