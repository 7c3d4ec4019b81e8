package m3study

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
)

// NetworkSpace is the gendata space whose tasks are whole networks, not
// parking lots: scenarios drawn as the Table-4 test set's (TestSetSpecs)
// with the data set's own seed, each run by packetsim. Training draws
// paths of each and learns from their foreground flows' packet-level
// slowdowns, or from the whole network's (m3.NetworkGroup).
// ForkNetworkSpace is the same with the networks of the table4-fork
// test set: DCQCN, TIMELY and HPCC under the HPCC ns-3 fork's rules;
// PresetsNetworkSpace with the networks of the presets space
// (m3.PresetsNetwork), whose ranges hold the network presets, and
// PresetsForkNetworkSpace with those of presets-fork.
const (
	NetworkSpace            = "table4-fabric"
	ForkNetworkSpace        = "table4-fork-fabric"
	PresetsNetworkSpace     = "presets-fabric"
	PresetsForkNetworkSpace = "presets-fork-fabric"
)

// testSetSpaces maps each space of whole networks to the m3 space its
// networks are drawn from (TestSetSpecs).
var testSetSpaces = map[string]string{NetworkSpace: "table4-pfc", ForkNetworkSpace: "table4-fork", PresetsNetworkSpace: "presets", PresetsForkNetworkSpace: "presets-fork"}

// IsNetworkSpace reports whether space is one of whole networks
// (NetworkSpace, ForkNetworkSpace, PresetsNetworkSpace,
// PresetsForkNetworkSpace) rather than of parking lots.
func IsNetworkSpace(space string) bool {
	_, ok := testSetSpaces[space]
	return ok
}

// DefaultNetworkPaths is the number of paths drawn per scenario of a
// network data set when training.
const DefaultNetworkPaths = 100

// gendataNetwork simulates the missing packetsim runs of network data
// set o in dir.
func gendataNetwork(ctx context.Context, dir string, o m3.GenOptions, exec experiment.Executor, p progress.Reporter) (experiment.Report, error) {
	if o.LowShare != nil {
		return experiment.Report{}, fmt.Errorf("m3study: space %s draws whole networks: it has no foreground share to lower", o.Space)
	}
	if o.Seed == 1 {
		// TestSetSpecs(space, n, flows, 1) is the test set itself.
		return experiment.Report{}, fmt.Errorf("m3study: space %s with seed 1 would draw the Table-4 test set's own scenarios; choose another seed", o.Space)
	}
	specs, err := TestSetSpecs(testSetSpaces[o.Space], o.Tasks, o.Flows, o.Seed)
	if err != nil {
		return experiment.Report{}, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return experiment.Report{}, err
	}
	if err := WriteManifest(dir, Manifest{Tasks: o.Tasks, Flows: o.Flows, Seed: o.Seed, Space: o.Space, GitCommit: gitCommit()}); err != nil {
		return experiment.Report{}, err
	}
	tasks := make([]experiment.Task, len(specs))
	for i, s := range specs {
		tasks[i] = experiment.Task{Spec: s, Estimator: TestSetBaseline}
	}
	return experiment.Sweep(ctx, dir, tasks, exec, p)
}

// loadNetwork adds network data set m in dir to ds: paths paths drawn
// from each scenario (with the scenario's seed) and simulated with o's
// flowSim base, split by scenario index, as samples that learn from their
// own flows (m3.DataSet.Add) or, pooled (o.NetworkPooled), as one group
// per scenario that learns the network's slowdowns (m3.DataSet.AddGroup).
func loadNetwork(ctx context.Context, ds *m3.DataSet, dir string, m Manifest, paths int, o LoadOptions) error {
	specs, err := TestSetSpecs(testSetSpaces[m.Space], m.Tasks, m.Flows, m.Seed)
	if err != nil {
		return err
	}
	for k, spec := range specs {
		t := experiment.Task{Spec: spec, Estimator: TestSetBaseline}
		recs, _, err := t.Records(dir)
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("m3study: %s: scenario %d has no packetsim run yet (run its gendata command again): %w", dir, k, err)
		}
		if err != nil {
			return fmt.Errorf("m3study: %s: scenario %d: %w", dir, k, err)
		}
		sc, err := scenario.Build(spec)
		if err != nil {
			return err
		}
		if len(recs) != len(sc.Flows) {
			return fmt.Errorf("m3study: %s: scenario %d: packetsim recorded %d of its %d flows", dir, k, len(recs), len(sc.Flows))
		}
		at := make(map[int]int, len(sc.Flows))
		for i, f := range sc.Flows {
			at[f.ID] = i
		}
		sd := make([]float64, len(sc.Flows))
		for _, r := range recs {
			i, ok := at[r.FlowID]
			if !ok {
				return fmt.Errorf("m3study: %s: scenario %d: packetsim's flow %d is not in the scenario", dir, k, r.FlowID)
			}
			sd[i] = r.Slowdown
		}
		g, err := m3.NetworkGroup(ctx, sc.Net, sc.Flows, sc.Spec.Network, sd, m3.Options{Samples: paths, Seed: spec.Seed, WindowCap: o.WindowCap})
		if err != nil {
			return fmt.Errorf("m3study: %s: scenario %d: %w", dir, k, err)
		}
		ds.Tasks++
		ds.Flows += len(sc.Flows)
		if o.NetworkPooled {
			ds.AddGroup(k, g)
		} else {
			ds.Add(k, g.Samples...)
		}
		progress.Report(o.Progress, k+1, len(specs), fmt.Sprintf("scenario %d: %d paths", k, len(g.Samples)))
	}
	return nil
}
