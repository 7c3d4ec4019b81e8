package summary

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/internal/synth"
	"github.com/tailscope/tailscope/lib/metrics"
)

// summariesViaParquet writes a summary frame as Parquet and reads its rows
// back.
func summariesViaParquet(t *testing.T, tab *frame.Table) []metrics.Summary {
	t.Helper()
	path := filepath.Join(t.TempDir(), "summary.parquet")
	if err := frame.WriteTable(path, tab); err != nil {
		t.Fatal(err)
	}
	back, err := frame.ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Rows(back)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A summary frame survives Parquet: the rows read back equal the rows
// written (bin flow counts are not stored).
func TestTableRoundTrip(t *testing.T) {
	rows := synth.Summaries(8, 12)
	tab, err := Table(rows)
	if err != nil {
		t.Fatal(err)
	}
	got := summariesViaParquet(t, tab)
	if len(got) != len(rows) {
		t.Fatalf("%d rows back, want %d", len(got), len(rows))
	}
	for i := range rows {
		want := rows[i]
		want.P99.Count, want.P99.BaseCount = nil, nil
		if fmt.Sprintf("%+v", got[i]) != fmt.Sprintf("%+v", want) {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, got[i], want)
		}
	}
	mixed := append(synth.Summaries(1, 2), metrics.Summary{P99: metrics.Compare(nil, nil, metrics.NS3Bins(), 99)})
	if _, err := Table(mixed); err == nil || !strings.Contains(err.Error(), "has bins") {
		t.Errorf("rows with different bins: %v", err)
	}
	if _, err := Rows(frame.RecordsTable(nil, frame.Meta{})); err == nil || !strings.Contains(err.Error(), "not a summary frame") {
		t.Errorf("records frame read as summaries: %v", err)
	}
}

func TestTopErrorsMarkdown(t *testing.T) {
	rows := synth.Summaries(5, 50)
	rows[17].P99.ErrorAll = -0.9 // the largest magnitude, an underestimate
	md := Markdown(TopErrors(rows, "parsimon", 5))
	lines := strings.Split(strings.TrimSuffix(md, "\n"), "\n")
	if len(lines) != 7 {
		t.Fatalf("Markdown has %d lines, want header, separator and 5 rows:\n%s", len(lines), md)
	}
	if lines[0] != "| Error | Max load | Matrix | Sizes | Oversub | σ | Scenario |" || lines[1] != "| --- | --- | --- | --- | --- | --- | --- |" {
		t.Errorf("header:\n%s\n%s", lines[0], lines[1])
	}
	if !strings.HasPrefix(lines[2], "| -90.0% |") || !strings.HasSuffix(lines[2], "| s017 |") {
		t.Errorf("first row %q, want scenario s017 at -90.0%%", lines[2])
	}
	prev := math.Inf(1)
	for _, l := range lines[2:] {
		var e float64
		fmt.Sscanf(strings.TrimPrefix(strings.Fields(l)[1], "+"), "%g", &e)
		if math.Abs(e) > prev {
			t.Errorf("rows not ordered by |error|: %q", l)
		}
		prev = math.Abs(e)
	}
	// A row combining seeds shows its interval; a single run shows none.
	rows[17].Seeds, rows[17].Half.ErrorAll = 2, 0.125
	if md := Markdown(TopErrors(rows, "parsimon", 2)); !strings.Contains(md, "| -90.0% ± 12.5% |") || strings.Count(md, "±") != 1 {
		t.Errorf("seeds-combined row without its interval, or a single run with one:\n%s", md)
	}
	num := &frame.Table{Columns: []frame.Column{frame.Float64Column("x", []float64{1.23456}), frame.StringColumn("s|t", []string{"a|b"})}}
	if got, want := Markdown(num), "| x | s\\|t |\n| ---: | --- |\n| 1.235 | a\\|b |\n"; got != want {
		t.Errorf("Markdown:\n%s\nwant\n%s", got, want)
	}
}

func TestComparisonTable(t *testing.T) {
	rows := synth.Summaries(2, 3)
	m3 := rows[0]
	m3.Estimator, m3.WallSeconds = "m3", 1
	m3.P99.All, m3.P99.ErrorAll = m3.P99.BaseAll*0.99, -0.01
	tab := ComparisonTable(append(rows, m3))
	if tab.Len() != 3 {
		t.Fatalf("%d rows, want one per scenario", tab.Len())
	}
	scen, _ := tab.Strings("Scenario")
	speed, _ := tab.Strings("m3 speed-up")
	errs, _ := tab.Strings("m3 error")
	for i, s := range scen {
		if s == m3.ScenarioID {
			if want := fmt.Sprintf("%.0fx", m3.BaseWallSeconds); speed[i] != want || errs[i] != "-1.0%" {
				t.Errorf("m3 on %s: speed-up %q error %q, want %q and -1.0%%", s, speed[i], errs[i], want)
			}
		} else if speed[i] != "" {
			t.Errorf("m3 did not run %s but shows speed-up %q", s, speed[i])
		}
	}
	load, _ := tab.Strings("Max load")
	for i := 1; i < len(load); i++ {
		if load[i] < load[i-1] {
			t.Errorf("rows not ordered by max load: %v", load)
		}
	}
}

// ErrorStats on hand-made rows: two estimators, errors chosen so that each
// statistic has a known value per load range.
func TestErrorStats(t *testing.T) {
	row := func(est string, load, err, wall float64) metrics.Summary {
		r := metrics.Summary{Estimator: est, Baseline: "packetsim", MaxLoad: load, WallSeconds: wall, BaseWallSeconds: 10}
		r.P99.ErrorAll = err
		return r
	}
	rows := []metrics.Summary{
		row("parsimon", 0.30, 0.05, 20), row("parsimon", 0.35, 0.20, 20),
		row("parsimon", 0.70, 0.40, 20), row("parsimon", 0.80, -0.08, 20),
		row("m3", 0.30, -0.02, 1), row("m3", 0.60, math.NaN(), 1),
		row("packetsim", 0.30, 0, 10), // the baseline's own row is left out
	}
	tab := ErrorStats(rows, []float64{0.5})
	got := Markdown(tab)
	want := `| Estimator | Max load | Scenarios | Within 10% | Median \|error\| | Mean \|error\| | Max \|error\| | Over | Speed-up |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
| m3 | all | 1 | 100.0% | 2.0% | 2.0% | 2.0% | 0.0% | 10x |
| m3 | <= 50.0% | 1 | 100.0% | 2.0% | 2.0% | 2.0% | 0.0% | 10x |
| parsimon | all | 4 | 50.0% | 14.0% | 18.2% | 40.0% | 75.0% | 0.50x |
| parsimon | <= 50.0% | 2 | 50.0% | 12.5% | 12.5% | 20.0% | 100.0% | 0.50x |
| parsimon | > 50.0% | 2 | 50.0% | 24.0% | 24.0% | 40.0% | 50.0% | 0.50x |
`
	if got != want {
		t.Errorf("ErrorStats:\n%s\nwant\n%s", got, want)
	}
}

// Combined rows hold means and Student-t half-widths over the seeds: for
// errors e±0.01 and e (three seeds) the sample sd is 0.01 and the 95%
// half-width t(2)·0.01/√3 = 4.302653·0.01/√3.
func TestCombineSeeds(t *testing.T) {
	rows := synth.Seeded(5, 3)
	out, err := CombineSeeds(append(rows, synth.Summaries(9, 1)...), 0.95)
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
// back equal.
func TestCombinedFrame(t *testing.T) {
	rows, err := CombineSeeds(append(synth.Seeded(30, 4), synth.Summaries(9, 3)...), 0.9)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Table(rows)
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
}
