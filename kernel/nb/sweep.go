package nb

import (
	"os"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/summary"
)

// Sweep is a sweep's results in the book's directory.
type Sweep struct {
	experiment.Report
	Dir string
	// Bins are the size bins of Summaries (metrics.ParsimonBins unless
	// set).
	Bins metrics.Bins
}

// Sweep runs every named estimator on every spec as a resumable sweep
// (experiment.Sweep) in dir, a directory under the book's ("" for the
// book's own), Workers tasks at a time, with one progress line. Results already there are kept and not redone, so
// re-running the cell only reads them back; an interrupt (Context) stops
// the sweep and keeps what finished. Failed tasks stop the cell after the
// others ran.
func (b *Book) Sweep(dir string, specs []scenario.Spec, names ...string) *Sweep {
	dir = b.Path(dir)
	tasks, err := experiment.Tasks(specs, names, nil)
	Check(err)
	line := NewLine(os.Stdout)
	p := line.Reporter("sweep")
	// The tasks' own progress (Parsimon's link simulations) would fight
	// the sweep's for the line.
	ctx := estimator.WithProgress(Context(), progress.Func(func(int, int, string) {}))
	rep, err := experiment.Sweep(ctx, dir, tasks, experiment.Local{Workers: b.Workers}, p)
	line.Close()
	Check(err)
	return &Sweep{Report: rep, Dir: dir, Bins: metrics.ParsimonBins()}
}

// Summaries are one row per scenario and estimator but baseline: the
// scenario's parameters and loads, the p-th percentile slowdown per size
// bin against baseline's, and wall times (summary.SummarizeDir).
func (s *Sweep) Summaries(baseline string, p float64) []metrics.Summary {
	rows, err := summary.SummarizeDir(s.Dir, baseline, s.Bins, p, nil)
	Check(err)
	return rows
}
