package largescale

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/summary"
)

// An archive keeps the finished scenarios of the sensitivity analysis in
// a form small enough to commit, so that a paper-scale run outlives the
// machine it ran on: the scenarios' summary rows (ArchiveRows, a summary
// frame of one row per scenario, seed and estimator, as
// summary.SummarizeDir makes them) and their tasks' journal lines
// (experiment.JournalFile, with what each task cost). Run skips the tasks
// of archived scenarios and LoadResults reports them beside the
// directory's. A scenario is archived whole, every estimator with its
// baseline, and only while every one of its tasks' keys is in the archive
// journal: a task whose key changed (an estimator's defaults or m3's
// model) makes its scenario run again.
const ArchiveRows = "sensitivity.parquet"

// archived is what an archive holds of the sensitivity part's current
// tasks: the scenario IDs whose every task it holds, their rows and their
// tasks' costs.
type archived struct {
	scenarios map[string]bool
	rows      []metrics.Summary
	costs     map[string]experiment.Cost
}

// byScenario groups the tasks' keys by scenario ID.
func byScenario(ts []experiment.Task) (map[string][]string, error) {
	keys := map[string][]string{}
	for _, t := range ts {
		k, err := t.Key()
		if err != nil {
			return nil, err
		}
		id := t.Spec.ID()
		keys[id] = append(keys[id], k)
	}
	return keys, nil
}

// readArchive reads the archive at dir ("" or a directory without an
// archive holds nothing) for the tasks ts.
func readArchive(dir string, ts []experiment.Task) (archived, error) {
	a := archived{scenarios: map[string]bool{}, costs: map[string]experiment.Cost{}}
	t, costs, err := experiment.ReadArchive(dir, ArchiveRows)
	if err != nil || t == nil {
		return a, err
	}
	path := filepath.Join(dir, ArchiveRows)
	keys, err := byScenario(ts)
	if err != nil {
		return a, err
	}
	for id, ks := range keys {
		if !slices.ContainsFunc(ks, func(k string) bool { _, ok := costs[k]; return !ok }) {
			a.scenarios[id] = true
			for _, k := range ks {
				a.costs[k] = costs[k]
			}
		}
	}
	rows, err := summary.Rows(t)
	if err != nil {
		return a, fmt.Errorf("largescale: archive %s: %w", path, err)
	}
	got := map[string]int{}
	for _, r := range rows {
		if a.scenarios[r.ScenarioID] {
			a.rows = append(a.rows, r)
			got[r.ScenarioID]++
		}
	}
	for id := range a.scenarios {
		if want := len(keys[id]) - 1; got[id] != want { // every task but the baseline's has a row
			return a, fmt.Errorf("largescale: archive %s: scenario %s has %d rows, want %d (one per estimator)", path, id, got[id], want)
		}
	}
	return a, nil
}

// Archive adds the sensitivity scenarios finished under dir at scale s,
// every task of the scenario done, to the archive at archive (created if
// need be), keeping the scenarios already there, and returns how many
// scenarios the archive now holds. Files are replaced by renaming, so an
// interrupted Archive leaves the archive as it was or complete.
func Archive(dir, archive string, s Scale) (int, error) {
	sub, ts, err := partTasks(dir, s, PartSensitivity)
	if err != nil {
		return 0, err
	}
	old, err := readArchive(archive, ts)
	if err != nil {
		return 0, err
	}
	costs, err := experiment.ReadJournal(sub)
	if err != nil {
		return 0, err
	}
	keys, err := byScenario(ts)
	if err != nil {
		return 0, err
	}
	// done: the scenarios whose every task finished under dir.
	done := map[string]bool{}
	anyDone := false
	for _, t := range ts {
		id := t.Spec.ID()
		if ok, seen := done[id]; seen && !ok {
			continue
		}
		k, err := t.Key()
		if err != nil {
			return 0, err
		}
		_, journaled := costs[k]
		d, err := t.Done(sub)
		if err != nil {
			return 0, err
		}
		done[id] = journaled && d
	}
	for _, ok := range done {
		anyDone = anyDone || ok
	}
	rows := slices.DeleteFunc(slices.Clone(old.rows), func(r metrics.Summary) bool { return done[r.ScenarioID] })
	costsOut := map[string]experiment.Cost{}
	for id := range old.scenarios {
		if !done[id] {
			for _, k := range keys[id] {
				costsOut[k] = old.costs[k]
			}
		}
	}
	if anyDone {
		fresh, err := summary.SummarizeDir(sub, Baseline, Bins(), 99, nil)
		if err != nil {
			return 0, err
		}
		fresh = published(fresh)
		for _, r := range fresh {
			if done[r.ScenarioID] {
				rows = append(rows, r)
			}
		}
		for id, ok := range done {
			if ok {
				for _, k := range keys[id] {
					costsOut[k] = costs[k]
				}
			}
		}
	}
	if len(rows) == 0 {
		return 0, nil
	}
	sortRows(rows)
	t, err := summary.Table(rows)
	if err != nil {
		return 0, err
	}
	if err := experiment.WriteArchive(archive, ArchiveRows, t, costsOut); err != nil {
		return 0, err
	}
	n := 0
	for id := range keys {
		if done[id] || old.scenarios[id] {
			n++
		}
	}
	return n, nil
}

// sortRows orders summary rows by scenario and estimator, the order of a
// results directory's files.
func sortRows(rows []metrics.Summary) {
	slices.SortStableFunc(rows, func(a, b metrics.Summary) int {
		return cmp.Or(cmp.Compare(a.ScenarioID, b.ScenarioID), cmp.Compare(a.Estimator, b.Estimator))
	})
}
