package plot

import (
	"testing"

	"github.com/tailscope/tailscope/lib/internal/synth"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/summary"
)

// Rows that combine seeds draw their confidence intervals as bars.
func TestCombinedFigures(t *testing.T) {
	rows, err := summary.CombineSeeds(append(synth.Seeded(30, 4), synth.Summaries(9, 3)...), 0.9)
	if err != nil {
		t.Fatal(err)
	}
	for name, make := range map[string]func() (*Figure, error){
		"error_cdf_seeds":     func() (*Figure, error) { return ErrorCDF(rows, "parsimon", metrics.ParsimonLoadEdges()) },
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

// Intervals over fewer than MinIntervalSeeds seeds are not drawn: a 50%
// half-width stretches the y axis only from MinIntervalSeeds seeds on.
func TestErrorByLoadIntervalsNeedSeeds(t *testing.T) {
	for _, c := range []struct {
		seeds int
		bars  bool
	}{{2, false}, {MinIntervalSeeds - 1, false}, {MinIntervalSeeds, true}} {
		rows := []metrics.Summary{
			{Estimator: "m3", MaxLoad: 0.3, Seeds: c.seeds, Level: 0.95, P99: metrics.Comparison{ErrorAll: 0.05}, Half: metrics.Comparison{ErrorAll: 0.5}},
			{Estimator: "m3", MaxLoad: 0.6, Seeds: c.seeds, Level: 0.95, P99: metrics.Comparison{ErrorAll: -0.02}, Half: metrics.Comparison{ErrorAll: 0.5}},
		}
		f, err := ErrorByLoad(rows, "m3")
		if err != nil {
			t.Fatal(err)
		}
		if got := f.Panels[0][0].Y.Max >= 50; got != c.bars {
			t.Errorf("%d seeds: y axis up to %g, bars drawn %v, want %v", c.seeds, f.Panels[0][0].Y.Max, got, c.bars)
		}
	}
}
