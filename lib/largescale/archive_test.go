package largescale

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/metrics"
)

// An archive stands in for the scenarios it holds: a run with it skips
// them and runs the rest, and the report over the archive and the new
// run equals the report of one run of everything.
func TestArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every estimator")
	}
	parts := []string{PartSensitivity}
	full, arch := t.TempDir(), filepath.Join(t.TempDir(), "archive")
	if err := Run(context.Background(), full, "", tiny, parts, experiment.Local{}, nil); err != nil {
		t.Fatal(err)
	}
	want, err := LoadResults(full, "", tiny, parts)
	if err != nil {
		t.Fatal(err)
	}
	specs, err := SensitivitySpecs(tiny)
	if err != nil {
		t.Fatal(err)
	}
	// The second seed's scenario lacks a result: only the first is archived.
	m3, err := experiment.Task{Spec: specs[1], Estimator: "m3"}.ResultPath(filepath.Join(full, SensitivityDir))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(m3); err != nil {
		t.Fatal(err)
	}
	if n, err := Archive(full, arch, tiny); err != nil || n != 1 {
		t.Fatalf("Archive: %d scenarios, %v; want 1", n, err)
	}

	again := t.TempDir()
	if err := Run(context.Background(), again, arch, tiny, parts, experiment.Local{}, nil); err != nil {
		t.Fatal(err)
	}
	_, dones := journalCounts(t, filepath.Join(again, SensitivityDir, experiment.JournalFile))
	if len(dones) != len(SensitivityEstimators) {
		t.Errorf("with the archive %d tasks ran, want %d (the unarchived scenario's)", len(dones), len(SensitivityEstimators))
	}
	for k := range dones {
		if !strings.HasPrefix(k, specs[1].ID()+"/") {
			t.Errorf("task %s ran, but its scenario is archived", k)
		}
	}
	got, err := LoadResults(again, arch, tiny, parts)
	if err != nil {
		t.Fatal(err)
	}
	sameSensitivity(t, got.Sensitivity, want.Sensitivity)
	if c := got.Costs[PartSensitivity]; c.Done != c.Tasks || !(c.CPUSeconds > 0) {
		t.Errorf("costs %+v: want every task done, with CPU time", c)
	}

	// Archiving the new run completes the archive, which then reports
	// alone what the full run did.
	if n, err := Archive(again, arch, tiny); err != nil || n != 2 {
		t.Fatalf("Archive: %d scenarios, %v; want 2", n, err)
	}
	alone, err := LoadResults(t.TempDir(), arch, tiny, parts)
	if err != nil {
		t.Fatal(err)
	}
	sameSensitivity(t, alone.Sensitivity, want.Sensitivity)
	c := alone.Costs[PartSensitivity]
	if c.Done != c.Tasks || c.Complete != len(specs) {
		t.Errorf("archive alone: %d of %d tasks done, %d scenarios complete; want all, %d", c.Done, c.Tasks, c.Complete, len(specs))
	}
	// Every scenario is complete, so the estimators' CPU sums to the part's.
	total := 0.0
	for _, e := range SensitivityEstimators {
		if !(c.EstimatorCPU[e] > 0) {
			t.Errorf("%s: %g CPU s", e, c.EstimatorCPU[e])
		}
		total += c.EstimatorCPU[e]
	}
	if math.Abs(total-c.CPUSeconds) > 1e-9*c.CPUSeconds {
		t.Errorf("estimators' CPU sums to %g s, the part's is %g s", total, c.CPUSeconds)
	}

	// A task whose key is no longer in the archive journal (its estimator
	// changed) makes its whole scenario run again.
	costs, err := experiment.ReadJournal(arch)
	if err != nil {
		t.Fatal(err)
	}
	for k := range costs {
		if strings.HasPrefix(k, specs[0].ID()+"/m3") {
			delete(costs, k)
		}
	}
	if err := experiment.WriteJournal(arch, costs); err != nil {
		t.Fatal(err)
	}
	_, ts, err := partTasks(t.TempDir(), tiny, PartSensitivity)
	if err != nil {
		t.Fatal(err)
	}
	a, err := readArchive(arch, ts)
	if err != nil {
		t.Fatal(err)
	}
	if a.scenarios[specs[0].ID()] || !a.scenarios[specs[1].ID()] || len(a.rows) != len(SensitivityEstimators)-1 {
		t.Errorf("archive after a key change: scenarios %v, %d rows; want only the second seed's, with %d rows", a.scenarios, len(a.rows), len(SensitivityEstimators)-1)
	}
}

// sameSensitivity compares the combined rows' errors and intervals.
func sameSensitivity(t *testing.T, got, want []metrics.Summary) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d sensitivity rows, want %d", len(got), len(want))
	}
	key := func(r metrics.Summary) string { return r.ScenarioID + " " + r.Estimator }
	byKey := map[string]metrics.Summary{}
	for _, r := range want {
		byKey[key(r)] = r
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for _, g := range got {
		w, ok := byKey[key(g)]
		if !ok {
			t.Errorf("row %s not in the full run", key(g))
			continue
		}
		if !same(g.P99.All, w.P99.All) || !same(g.P99.ErrorAll, w.P99.ErrorAll) || !same(g.Half.ErrorAll, w.Half.ErrorAll) || g.Seeds != w.Seeds || g.MaxLoad != w.MaxLoad {
			t.Errorf("%s: p99 %g, error %g +- %g over %d seeds, max load %g; full run %g, %g +- %g over %d, %g",
				key(g), g.P99.All, g.P99.ErrorAll, g.Half.ErrorAll, g.Seeds, g.MaxLoad, w.P99.All, w.P99.ErrorAll, w.Half.ErrorAll, w.Seeds, w.MaxLoad)
		}
	}
}

// The committed paper-scale archive, whose journal keys default options
// by the hash of what they resolved to, is recognised whole under today's
// readable keys: a run with it skips every scenario it holds.
func TestCommittedArchiveRecognised(t *testing.T) {
	paper, err := ScaleByName("paper")
	if err != nil {
		t.Fatal(err)
	}
	_, ts, err := partTasks(t.TempDir(), paper, PartSensitivity)
	if err != nil {
		t.Fatal(err)
	}
	a, err := readArchive(filepath.Join("..", "..", "results", "largescale-paper"), ts)
	if err != nil {
		t.Fatal(err)
	}
	specs, err := SensitivitySpecs(paper)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.scenarios) != len(specs) || len(a.costs) != len(ts) {
		t.Errorf("archive: %d of %d scenarios, %d of %d task costs recognised", len(a.scenarios), len(specs), len(a.costs), len(ts))
	}
	for _, tk := range ts {
		k, err := tk.Key()
		if err != nil {
			t.Fatal(err)
		}
		// Parsimon runs as published (SensitivityOptions): its key
		// carries the hash the archive gave it when that was the default.
		if _, pub := SensitivityOptions[tk.Estimator]; strings.Contains(k, "@") != pub {
			t.Errorf("task key %q: a hash for options %q", k, tk.Options)
		}
	}
}
