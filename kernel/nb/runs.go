package nb

import (
	"fmt"
	"html"
	"os"
	"sort"
	"strings"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/summary"
)

// Build builds the scenario of spec and prints its flow count, time span
// and link loads, the facts to check before running estimators on it.
func (b *Book) Build(spec scenario.Spec) *scenario.Scenario {
	sc, err := scenario.Build(spec)
	Check(err)
	loads, err := metrics.LinkLoads(sc.Net, sc.Flows)
	Check(err)
	fmt.Fprintf(os.Stdout, "%s: %d flows over %.1f ms on %s; max link load %.3f, top-10%% %.3f\n",
		sc.Spec.Name, len(sc.Flows), float64(loads.SpanNs)/1e6, sc.Net.Name, loads.Max, loads.Top10)
	return sc
}

// Estimator is one run of RunEach: an estimator, its options as JSON (""
// for its defaults) and the label its frame and curves get (the
// estimator's name when empty).
type Estimator struct {
	Label, Name, Options string
}

// Runs is the results of estimators on one scenario, each written as the
// record frame <label>.parquet in the book's directory. A cell ending in
// Runs shows a table of them.
type Runs struct {
	Scenario *scenario.Scenario
	Labels   []string
	Results  []*estimator.Result
	// Bins are the size bins of the runs' figures and comparisons
	// (metrics.ParsimonBins unless set).
	Bins metrics.Bins
	book *Book
}

// Run runs the named estimators with their default options on sc, one
// after the other; see RunEach.
func (b *Book) Run(sc *scenario.Scenario, names ...string) *Runs {
	ests := make([]Estimator, len(names))
	for i, n := range names {
		ests[i] = Estimator{Name: n}
	}
	return b.RunEach(sc, ests)
}

// RunEach runs each of ests on sc and writes its records as
// <label>.parquet. The runs show their progress on one line and stop
// when the kernel is interrupted (Context); an unknown estimator, bad
// options or a failed run stop the cell with the estimator's message.
func (b *Book) RunEach(sc *scenario.Scenario, ests []Estimator) *Runs {
	if sc == nil {
		Check(fmt.Errorf("no scenario to run (build one with Build)"))
	}
	r := &Runs{Scenario: sc, Bins: metrics.ParsimonBins(), book: b}
	for _, e := range ests {
		Check(estimator.Check(e.Name))
		label := e.Label
		if label == "" {
			label = e.Name
		}
		if r.index(label) >= 0 {
			Check(fmt.Errorf("label %q appears twice", label))
		}
		r.Labels = append(r.Labels, label)
	}
	// What the accuracy atlas expects of each answer, and the
	// estimator's own diagnostics, print beside the results once the
	// progress line is done.
	var notes []string
	defer func() {
		for _, n := range notes {
			fmt.Fprintln(os.Stdout, n)
		}
	}()
	line := NewLine(os.Stdout)
	defer line.Close()
	for i, e := range ests {
		line.Prefix = fmt.Sprintf("%s (%d/%d): ", r.Labels[i], i+1, len(ests))
		ctx := estimator.WithProgress(Context(), line.Reporter("running"))
		line.Show("running")
		res, err := estimator.Run(ctx, e.Name, sc, e.Options)
		Check(err)
		res.Estimator = r.Labels[i]
		Check(res.Write(b.Path(r.Labels[i]+".parquet"), sc))
		line.Show(fmt.Sprintf("%d records in %.2f s", len(res.Records), res.WallSeconds))
		r.Results = append(r.Results, res)
		notes = append(notes, estimator.ExpectationLines(res)...)
	}
	line.Prefix = ""
	line.Show(fmt.Sprintf("%d runs on %s written to %s", len(ests), sc.Spec.Name, b.Dir))
	return r
}

func (r *Runs) index(label string) int {
	for i, l := range r.Labels {
		if l == label {
			return i
		}
	}
	return -1
}

// Result is the result of the run labelled label.
func (r *Runs) Result(label string) *estimator.Result {
	i := r.index(label)
	if i < 0 || i >= len(r.Results) {
		Check(fmt.Errorf("no run labelled %q (runs: %s)", label, strings.Join(r.Labels, ", ")))
	}
	return r.Results[i]
}

// Records are the records of the run labelled label.
func (r *Runs) Records(label string) []metrics.Record { return r.Result(label).Records }

// SlowdownCDF draws the FCT-slowdown CDFs of every run per size bin,
// zoomed on the quantiles above tail (0 for the whole CDF), as
// slowdown_cdf.png.
func (r *Runs) SlowdownCDF(tail float64) *Figure {
	sets := make([][]metrics.Record, len(r.Results))
	for i, res := range r.Results {
		sets[i] = res.Records
	}
	fig, err := plot.SlowdownCDF(r.Labels, sets, r.Bins, tail)
	return r.book.Figure("slowdown_cdf", fig, err)
}

// Compare is the p-th percentile slowdown per size bin of the run
// labelled label against the run labelled base.
func (r *Runs) Compare(label, base string, p float64) metrics.Comparison {
	return metrics.Compare(r.Records(label), r.Records(base), r.Bins, p)
}

// Summaries summarizes every run but base against base, at percentile p
// per size bin, from the frames written (so the rows carry the frames'
// provenance, as those of a sweep do).
func (r *Runs) Summaries(base string, p float64) []metrics.Summary {
	r.Result(base)
	baseRecs, baseMeta, err := frame.ReadRecords(r.book.Path(base + ".parquet"))
	Check(err)
	var rows []metrics.Summary
	for _, l := range r.Labels {
		if l == base {
			continue
		}
		recs, meta, err := frame.ReadRecords(r.book.Path(l + ".parquet"))
		Check(err)
		row, err := summary.Summarize(recs, meta, baseRecs, baseMeta, r.Bins, p)
		Check(err)
		rows = append(rows, row)
	}
	return rows
}

// HTML shows one row per run: label, estimator options, records, wall
// time and the estimator's own figures.
func (r *Runs) HTML() string {
	var b strings.Builder
	b.WriteString("<table>\n<tr><th>run</th><th>options</th><th>records</th><th>wall s</th><th>details</th></tr>\n")
	for i, res := range r.Results {
		fmt.Fprintf(&b, "<tr><td>%s</td><td><code>%s</code></td><td>%d</td><td>%.2f</td><td>%s</td></tr>\n",
			html.EscapeString(r.Labels[i]), html.EscapeString(res.Options), len(res.Records), res.WallSeconds,
			html.EscapeString(details(res)))
	}
	b.WriteString("</table>\n")
	return b.String()
}

// details is a result's extra figures and timings, sorted by name.
func details(res *estimator.Result) string {
	var parts []string
	for _, k := range sortedKeys(res.Extra) {
		parts = append(parts, k+" "+res.Extra[k])
	}
	for _, k := range sortedKeys(res.Timings) {
		parts = append(parts, fmt.Sprintf("%s %.2f", k, res.Timings[k]))
	}
	return strings.Join(parts, ", ")
}

// sortedKeys are m's keys in order (unexported, so its type parameter
// stays out of the interpreter's bindings).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
