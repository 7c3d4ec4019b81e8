package accuracy

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/atlas"
	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/experiment"
)

func TestDesign(t *testing.T) {
	o := Options{Atlas: 30, Calibration: 10, Seed: 7, Flows: []int{5_000, 20_000}, PairShare: 0.5}
	scs, pairs, err := Design(o)
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := Design(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("deterministic", func(t *testing.T) {
		if !reflect.DeepEqual(scs, again) {
			t.Error("the same options gave other scenarios")
		}
	})
	t.Run("a larger sample keeps the first draws", func(t *testing.T) {
		more := o
		more.Atlas = 40
		big, _, err := Design(more)
		if err != nil {
			t.Fatal(err)
		}
		id := map[string]bool{}
		for _, s := range big {
			id[s.Spec.ID()] = true
		}
		for _, s := range scs {
			if s.Sample == SampleAtlas && !id[s.Spec.ID()] {
				t.Fatalf("atlas draw %d (%s) is gone from the larger design", s.Draw, s.Spec.Name)
			}
		}
	})
	t.Run("samples disjoint", func(t *testing.T) {
		by := map[string]string{}
		for _, s := range scs {
			if other, ok := by[s.Spec.ID()]; ok {
				t.Fatalf("scenario %s in %s and %s", s.Spec.ID(), other, s.Sample)
			}
			by[s.Spec.ID()] = s.Sample
		}
	})
	t.Run("pairs are the same flows under two networks", func(t *testing.T) {
		if len(pairs) == 0 {
			t.Fatal("no pairs at a pair share of 0.5")
		}
		for _, p := range pairs {
			if p.A.WorkloadID() != p.B.WorkloadID() || reflect.DeepEqual(p.A.Network, p.B.Network) {
				t.Errorf("pair %s %d (%s): workloads equal %v, networks equal %v", p.Sample, p.Draw, p.Change,
					p.A.WorkloadID() == p.B.WorkloadID(), reflect.DeepEqual(p.A.Network, p.B.Network))
			}
		}
	})
	t.Run("the space", func(t *testing.T) {
		presets := map[string]bool{}
		for _, s := range scs {
			presets[s.Preset] = true
			c := s.Spec.Workload.Components[0]
			if c.MaxLoad < 0.2 || c.MaxLoad > 0.8 || !slices.Contains(o.Flows, s.Spec.Workload.Flows) {
				t.Errorf("%s: load %g, flows %d outside the space", s.Spec.Name, c.MaxLoad, s.Spec.Workload.Flows)
			}
		}
		if len(presets) < 6 {
			t.Errorf("40 draws over %d presets reached only %v", len(Presets()), presets)
		}
	})
	t.Run("bad options", func(t *testing.T) {
		for _, bad := range []Options{{Atlas: 0, Flows: []int{1}}, {Atlas: 1}, {Atlas: 1, Flows: []int{1}, PairShare: 2}} {
			if _, _, err := Design(bad); err == nil {
				t.Errorf("Design(%+v) gave no error", bad)
			}
		}
	})
}

func TestInterval(t *testing.T) {
	// Ten errors -0.5, -0.4, ..., 0.4: numpy's type-7 p10 is -0.41, p50
	// -0.05, p90 0.31; the largest magnitude is -0.5; the magnitudes'
	// p90 is 0.41.
	var errs []float64
	for i := range 10 {
		errs = append(errs, -0.5+0.1*float64(i))
	}
	iv := interval("m3", "all", atlas.Region{}, errs)
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"p10", iv.P10, -0.41}, {"p50", iv.P50, -0.05}, {"p90", iv.P90, 0.31}, {"max", iv.Max, -0.5}, {"abs p90", iv.AbsP90, 0.41}} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
}

// row is a synthetic row of estimator est with one error for every bin.
func row(sample, est, wl, change string, base, p99 float64) Row {
	n := len(Labels())
	r := Row{Sample: sample, Estimator: est, WorkloadID: wl, ScenarioID: wl + change, Change: change,
		Region: atlas.Region{Network: "dctcp", Fabric: "32 racks", Load: "<40%", Oversub: "2:1", Flows: "5k-50k"}}
	for range n {
		r.Base = append(r.Base, base)
		r.P99 = append(r.P99, p99)
		r.Error = append(r.Error, (p99-base)/base)
	}
	return r
}

func TestDirections(t *testing.T) {
	rows := []Row{
		// Truth rises 10 -> 20; the estimate rises: right, clear.
		row(SampleAtlas, "m3", "w1", "", 10, 12), row(SampleAtlas, "m3", "w1", "k", 20, 15),
		// Truth falls 10 -> 9.5 (5%, not clear); the estimate rises: wrong.
		row(SampleAtlas, "m3", "w2", "", 10, 10), row(SampleAtlas, "m3", "w2", "k", 9.5, 11),
		// Truth rises 10 -> 15; the estimate does not move: wrong, clear.
		row(SampleCalibration, "m3", "w4", "", 10, 10), row(SampleCalibration, "m3", "w4", "k", 15, 10),
		// An unpaired scenario counts for nothing.
		row(SampleAtlas, "m3", "w3", "", 10, 10),
	}
	if ds := Directions(rows, SampleCalibration, nil); len(ds) == 0 || ds[0].Pairs != 1 || ds[0].Right != 0 || ds[0].Clear != 1 {
		t.Errorf("a flat estimate against a clear change: %+v, want 1 pair, none right, 1 clear", ds)
	}
	ds := Directions(rows, SampleAtlas, nil)
	if len(ds) != len(Labels()) {
		t.Fatalf("%d scores, want one per bin", len(ds))
	}
	for _, d := range ds {
		if d.Pairs != 2 || d.Right != 1 || d.Clear != 1 || d.RightClear != 1 {
			t.Errorf("%s %s: %+v; want 2 pairs, 1 right, 1 clear and right", d.Estimator, d.Bin, d)
		}
	}
}

// FieldDirections scores the clear pairs of both samples by the setting
// their change sets in the first scenario's network: the rate-based
// window change is the window of that network's congestion control.
func TestFieldDirections(t *testing.T) {
	on := func(r Row, network string) Row {
		r.Region.Network = network
		return r
	}
	rows := []Row{
		// TIMELY's Tlow: truth falls 10 -> 5, m3 rises (wrong) twice.
		row(SampleAtlas, "m3", "w1", "", 10, 3), row(SampleAtlas, "m3", "w1", "timely.tlow_nanos=25000", 5, 3.1),
		row(SampleCalibration, "m3", "w2", "", 10, 3), row(SampleCalibration, "m3", "w2", "timely.tlow_nanos=25000", 5, 3.1),
		// A window of 9 KB under the fork's DCQCN: truth falls, m3 falls.
		on(row(SampleAtlas, "m3", "w3", "", 10, 8), "fork-dcqcn"), on(row(SampleAtlas, "m3", "w3", "window_bytes=9000", 6, 5), "fork-dcqcn"),
		// Not clear (2%): counts for nothing.
		row(SampleAtlas, "m3", "w4", "", 10, 8), row(SampleAtlas, "m3", "w4", "k_bytes=60000", 10.2, 5),
		// Parsimon as published, a variant scored under its own label:
		// truth falls, it falls.
		row(SampleAtlas, estimator.ParsimonPublished, "w1", "", 10, 10), row(SampleAtlas, estimator.ParsimonPublished, "w1", "timely.tlow_nanos=25000", 5, 4),
	}
	got := map[string][2]int{}
	for _, d := range FieldDirections(rows) {
		if d.Bin == atlas.AllBin {
			got[d.Estimator+" "+d.Field] = [2]int{d.Right, d.Clear}
		}
	}
	want := map[string][2]int{"m3 timely.tlow_nanos": {0, 2}, "m3 dcqcn.window_bytes": {1, 1}, "parsimon-published timely.tlow_nanos": {1, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("right and clear by field over all flows: %v, want %v", got, want)
	}
}

// With a noise sample, a pair is clear where packetsim moves by more
// than the seed-to-seed change's 90th percentile.
func TestDirectionsSeedNoise(t *testing.T) {
	var rows []Row
	// Ten noise rows, seed-to-seed changes 3%, 6%, ..., 30%: type-7 p90
	// is 27.3%.
	for i := range 10 {
		rows = append(rows, row(SampleNoise, SeedNoise, fmt.Sprint("n", i), "", 1, 1+0.03*float64(i+1)))
	}
	if c := ClearOf(SeedNoiseOf(rows), "5k-50k"); math.Abs(c[0]-0.273) > 1e-9 {
		t.Fatalf("clear above %g, want 0.273", c[0])
	}
	rows = append(rows,
		// Truth rises 20%: within the noise, not clear.
		row(SampleAtlas, "m3", "w1", "", 10, 10), row(SampleAtlas, "m3", "w1", "k", 12, 11),
		// Truth rises 50%: clear, and m3 rises: right.
		row(SampleAtlas, "m3", "w2", "", 10, 10), row(SampleAtlas, "m3", "w2", "k", 15, 11))
	for _, d := range Directions(rows, SampleAtlas, nil) {
		if d.Pairs != 2 || d.Clear != 1 || d.RightClear != 1 {
			t.Errorf("%s: %+v; want 2 pairs, 1 clear and right", d.Bin, d)
		}
	}
	// Fewer than MinNoiseRows: 10%, and both pairs are clear.
	for _, d := range Directions(rows[10:], SampleAtlas, nil) {
		if d.Clear != 2 {
			t.Errorf("without noise rows %s: %+v; want both pairs clear at 10%%", d.Bin, d)
		}
	}
}

func TestCalibrate(t *testing.T) {
	var rows []Row
	// Atlas: errors 0, 0.1, ..., 0.9 (p10 0.09, p90 0.81).
	for i := range 10 {
		rows = append(rows, row(SampleAtlas, "parsimon", string(rune('a'+i)), "", 1, 1+0.1*float64(i)))
	}
	s := rawSummary(rows, "test", 5)
	// Calibration: 0.5 and 0.8 inside, 0.05 and 0.95 outside.
	for i, e := range []float64{0.5, 0.8, 0.05, 0.95} {
		rows = append(rows, row(SampleCalibration, "parsimon", string(rune('A'+i)), "", 1, 1+e))
	}
	for _, c := range Calibrate(s, rows) {
		if c.Inside != 2 || c.Stated != 4 || c.Unstated != 0 {
			t.Errorf("%s %s: %+v; want 2 of 4 inside", c.Estimator, c.Bin, c)
		}
	}
}

func TestNeededConformal(t *testing.T) {
	iv := atlas.Interval{P10: -1, P50: 0, P90: 2}
	for _, c := range []struct{ err, want float64 }{{3, 1.5}, {-2, 2}, {0, 0}, {1, 0.5}} {
		if got := needed(iv, c.err); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("needed(%g) = %g, want %g", c.err, got, c.want)
		}
	}
	// Ten values 1..10 at 80%: the ceil(11 x 0.8) = 9th smallest.
	fs := []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	if got := conformal(fs, 0.8); got != 9 {
		t.Errorf("conformal = %g, want 9", got)
	}
}

// Tune on errors drawn from one distribution in one region: the chosen
// factor makes the stated interval hold about 80% of fresh draws, where
// the bare p10..p90 of a small region holds fewer.
func TestTune(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var rows []Row
	for i := range 60 {
		x := row(SampleAtlas, "m3", fmt.Sprint("a", i), "", 1, 1+0.3*r.NormFloat64())
		x.Draw = i
		rows = append(rows, x)
	}
	for i := range 2000 {
		x := row(SampleCalibration, "m3", fmt.Sprint("c", i), "", 1, 1+0.3*r.NormFloat64())
		x.Draw = i
		rows = append(rows, x)
	}
	tu := Tune(rows)
	s := Summarize(rows, "test")
	if s.MinScenarios != tu.MinScenarios || s.Coverage != atlas.DefaultCoverage || !slices.Contains(MinScenarioChoices, s.MinScenarios) {
		t.Fatalf("summary: min %d coverage %g, tuning chose %d", s.MinScenarios, s.Coverage, tu.MinScenarios)
	}
	for _, c := range tu.Folds {
		if c.Stated != 60 || float64(c.Inside)/float64(c.Stated) < atlas.DefaultCoverage {
			t.Errorf("cross-validated %s: %d of %d inside, want every atlas error stated and at least 80%% inside", c.Bin, c.Inside, c.Stated)
		}
	}
	for _, c := range Calibrate(s, rows) {
		if got := float64(c.Inside) / float64(c.Stated); got < 0.75 || got > 0.9 || s.Factor("m3", c.Bin) <= 1 {
			t.Errorf("%s: held-out coverage %.3f with factor %g; want about 0.8 with a factor above 1", c.Bin, got, s.Factor("m3", c.Bin))
		}
	}
}

// The folds state intervals from regions as fine as the summary's: a
// region of exactly the minimum size keeps its own interval in the folds,
// where it has only (Folds-1)/Folds of its scenarios, rather than falling
// back to the coarser region around it.
func TestFoldsKeepTheSummarysRegions(t *testing.T) {
	const m = 20
	var rows []Row
	for i := range m {
		x := row(SampleAtlas, "m3", fmt.Sprint("a", i), "", 1, 1.1)
		x.Draw = i
		rows = append(rows, x)
	}
	for i := range 3 * m { // the same fabric and flows, other loads: only the pooled regions
		x := row(SampleAtlas, "m3", fmt.Sprint("b", i), "", 1, 2)
		x.Draw = i
		x.Region.Load = ">60%"
		rows = append(rows, x)
	}
	own := rows[0].Region
	if iv := rawSummary(rows, "", m).ExpectIn("m3", own).Intervals; len(iv) == 0 || iv[0].Region != own {
		t.Fatalf("the summary states %v for the region of %d scenarios, want its own", iv, m)
	}
	pts, _ := crossPoints(rows, m)
	for _, p := range pts {
		if rows[p.id].Region == own && (p.iv.Region != own || p.iv.N != m*(Folds-1)/Folds) {
			t.Fatalf("a fold states the interval of %v (%d scenarios) for a scenario of %v, want its own region's of %d", p.iv.Region, p.iv.N, own, m*(Folds-1)/Folds)
		}
	}
}

// TestRunArchiveLoad runs a design of one counterfactual pair of 200
// flows end to end: every estimator's rows, the archive holding them,
// and a second run that finds everything done.
func TestRunArchiveLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("runs packetsim and the estimators")
	}
	o := Options{Atlas: 1, Seed: 3, Flows: []int{200}, PairShare: 1, NoisePairs: 1}
	scs, pairs, err := Design(o)
	if err != nil || len(scs) != 3 || len(pairs) != 1 || scs[2].Sample != SampleNoise || scs[2].Spec.Seed != pairs[0].A.Seed+1 {
		t.Fatalf("design: %d scenarios, %d pairs, %v; want one pair and its first scenario under the next seed", len(scs), len(pairs), err)
	}
	dir, arch := t.TempDir(), t.TempDir()
	ctx := context.Background()
	rep, err := Run(ctx, dir, "", o, nil, experiment.Local{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ts, _ := Tasks(scs)
	if rep.Ran != len(ts) {
		t.Fatalf("ran %d of %d tasks", rep.Ran, len(ts))
	}
	rows, err := Load(dir, "", o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2*len(Estimators)+1 {
		t.Fatalf("%d rows, want %d (2 scenarios x %d estimators, and the seed-noise row)", len(rows), 2*len(Estimators)+1, len(Estimators))
	}
	if n := SeedNoiseOf(rows); n[len(n)-1].N != 1 || !(n[len(n)-1].Median >= 0) {
		t.Errorf("seed noise %+v: want the one noise row's magnitude in every bin", n)
	}
	for _, r := range rows {
		if r.Refused != "" {
			continue
		}
		all := len(r.Error) - 1
		if want := (r.P99[all] - r.Base[all]) / r.Base[all]; math.Abs(r.Error[all]-want) > 1e-12 || !(r.CPUSeconds >= 0) {
			t.Errorf("%s on %s: error %g, want %g from its p99s; CPU %g s", r.Estimator, r.ScenarioID, r.Error[all], want, r.CPUSeconds)
		}
	}
	n, err := Archive(dir, arch, o)
	if err != nil || n != 3 {
		t.Fatalf("archive holds %d scenarios, %v; want 3", n, err)
	}
	// From the archive alone, the same rows.
	back, err := Load(t.TempDir(), arch, o)
	if err != nil {
		t.Fatal(err)
	}
	if !sameRows(back, rows) {
		t.Errorf("the archive's rows differ from the run's:\n%+v\n%+v", back, rows)
	}
	// Archived tasks are not run again.
	rep, err = Run(ctx, t.TempDir(), arch, o, nil, experiment.Local{}, nil)
	if err != nil || rep.Total != 0 {
		t.Errorf("second run with the archive: %+v, %v; want nothing left", rep, err)
	}
}

// sameRows compares rows with NaN equal to NaN.
func sameRows(a, b []Row) bool {
	if len(a) != len(b) {
		return false
	}
	eq := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
	for i := range a {
		x, y := a[i], b[i]
		for _, p := range [][2][]float64{{x.P99, y.P99}, {x.Base, y.Base}, {x.Error, y.Error}} {
			if len(p[0]) != len(p[1]) {
				return false
			}
			for j := range p[0] {
				if !eq(p[0][j], p[1][j]) {
					return false
				}
			}
		}
		for _, p := range [][2]float64{{x.CPUSeconds, y.CPUSeconds}, {x.SparseShare, y.SparseShare}, {x.OutsideShare, y.OutsideShare}, {x.WindowOverBDP, y.WindowOverBDP}, {x.FlowsPerLink, y.FlowsPerLink}} {
			if !eq(p[0], p[1]) {
				return false
			}
		}
		x.P99, x.Base, x.Error, y.P99, y.Base, y.Error = nil, nil, nil, nil, nil, nil
		x.CPUSeconds, x.SparseShare, x.OutsideShare, x.WindowOverBDP, x.FlowsPerLink = 0, 0, 0, 0, 0
		y.CPUSeconds, y.SparseShare, y.OutsideShare, y.WindowOverBDP, y.FlowsPerLink = 0, 0, 0, 0, 0
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// migrate relabels the "parsimon" rows of archives from before Parsimon's
// defaults changed, for the scenarios whose design runs Parsimon as
// published, and only for those.
func TestMigrate(t *testing.T) {
	scs, _, err := Design(Sizes["tiny"])
	if err != nil || len(scs) < 3 {
		t.Fatalf("%d scenarios, %v", len(scs), err)
	}
	old, skips, other := scs[0], scs[1], scs[2]
	skips.Skip = []string{estimator.ParsimonPublished}
	r := func(s Scenario, est string) Row {
		x := row(SampleAtlas, est, s.Spec.ID(), "", 1, 1)
		x.ScenarioID = s.Spec.ID()
		return x
	}
	rows := []Row{
		r(old, "parsimon"), r(old, "parsimon-window-once"),
		r(skips, "parsimon"),
		r(other, "parsimon"),
	}
	got := migrate(rows, []Scenario{old, skips})
	var ests []string
	for _, x := range got {
		ests = append(ests, x.Estimator)
	}
	if want := []string{estimator.ParsimonPublished, "parsimon", "parsimon"}; !slices.Equal(ests, want) {
		t.Errorf("estimators %v, want %v: the old archive's row relabelled, the window-once row dropped, a design that skips the published run and a scenario of no design given untouched", ests, want)
	}
}

// A before and after that ran different pairs of m3 models on different
// scenarios get rows per pair, each over its own scenarios; Parsimon's,
// one pair of variants, gets the plain table.
func TestBeforeAfterByModels(t *testing.T) {
	m3row := func(est, id, model string, p99 float64) Row {
		r := row(SampleAtlas, est, id, "", 10, p99)
		r.Options = fmt.Sprintf(`{"answer_anyway":true,"model":%q}`, model)
		return r
	}
	rows := []Row{
		m3row(estimator.M3Table4, "a", "table4-pfc", 5), m3row("m3", "a", "presets", 9),
		m3row(estimator.M3Table4, "b", "table4-fork", 20), m3row("m3", "b", "presets-fork", 11),
		m3row(estimator.M3Table4, "c", "table4-fork", 16), m3row("m3", "c", "presets-fork", 12),
		// Without its after: not counted.
		m3row(estimator.M3Table4, "d", "table4-fork", 30),
	}
	var b strings.Builder
	writeBeforeAfter(&b, rows, estimator.M3Table4, "before", "after")
	for _, want := range []string{
		"| `table4-fork` → `presets-fork` | all | 2 | +80% (+64%..+96%) | +15% (+11%..+19%) |",
		"| `table4-pfc` → `presets` | all | 1 | -50% (-50%..-50%) | -10% (-10%..-10%) |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no line %q in\n%s", want, b.String())
		}
	}
	rows = []Row{row(SampleAtlas, estimator.ParsimonPublished, "a", "", 10, 15), row(SampleAtlas, "parsimon", "a", "", 10, 11)}
	b.Reset()
	writeBeforeAfter(&b, rows, estimator.ParsimonPublished, "published", "default")
	if want := "| all | 1 | +50% (+50%..+50%) | +10% (+10%..+10%) |"; !strings.Contains(b.String(), want) || strings.Contains(b.String(), "models") {
		t.Errorf("Parsimon's before and after: want the plain table with %q, got\n%s", want, b.String())
	}
}
