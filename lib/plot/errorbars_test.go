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
