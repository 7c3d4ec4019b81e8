package accuracy

import (
	"cmp"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/tailscope/tailscope/lib/atlas"
	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/metrics"
)

// Row is one estimator on one finished scenario: its p99 slowdown per
// size bin and over all flows against packetsim's, the costs, and the
// estimator's own diagnostics. A Row with Refused set holds no numbers.
type Row struct {
	Sample     string
	Draw       int
	Preset     string
	Change     string // the counterfactual change, "" for a drawn scenario
	ScenarioID string
	WorkloadID string
	// Pair is the ID of the first scenario of the counterfactual pair
	// the row's scenario belongs to (Scenario.Pair), "" for none or in
	// rows archived before it was recorded.
	Pair string
	// Seed is the scenario's seed (0 in rows archived before it was
	// recorded).
	Seed      uint64
	Region    atlas.Region
	Topology  string
	Matrix    string
	Sizes     string
	Sigma     float64
	Load      float64 // max-load target
	Flows     int
	Estimator string
	Options   string
	Refused   string
	// P99, Base and Error hold one value per size bin of Bins, then all
	// flows: the estimate's p99 slowdown, packetsim's and the relative
	// error (NaN where a bin is empty).
	P99, Base, Error []float64
	// CPU seconds of the estimator's task and of packetsim's.
	CPUSeconds, BaseCPUSeconds float64
	// Diagnostics, NaN where the estimator has none: Parsimon's share of
	// sparse simulated links, flows per simulated link and window over
	// BDP; m3's share of paths outside its training range.
	SparseShare, FlowsPerLink, WindowOverBDP, OutsideShare float64
}

// Labels are the bin labels of a row's values: Bins' labels, then "all".
func Labels() []string { return append(slices.Clone(Bins().Labels), "all") }

// collect returns the rows of the design's scenarios whose every task is
// done under dir, and the costs of those tasks by key.
func collect(dir string, scs []Scenario) ([]Row, map[string]experiment.Cost, error) {
	costs, err := experiment.ReadJournal(dir)
	if err != nil {
		return nil, nil, err
	}
	keep := map[string]experiment.Cost{}
	var rows []Row
	for _, s := range scs {
		base, _ := TaskOf(s, Baseline)
		rs, ks, err := scenarioRows(dir, s, base, costs)
		if err != nil {
			return nil, nil, err
		}
		if rs == nil {
			continue
		}
		rows = append(rows, rs...)
		for _, k := range ks {
			keep[k] = costs[k]
		}
	}
	return rows, keep, nil
}

// scenarioRows returns the rows of scenario s and its tasks' keys if
// every one of its tasks is done and journaled under dir, else nil.
func scenarioRows(dir string, s Scenario, base experiment.Task, costs map[string]experiment.Cost) ([]Row, []string, error) {
	var keys []string
	done := func(t experiment.Task) (bool, error) {
		k, err := t.Key()
		if err != nil {
			return false, err
		}
		if _, ok := costs[k]; !ok {
			return false, nil
		}
		keys = append(keys, k)
		return t.Done(dir)
	}
	if ok, err := done(base); !ok || err != nil {
		return nil, nil, err
	}
	type ran struct {
		est    string
		t      experiment.Task
		reason string
	}
	var rs []ran
	for _, est := range EstimatorsOf(s) {
		t, why := TaskOf(s, est)
		if why == "" {
			if ok, err := done(t); !ok || err != nil {
				return nil, nil, err
			}
		}
		rs = append(rs, ran{est, t, why})
	}
	baseRecs, _, err := base.Records(dir)
	if err != nil {
		return nil, nil, err
	}
	bk, _ := base.Key()
	c := s.Spec.Workload.Components[0]
	proto := Row{Sample: s.Sample, Draw: s.Draw, Preset: s.Preset, Change: s.Change, ScenarioID: s.Spec.ID(),
		WorkloadID: s.Spec.WorkloadID(), Pair: s.Pair, Seed: s.Spec.Seed, Region: atlas.RegionOf(s.Spec), Topology: s.Spec.Topology.Preset,
		Matrix: c.Matrix, Sizes: c.Sizes.Dist, Sigma: c.Arrival.Sigma, Load: c.MaxLoad, Flows: s.Spec.Workload.Flows,
		BaseCPUSeconds: costs[bk].CPUSeconds}
	n := len(Labels())
	var out []Row
	for _, r := range rs {
		row := proto
		row.Estimator = r.est
		row.SparseShare, row.FlowsPerLink, row.WindowOverBDP, row.OutsideShare = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		row.P99, row.Base, row.Error = nan(n), nan(n), nan(n)
		row.CPUSeconds = math.NaN()
		if r.reason != "" {
			row.Refused = r.reason
			out = append(out, row)
			continue
		}
		recs, meta, err := r.t.Records(dir)
		if err != nil {
			return nil, nil, err
		}
		k, _ := r.t.Key()
		row.Options, row.CPUSeconds = meta.Options, costs[k].CPUSeconds
		cmp := metrics.Compare(recs, baseRecs, Bins(), 99)
		row.P99 = append(slices.Clone(cmp.Est), cmp.All)
		row.Base = append(slices.Clone(cmp.Base), cmp.BaseAll)
		row.Error = append(slices.Clone(cmp.Error), cmp.ErrorAll)
		x := func(key string) float64 {
			v, err := strconv.ParseFloat(meta.Extra[key], 64)
			if err != nil {
				return math.NaN()
			}
			return v
		}
		if sims := x("link_sims"); sims > 0 {
			row.SparseShare = x("link_sims_sparse") / sims
		}
		row.FlowsPerLink, row.WindowOverBDP = x(estimator.ExtraFlowsPerLink), x(estimator.ExtraWindowOverBDP)
		if p, sim, _, ok := estimator.Outside(meta.Extra); ok && sim > 0 {
			row.OutsideShare = float64(p) / float64(sim)
		}
		out = append(out, row)
	}
	return out, keys, nil
}

func nan(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// ArchiveRows is the archive's frame of rows, beside its journal
// (experiment.JournalFile) of the archived tasks' costs.
const ArchiveRows = "atlas.parquet"

// archived is what an archive holds.
type archived struct {
	rows  []Row
	costs map[string]experiment.Cost
}

// readArchive reads the archive at dir ("" or a directory without one
// holds nothing).
func readArchive(dir string) (archived, error) {
	a := archived{costs: map[string]experiment.Cost{}}
	t, costs, err := experiment.ReadArchive(dir, ArchiveRows)
	if err != nil || t == nil {
		return a, err
	}
	rows, err := FromTable(t)
	if err != nil {
		return a, fmt.Errorf("accuracy: archive %s: %w", filepath.Join(dir, ArchiveRows), err)
	}
	a.rows, a.costs = rows, costs
	return a, nil
}

// migrate reads rows archived before Parsimon's defaults changed
// (sparse_bucket_size and window_once): a scenario of scs whose design
// runs estimator.ParsimonPublished but that has no such row ran Parsimon
// as published under the name "parsimon", so that row is relabelled, and
// the window_once variant those archives held is dropped (window_once is
// now part of the defaults, measured as "parsimon"). A design that skips
// estimator.ParsimonPublished (the wide one) measures the defaults
// alone, and the rows of scenarios not in scs stay as they are.
func migrate(rows []Row, scs []Scenario) []Row {
	runs := map[string]bool{}
	for _, s := range scs {
		runs[s.Spec.ID()] = !slices.Contains(s.Skip, estimator.ParsimonPublished)
	}
	const windowOnce = "parsimon-window-once"
	published := map[string]bool{}
	for _, r := range rows {
		published[r.ScenarioID] = published[r.ScenarioID] || r.Estimator == estimator.ParsimonPublished
	}
	rows = slices.DeleteFunc(rows, func(r Row) bool { return r.Estimator == windowOnce })
	for i, r := range rows {
		if r.Estimator == "parsimon" && runs[r.ScenarioID] && !published[r.ScenarioID] {
			rows[i].Estimator = estimator.ParsimonPublished
		}
	}
	return rows
}

// Load returns the rows of the design o finished under dir or archived
// in archive ("" for none): the archive's rows of scenarios not finished
// under dir, then dir's.
func Load(dir, archive string, o Options) ([]Row, error) {
	return LoadAll(dir, archive, []Options{o})
}

// LoadAll is Load of several designs at once (the small and the wide
// one, say, sharing dir and archive): the rows of every design's
// scenarios, ordered as Load orders them.
func LoadAll(dir, archive string, designs []Options) ([]Row, error) {
	var scs []Scenario
	for _, o := range designs {
		s, _, err := Design(o)
		if err != nil {
			return nil, err
		}
		scs = append(scs, s...)
	}
	a, err := readArchive(archive)
	if err != nil {
		return nil, err
	}
	fresh, _, err := collect(dir, scs)
	if err != nil {
		return nil, err
	}
	inDesign := map[string]bool{}
	for _, s := range scs {
		inDesign[s.Spec.ID()] = true
	}
	return merge(migrate(a.rows, scs), fresh, func(id string) bool { return inDesign[id] }), nil
}

// merge keeps the old rows that fresh does not have and keep accepts,
// then fresh's, ordered by sample, draw and estimator.
func merge(old, fresh []Row, keep func(scenarioID string) bool) []Row {
	have := map[string]bool{}
	for _, r := range fresh {
		have[r.ScenarioID] = true
	}
	var out []Row
	for _, r := range old {
		if keep(r.ScenarioID) && !have[r.ScenarioID] {
			out = append(out, r)
		}
	}
	out = append(out, fresh...)
	slices.SortStableFunc(out, func(a, b Row) int {
		return cmp.Or(cmp.Compare(a.Sample, b.Sample), cmp.Compare(a.Draw, b.Draw), cmp.Compare(a.Change, b.Change), cmp.Compare(a.Estimator, b.Estimator))
	})
	return out
}

// Archive adds the scenarios of design o finished under dir to the
// archive at archive (created if need be), keeping those already there
// (of any design: the small and the wide design may share one archive),
// and returns how many scenarios it holds. Files are replaced by
// renaming, so an interrupted Archive leaves the archive as it was or
// complete.
func Archive(dir, archive string, o Options) (int, error) {
	scs, _, err := Design(o)
	if err != nil {
		return 0, err
	}
	a, err := readArchive(archive)
	if err != nil {
		return 0, err
	}
	fresh, costs, err := collect(dir, scs)
	if err != nil {
		return 0, err
	}
	rows := merge(migrate(a.rows, scs), fresh, func(string) bool { return true })
	if len(rows) == 0 {
		return 0, nil
	}
	for k, c := range a.costs {
		if _, ok := costs[k]; !ok {
			costs[k] = c
		}
	}
	if err := experiment.WriteArchive(archive, ArchiveRows, Table(rows), costs); err != nil {
		return 0, err
	}
	ids := map[string]bool{}
	for _, r := range rows {
		ids[r.ScenarioID] = true
	}
	return len(ids), nil
}
