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

// PresetsTlowNetworkSpace and PresetsForkTlowNetworkSpace are spaces of
// whole networks for TIMELY's low threshold (Tlow): the windowless TIMELY
// networks among PresetsNetworkSpace's (PresetsForkNetworkSpace's)
// draws, in draw order, each run once at every Tlow of TlowLadder. Such
// networks are one draw in fifteen, and across draws the effect of Tlow
// is confounded with load and workload; on a ladder the flows and every
// other parameter stay the same, so that the data hold the effect alone.
// With the seed of a presets(-fork) data set, the ladder's networks are
// that data set's windowless TIMELY networks (and further draws), and
// each falls in the same part of the split (its draw's index).
const (
	PresetsTlowNetworkSpace     = "presets-tlow-fabric"
	PresetsForkTlowNetworkSpace = "presets-fork-tlow-fabric"
)

// TlowLadder are the Tlow values, in ns, each network of a Tlow space is
// run at: the presets space's range (m3.PresetsNetwork), whose 50 us
// preset value and 25 us counterfactual lie inside it.
var TlowLadder = []int64{20_000, 40_000, 60_000}

// tlowSpaces maps each Tlow space to the m3 space its networks are drawn
// from.
var tlowSpaces = map[string]string{PresetsTlowNetworkSpace: "presets", PresetsForkTlowNetworkSpace: "presets-fork"}

// IsNetworkSpace reports whether space is one of whole networks
// (NetworkSpace, ForkNetworkSpace, PresetsNetworkSpace,
// PresetsForkNetworkSpace and the Tlow spaces) rather than of parking
// lots.
func IsNetworkSpace(space string) bool {
	_, ok := testSetSpaces[space]
	_, tlow := tlowSpaces[space]
	return ok || tlow
}

// networkSpecs lists the scenarios of the network data set (space,
// tasks, flows, seed), each with the index it is split by
// (m3.DataSet.Add).
func networkSpecs(space string, tasks, flows int, seed uint64) ([]scenario.Spec, []int, error) {
	if from, ok := tlowSpaces[space]; ok {
		return tlowSpecs(from, tasks, flows, seed)
	}
	specs, err := TestSetSpecs(testSetSpaces[space], tasks, flows, seed)
	if err != nil {
		return nil, nil, err
	}
	split := make([]int, len(specs))
	for i := range split {
		split[i] = i
	}
	return specs, split, nil
}

// maxTlowDraws bounds the draws tlowSpecs scans: far more than any data
// set needs, as one draw in fifteen is a windowless TIMELY network.
const maxTlowDraws = 1 << 20

// tlowSpecs lists the tasks scenarios of a Tlow space over the test set
// draws of m3 space from: each windowless TIMELY network at every rung
// of TlowLadder, split by its draw's index.
func tlowSpecs(from string, tasks, flows int, seed uint64) ([]scenario.Spec, []int, error) {
	rungs := len(TlowLadder)
	if tasks <= 0 || tasks%rungs != 0 {
		return nil, nil, fmt.Errorf("m3study: a Tlow space runs each network at %d values of Tlow: want a positive multiple of %d scenarios, got %d", rungs, rungs, tasks)
	}
	for n := 16 * tasks; n <= maxTlowDraws; n *= 2 {
		draws, err := TestSetSpecs(from, n, flows, seed)
		if err != nil {
			return nil, nil, err
		}
		var specs []scenario.Spec
		var split []int
		for i, d := range draws {
			if d.Network.CC != "timely" || d.Network.TIMELY.WindowBytes != 0 {
				continue
			}
			for _, tlow := range TlowLadder {
				s := d
				s.Name = fmt.Sprintf("%s-tlow%dus", d.Name, tlow/1000)
				s.Network.TIMELY.TLowNanos = tlow
				specs = append(specs, s)
				split = append(split, i)
			}
			if len(specs) == tasks {
				return specs, split, nil
			}
		}
	}
	return nil, nil, fmt.Errorf("m3study: fewer than %d windowless TIMELY networks in %d draws of space %s", tasks/rungs, maxTlowDraws, from)
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
	specs, _, err := networkSpecs(o.Space, o.Tasks, o.Flows, o.Seed)
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
// flowSim base, split by the index networkSpecs gives, as samples that learn from their
// own flows (m3.DataSet.Add) or, pooled (o.NetworkPooled), as one group
// per scenario that learns the network's slowdowns (m3.DataSet.AddGroup).
func loadNetwork(ctx context.Context, ds *m3.DataSet, dir string, m Manifest, paths int, o LoadOptions) error {
	specs, split, err := networkSpecs(m.Space, m.Tasks, m.Flows, m.Seed)
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
		g.Data = m.Space
		ds.Tasks++
		ds.Flows += len(sc.Flows)
		if o.NetworkPooled {
			ds.AddGroup(split[k], g)
		} else {
			ds.Add(split[k], g.Samples...)
		}
		progress.Report(o.Progress, k+1, len(specs), fmt.Sprintf("scenario %d: %d paths", k, len(g.Samples)))
	}
	return nil
}
