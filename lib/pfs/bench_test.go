package pfs

import (
	"context"
	"fmt"
	"testing"

	"github.com/tailscope/tailscope/lib/scenario"
)

// benchScenarios are the two pfs scenarios at 100k flows.
func benchScenarios(b *testing.B) map[string]*scenario.Scenario {
	return map[string]*scenario.Scenario{
		"dumbbell": build(b, scenario.PFSDumbbell(8, 100_000, 0.6, 1)),
		"fabric":   build(b, scenario.PFSFabric(100_000, 0.5, 1)),
	}
}

// BenchmarkSerial is the baseline pfs is measured against: flowsim.Run of
// the whole scenario with the destinations metered.
func BenchmarkSerial(b *testing.B) {
	for name, sc := range benchScenarios(b) {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				serial(b, sc)
			}
		})
	}
}

// BenchmarkPlan is pfs's pre-processing alone.
func BenchmarkPlan(b *testing.B) {
	for name, sc := range benchScenarios(b) {
		for _, o := range []Options{{Temporal: 16}, {Spatial: 8}, {Temporal: 8, Spatial: 8}} {
			b.Run(fmt.Sprintf("%s/T%d-S%d", name, max(o.Temporal, 1), max(o.Spatial, 1)), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := NewPlan(sc.Net, sc.Flows, sc.Spec.Network, o); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkRun is a whole decomposed run on two workers.
func BenchmarkRun(b *testing.B) {
	for name, sc := range benchScenarios(b) {
		for _, o := range []Options{{Temporal: 16}, {Spatial: 8}, {Temporal: 8, Spatial: 8}} {
			o.Workers = 2
			b.Run(fmt.Sprintf("%s/T%d-S%d", name, max(o.Temporal, 1), max(o.Spatial, 1)), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := Run(context.Background(), sc.Net, sc.Flows, sc.Spec.Network, o); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
