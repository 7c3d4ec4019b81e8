package plot

import (
	"fmt"
	"math"
	"testing"

	"github.com/tailscope/tailscope/lib/metrics"
)

// seededRows makes every synthetic scenario a family run with seeds
// seeds, the error of seed k shifted by k-(seeds-1)/2 percent.
func seededRows(n, seeds int) []metrics.Summary {
	var rows []metrics.Summary
	for i, r := range synthSummaries(3, n) {
		for k := range seeds {
			c := r
			d := 0.01 * (float64(k) - float64(seeds-1)/2)
			c.ScenarioID, c.Family = fmt.Sprintf("%s-%d", r.ScenarioID, k), fmt.Sprintf("fam%d", i)
			c.P99.Error = append([]float64(nil), r.P99.Error...)
			c.P99.Error[0] += d
			c.P99.ErrorAll += d
			c.MaxLoad += d
			if k == 0 {
				c.P99.Error[1] = math.NaN() // an empty bin in one seed
			}
			rows = append(rows, c)
		}
	}
	return rows
}

// Combined rows hold means and Student-t half-widths over the seeds: for
// errors e±0.01 and e (three seeds) the sample sd is 0.01 and the 95%
// half-width t(2)·0.01/√3 = 4.302653·0.01/√3.
func TestCombineSeeds(t *testing.T) {
	rows := seededRows(5, 3)
	out, err := CombineSeeds(append(rows, synthSummaries(9, 1)...), 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 6 {
		t.Fatalf("%d combined rows, want 5 families and 1 single run", len(out))
	}
	wantHalf := 4.302653 * 0.01 / math.Sqrt(3)
	for i, c := range out[:5] {
		base := rows[3*i+1] // the middle seed has the unshifted values
		if c.Seeds != 3 || c.ScenarioID != c.Family || c.Level != 0.95 {
			t.Errorf("row %d: seeds %d id %s family %s level %v", i, c.Seeds, c.ScenarioID, c.Family, c.Level)
		}
		if math.Abs(c.P99.ErrorAll-base.P99.ErrorAll) > 1e-12 || math.Abs(c.Half.ErrorAll-wantHalf) > 1e-6 {
			t.Errorf("row %d: error %v ± %v, want %v ± %v", i, c.P99.ErrorAll, c.Half.ErrorAll, base.P99.ErrorAll, wantHalf)
		}
		if math.Abs(c.Half.Error[0]-wantHalf) > 1e-6 || c.Half.Est[0] != 0 || math.Abs(c.MaxLoad-base.MaxLoad) > 1e-12 {
			t.Errorf("row %d: bin 0 half %v (want %v), est half %v (want 0), load %v", i, c.Half.Error[0], wantHalf, c.Half.Est[0], c.MaxLoad)
		}
		// Bin 1 has two finite values, equal: mean kept, half-width 0.
		if c.P99.Error[1] != base.P99.Error[1] || c.Half.Error[1] != 0 {
			t.Errorf("row %d: bin 1 %v ± %v from two equal seeds", i, c.P99.Error[1], c.Half.Error[1])
		}
	}
	if out[5].Seeds != 0 || out[5].ScenarioID != "s000" {
		t.Errorf("a single run changed: %+v", out[5])
	}
	if _, err := CombineSeeds(rows, 1); err == nil {
		t.Error("level 1: no error")
	}
}

// A summary frame with combined rows carries the CI columns and reads
// back equal; the error figures draw the bars.
func TestCombinedSummaryFrameAndFigures(t *testing.T) {
	rows, err := CombineSeeds(append(seededRows(30, 4), synthSummaries(9, 3)...), 0.9)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := SummaryTable(rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{ColFamily, ColSeeds, ColLevel, "p99_error_ci", "p99_error_ci[<=1KB]", "baseline_p99_ci[>100KB]"} {
		if _, err := tab.Column(name); err != nil {
			t.Errorf("column %s: %v", name, err)
		}
	}
	got := summariesViaParquet(t, tab)
	for i := range rows {
		want := rows[i]
		want.P99.Count, want.P99.BaseCount = nil, nil
		if fmt.Sprintf("%+v", got[i]) != fmt.Sprintf("%+v", want) {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, got[i], want)
		}
	}
	for name, make := range map[string]func() (*Figure, error){
		"error_cdf_seeds":     func() (*Figure, error) { return ErrorCDF(rows, "parsimon", ParsimonLoadEdges()) },
		"error_by_load_seeds": func() (*Figure, error) { return ErrorByLoad(rows, "parsimon") },
	} {
		f, err := make()
		if err != nil {
			t.Fatal(err)
		}
		saveBoth(t, f, name)
	}
	if _, err := ErrorByLoad(rows, "m3"); err == nil {
		t.Error("ErrorByLoad without rows: no error")
	}
}
