package accuracy

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/tailscope/tailscope/lib/atlas"
	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
)

// seedRow is row in the 50k-500k flow band, of pair pair under seed.
func seedRow(sample, est, pair, change string, seed uint64, base, p99 float64) Row {
	r := row(sample, est, pair+change+fmt.Sprint(seed), change, base, p99)
	r.Pair, r.Seed = pair, seed
	r.Region.Flows = "50k-500k"
	return r
}

// A pair run under three seeds is judged by them: its change is their
// mean, clear when the 90% t interval of the per-seed changes excludes
// zero; a pair of one seed falls back to the noise sample's rule.
func TestDirectionsOwnSeeds(t *testing.T) {
	rows := []Row{
		// p1: +10%, +12%, +14% under seeds 1, 2, 3: mean 12%, sd 2%,
		// half-width t(0.95, 2) 0.02 / sqrt(3) = 3.4%: clear. m3 rises:
		// right.
		seedRow(SampleAtlas, "m3", "p1", "", 1, 10, 10), seedRow(SampleAtlas, "m3", "p1", "c", 1, 11, 12),
		seedRow(SampleNoise, SeedNoise, "p1", "", 2, 10, 10), seedRow(SampleNoise, SeedNoise, "p1", "c", 2, 11.2, 11.4),
		// p2: +30%, -10%, +10%: mean 10%, sd 20%, half-width 34%: not
		// clear, though +30% on the drawn seed alone would be. m3 falls:
		// wrong.
		seedRow(SampleAtlas, "m3", "p2", "", 1, 10, 10), seedRow(SampleAtlas, "m3", "p2", "c", 1, 13, 9),
		seedRow(SampleNoise, SeedNoise, "p2", "", 2, 10, 10), seedRow(SampleNoise, SeedNoise, "p2", "c", 2, 9, 11),
		// p3: the first scenario alone under more seeds: the noise rule.
		// Four noise rows in its band are fewer than MinNoiseRows: clear
		// above 10%, and +20% is.
		seedRow(SampleAtlas, "m3", "p3", "", 1, 10, 10), seedRow(SampleAtlas, "m3", "p3", "c", 1, 12, 11),
		seedRow(SampleNoise, SeedNoise, "p3", "", 2, 10, 10.5),
	}
	// p3's changed scenario lies outside m3's training range (its paths
	// extrapolate): m3 would refuse it by default, so p3 is not among the
	// clear pairs it answers by default.
	rows[9].OutsideShare = 1
	ds := Directions(rows, SampleAtlas, nil)
	if len(ds) != len(Labels()) {
		t.Fatalf("%d scores, want one per bin", len(ds))
	}
	for _, d := range ds {
		want := Direction{Estimator: "m3", Bin: d.Bin, Pairs: 3, Right: 2, Clear: 2, RightClear: 2, OwnSeeds: 2, DefaultClear: 1, DefaultRight: 1}
		if d != want {
			t.Errorf("%s: %+v, want %+v", d.Bin, d, want)
		}
	}
	p := pairSeeds(rows)
	if mean, clear, ok := ownSeeds(p["p1"], 0); !ok || !clear || math.Abs(mean-0.12) > 1e-12 {
		t.Errorf("p1: mean %g, clear %v, ok %v; want 0.12, clear", mean, clear, ok)
	}
	if _, _, ok := ownSeeds(p["p3"], 0); ok {
		t.Error("p3 has one seed of its changed scenario, judged by its own seeds")
	}
}

// The noise rule takes a pair's threshold from the noise of its own
// flow band.
func TestSeedNoisePerFlowBand(t *testing.T) {
	var rows []Row
	for i := range 10 {
		// 5k-50k: 3%, 6%, ..., 30% (p90 27.3%); 50k-500k: 1%, ..., 10%
		// (p90 9.1%).
		rows = append(rows, row(SampleNoise, SeedNoise, fmt.Sprint("a", i), "", 1, 1+0.03*float64(i+1)))
		r := row(SampleNoise, SeedNoise, fmt.Sprint("b", i), "", 1, 1+0.01*float64(i+1))
		r.Region.Flows = "50k-500k"
		rows = append(rows, r)
	}
	noise := SeedNoiseOf(rows)
	for _, c := range []struct {
		band string
		want float64
	}{{"5k-50k", 0.273}, {"50k-500k", 0.091}, {">=500k", ClearChange}} {
		if got := ClearOf(noise, c.band); math.Abs(got[0]-c.want) > 1e-9 || math.Abs(got[len(got)-1]-c.want) > 1e-9 {
			t.Errorf("%s: clear above %v, want %g", c.band, got, c.want)
		}
	}
	if len(noise) != 2*len(Labels()) {
		t.Errorf("%d noise cells, want the two bands' %d", len(noise), 2*len(Labels()))
	}
}

// The archive's frame keeps the pair, seed and buffers; an archive
// written before they were recorded reads with none.
func TestTableColumns(t *testing.T) {
	r := seedRow(SampleAtlas, "parsimon", "p", "k", 7, 10, 11)
	r.Region.Buffer = "shared buffer+PFC"
	r.CPUSeconds, r.BaseCPUSeconds = 1, 2
	r.SparseShare, r.FlowsPerLink, r.WindowOverBDP, r.OutsideShare = math.NaN(), 3, 0.5, math.NaN()
	tab := Table([]Row{r})
	back, err := FromTable(tab)
	if err != nil || !sameRows(back, []Row{r}) {
		t.Fatalf("round trip: %+v, %v; want %+v", back, err, r)
	}
	tab.Columns = slices.DeleteFunc(tab.Columns, func(c frame.Column) bool { return c.Name == "pair" || c.Name == "seed" || c.Name == "buffer" })
	old, err := FromTable(tab)
	if err != nil {
		t.Fatal(err)
	}
	want := r
	want.Pair, want.Seed, want.Region.Buffer = "", 0, ""
	if !sameRows(old, []Row{want}) {
		t.Errorf("an archive without the new columns reads as %+v, want %+v", old[0], want)
	}
}

// Archive keeps the rows of other designs' scenarios; a report keeps
// the rows of the designs asked for.
func TestMergeKeeps(t *testing.T) {
	old := []Row{row(SampleAtlas, "m3", "small", "", 1, 1), row(SampleAtlas, "m3", "wide", "", 1, 2)}
	fresh := []Row{row(SampleAtlas, "m3", "wide", "", 1, 3)}
	for _, c := range []struct {
		name string
		keep func(string) bool
		want []float64
	}{
		{"archive", func(string) bool { return true }, []float64{1, 3}},
		{"report of the wide design", func(id string) bool { return id == "wide" }, []float64{3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []float64
			for _, r := range merge(old, fresh, c.keep) {
				got = append(got, r.P99[0])
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("p99s %v, want %v", got, c.want)
			}
		})
	}
}

func TestAtlasSpan(t *testing.T) {
	a := row(SampleAtlas, "m3", "a", "", 1, 1)
	a.Flows = 5_000
	b := row(SampleAtlas, "m3", "b", "", 1, 1)
	b.Flows, b.Region.Fabric, b.Region.Flows, b.Region.Buffer = 1_000_000, "384 racks", ">=500k", "shared buffer"
	c := row(SampleCalibration, "m3", "c", "", 1, 1) // not the atlas's
	c.Flows, c.Region.Fabric = 2_000_000, "999 racks"
	for _, x := range []struct {
		name      string
		rows      []Row
		fabrics   string
		flows     string
		regions   int
		firstSpan string
	}{
		{"small", []Row{a, c}, "the 32-rack fabrics", "5k-5k", 1, "32 racks, 5k-50k flows"},
		{"both", []Row{a, b, c}, "the 32- and 384-rack fabrics", "5k-1M", 2, "32 racks, 5k-50k flows"},
	} {
		t.Run(x.name, func(t *testing.T) {
			m := measured(x.rows)
			if f := fabricsOf(x.rows); f != x.fabrics || flowRange(x.rows) != x.flows || len(m) != x.regions || m[0] != x.firstSpan {
				t.Errorf("%q, %q, %v; want %q, %q, %d regions from %q", f, flowRange(x.rows), m, x.fabrics, x.flows, x.regions, x.firstSpan)
			}
		})
	}
}

// TestRunPairSeeds runs a design of one counterfactual pair of 200 flows
// under three seeds end to end: the pair's noise rows carry its pair and
// seeds, and the direction scores judge it by them.
func TestRunPairSeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("runs packetsim and the estimators")
	}
	o := Options{Parts: []Options{{Label: "t", Atlas: 1, Seed: 3, Flows: []int{200}, PairShare: 1, PairSeeds: 3,
		Networks: []string{"dctcp"}, Changes: []string{"k_bytes=60000"}}}}
	scs, pairs, err := Design(o)
	if err != nil || len(scs) != 4 || len(pairs) != 1 {
		t.Fatalf("design: %d scenarios, %d pairs, %v; want a pair and its two noise scenarios", len(scs), len(pairs), err)
	}
	dir := t.TempDir()
	if _, err := Run(context.Background(), dir, "", o, nil, experiment.Local{}, nil); err != nil {
		t.Fatal(err)
	}
	rows, err := Load(dir, "", o)
	if err != nil {
		t.Fatal(err)
	}
	seeds := map[uint64]bool{}
	for _, r := range rows {
		if r.Pair != pairs[0].A.ID() {
			t.Errorf("%s row of %s: pair %q, want %q", r.Estimator, r.ScenarioID, r.Pair, pairs[0].A.ID())
		}
		seeds[r.Seed] = true
	}
	if s := pairs[0].A.Seed; len(seeds) != 2 || !seeds[s] || !seeds[s+1] {
		t.Errorf("rows' seeds %v, want the drawn seed %d and the next", seeds, s)
	}
	ds := Directions(rows, SampleAtlas, nil)
	if len(ds) == 0 {
		t.Fatal("no direction scores")
	}
	for _, d := range ds {
		if d.Bin == atlas.AllBin && (d.Pairs != 1 || d.OwnSeeds != 1) {
			t.Errorf("%s %s: %+v; want the pair judged by its own seeds", d.Estimator, d.Bin, d)
		}
	}
}

// Atlas rows of the wide design's regions (the 384-rack fabric, 50k-500k
// flows, shared buffers with PFC) give intervals for those regions, and
// a scenario there is told them (one of another network family with the
// same buffers, fabric and flow band is told their pooled interval),
// while one of fewer flows than any row has stays unknown.
func TestWideRegionsIntervals(t *testing.T) {
	big := atlas.Region{Network: "dctcp", Fabric: "384 racks", Load: "40-60%", Oversub: "2:1", Flows: "50k-500k"}
	pfc := atlas.Region{Network: "dcqcn", Buffer: "shared buffer+PFC", Fabric: "32 racks", Load: "<40%", Oversub: "1:1", Flows: "5k-50k"}
	var rows []Row
	for i := range 40 {
		r := row(SampleAtlas, "m3", fmt.Sprint("w", i), "", 1, 1+0.01*float64(i))
		r.Draw = i
		r.Region = big
		if i%2 == 1 {
			r.Region = pfc
		}
		rows = append(rows, r)
	}
	s := Summarize(rows, "test")
	scs, _, err := Design(Options{Parts: []Options{
		{Label: "big", Atlas: 1, Seed: 1, Topologies: []string{"meta384-2:1"}, Networks: []string{"dctcp"}, Flows: []int{200_000}},
		{Label: "pfc", Atlas: 1, Seed: 2, Networks: []string{"dcqcn"}, Flows: []int{20_000}, Buffers: []string{BufferSharedPFC}},
		{Label: "pfc-timely", Atlas: 1, Seed: 2, Networks: []string{"timely"}, Flows: []int{20_000}, Buffers: []string{BufferSharedPFC}},
		{Label: "none", Atlas: 1, Seed: 3, Networks: []string{"dcqcn"}, Flows: []int{2_000}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		t.Run(sc.Part, func(t *testing.T) {
			e := s.Expect("m3", sc.Spec)
			anyPFC := pfc.Pooled()[3]
			want, measured := map[string]atlas.Region{"big": big, "pfc": pfc, "pfc-timely": anyPFC}[sc.Part]
			if e.Known() != measured {
				t.Fatalf("region %s: known %v, want %v", e.Region, e.Known(), measured)
			}
			// Pooled over load, oversubscription and (for a family no
			// row is of) the network family at most: the fabric, buffers
			// and flow band stay the scenario's.
			p := e.Pooled
			if measured && (p.Fabric != want.Fabric || p.Buffer != want.Buffer || p.Flows != want.Flows || p.Network != want.Network) {
				t.Errorf("stated for %s, want a pooling of %s", p, want)
			}
		})
	}
}
