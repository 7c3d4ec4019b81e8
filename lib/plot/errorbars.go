package plot

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tailscope/tailscope/lib/metrics"
)

// ciPoint is a value and the half-width of its confidence interval.
type ciPoint struct{ x, half float64 }

// ciBars draws confidence intervals of half-width halves[i] around pts:
// vertical bars, or horizontal ones (a CI of an x value).
func ciBars(pts plotter.XYs, halves []float64, vertical bool) plot.Plotter {
	errs := make(plotter.Errors, len(halves))
	for i, h := range halves {
		if math.IsNaN(h) {
			h = 0
		}
		errs[i].Low, errs[i].High = h, h
	}
	style := draw.LineStyle{Color: color.Gray{Y: 0x40}, Width: vg.Points(0.9)}
	if vertical {
		return &plotter.YErrorBars{XYs: pts, YErrors: plotter.YErrors(errs), LineStyle: style, CapWidth: vg.Points(4)}
	}
	return &plotter.XErrorBars{XYs: pts, XErrors: plotter.XErrors(errs), LineStyle: style, CapWidth: vg.Points(4)}
}

func sortedCopy(xs []float64) []float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s
}

// MinIntervalSeeds is the fewest seeds whose confidence intervals the
// figures draw: over fewer, Student's t makes a 95% interval wider than
// the effects it should bound (12.7 standard errors at two seeds, 2.8 at
// five). Scenarios run with fewer seeds show their mean alone.
const MinIntervalSeeds = 5

// ErrorByLoad plots the overall p99-slowdown error of estimator against
// the measured max load, one point per scenario; scenarios run with
// several seeds (CombineSeeds) show their mean error, with the confidence
// interval as a vertical bar from MinIntervalSeeds seeds on. Dotted lines mark ±10% and 0.
func ErrorByLoad(rows []metrics.Summary, estimator string) (*Figure, error) {
	var pts plotter.XYs
	var halves []float64
	level := 0.0
	for _, r := range rows {
		if r.Estimator != estimator || math.IsNaN(r.P99.ErrorAll) {
			continue
		}
		pts = append(pts, plotter.XY{X: 100 * r.MaxLoad, Y: 100 * r.P99.ErrorAll})
		h := math.NaN()
		if r.Seeds >= MinIntervalSeeds {
			h, level = 100*r.Half.ErrorAll, r.Level
		}
		halves = append(halves, h)
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("plot: ErrorByLoad: no summary rows with a p99 error for estimator %q", estimator)
	}
	title := fmt.Sprintf("p99 slowdown error of %s, %d scenarios", estimator, len(pts))
	if level > 0 {
		title += fmt.Sprintf(" (bars: %.0f%% CI over seeds)", 100*level)
	}
	p := newPlot(title, "max load (%)", "p99 error (%)")
	p.X.Tick.Marker, p.Y.Tick.Marker = linearTicks{}, linearTicks{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, q := range pts {
		h := halves[i]
		if math.IsNaN(h) {
			h = 0
		}
		lo, hi = min(lo, q.Y-h), max(hi, q.Y+h)
	}
	lo, hi = min(lo, -10)-2, max(hi, 10)+2
	p.Y.Min, p.Y.Max = lo, hi
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for _, q := range pts {
		xlo, xhi = min(xlo, q.X), max(xhi, q.X)
	}
	xlo, xhi = xlo-2, xhi+2
	for _, y := range []float64{-10, 0, 10} {
		refLine(p, xlo, y, xhi, y)
	}
	s, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: seriesColor(0), Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
	p.Add(s, ciBars(pts, halves, true))
	return Single(p), nil
}
