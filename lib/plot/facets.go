package plot

import (
	"fmt"
	"math"
	"strconv"

	"github.com/tailscope/tailscope/lib/metrics"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// facet names one scenario parameter and how to read its value from a row.
type facet struct {
	title string
	value func(metrics.Params) string
}

var facets = []facet{
	{"traffic matrix", func(p metrics.Params) string { return p.Matrix }},
	{"flow sizes", func(p metrics.Params) string { return p.Sizes }},
	{"oversubscription", func(p metrics.Params) string {
		return strconv.FormatFloat(p.Oversub, 'g', -1, 64) + ":1"
	}},
	{"burstiness", func(p metrics.Params) string { return "σ=" + strconv.FormatFloat(p.Sigma, 'g', -1, 64) }},
}

// ErrorViolins draws the distributions of estimator's overall p99-slowdown
// error (in %) across the summary rows whose measured max load lies in
// (loadLo, loadHi], as violins faceted by traffic matrix, flow-size
// distribution, oversubscription and burstiness: Parsimon's Fig. 9a
// (loadHi 0.5) and 9b (loadLo 0.5, loadHi 1). A facet whose rows lack the
// parameter (an empty matrix, zero oversubscription) is left out.
func ErrorViolins(rows []metrics.Summary, estimator string, loadLo, loadHi float64) (*Figure, error) {
	var sel []metrics.Summary
	for _, r := range rows {
		if r.Estimator == estimator && r.MaxLoad > loadLo && r.MaxLoad <= loadHi && !math.IsNaN(r.P99.ErrorAll) {
			sel = append(sel, r)
		}
	}
	if len(sel) == 0 {
		return nil, fmt.Errorf("plot: ErrorViolins: no rows of estimator %q with max load in (%g, %g]", estimator, loadLo, loadHi)
	}
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, r := range sel {
		ylo, yhi = min(ylo, 100*r.P99.ErrorAll), max(yhi, 100*r.P99.ErrorAll)
	}
	pad := max(1, 0.05*(yhi-ylo))
	var panels []*plot.Plot
	for _, f := range facets {
		groups := map[string][]float64{}
		for _, r := range sel {
			v := f.value(r.Params)
			if v == "" || v == "0:1" || v == "σ=0" {
				continue
			}
			groups[v] = append(groups[v], 100*r.P99.ErrorAll)
		}
		if len(groups) == 0 {
			continue
		}
		ylabel := ""
		if len(panels) == 0 {
			ylabel = "p99 error (%)"
		}
		p := newPlot(f.title, "", ylabel)
		keys := sortedKeys(groups)
		names := make([]string, len(keys))
		for i, k := range keys {
			v, err := NewViolin(float64(i), groups[k])
			if err != nil {
				return nil, err
			}
			p.Add(v)
			names[i] = fmt.Sprintf("%s\nn=%d", k, len(groups[k]))
		}
		p.NominalX(names...)
		p.Y.Min, p.Y.Max = min(ylo, 0)-pad, yhi+pad
		p.Y.Tick.Marker = linearTicks{}
		refLine(p, -0.5, 0, float64(len(keys))-0.5, 0)
		panels = append(panels, p)
	}
	title := fmt.Sprintf("p99 slowdown error of %s, max load in (%.0f%%, %.0f%%], %d scenarios",
		estimator, 100*loadLo, 100*min(loadHi, 1), len(sel))
	return &Figure{Title: title, Panels: [][]*plot.Plot{panels}, Height: 4 * vg.Inch, Width: vg.Length(len(panels)) * 3.6 * vg.Inch}, nil
}
