package plot

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tailscope/tailscope/lib/metrics"
)

// cdfPoints is how many points a CDF curve keeps: enough for a smooth
// step, few enough that an SVG of two million flows stays small.
const cdfPoints = 600

// cdfCurve samples the empirical CDF of xs at cdfPoints levels from lo to
// 1: the point (x, q) has x the smallest value whose CDF reaches q, so the
// curve is the step function's upper-left corners.
func cdfCurve(xs []float64, lo float64) plotter.XYs {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	pts := make(plotter.XYs, 0, cdfPoints+1)
	for j := 0; j <= cdfPoints; j++ {
		q := lo + (1-lo)*float64(j)/cdfPoints
		k := int(math.Ceil(q*float64(n))) - 1
		k = min(max(k, 0), n-1)
		pts = append(pts, plotter.XY{X: s[k], Y: q})
	}
	return pts
}

// lineStyle is the i-th series' style: colour and dash pattern both vary,
// so curves stay apart in greyscale print.
func lineStyle(i int) draw.LineStyle {
	return draw.LineStyle{Color: seriesColor(i), Width: vg.Points(1.8), Dashes: plotutil.Dashes(i)}
}

// refLine adds a dotted grey reference line from (x0, y0) to (x1, y1).
func refLine(p *plot.Plot, x0, y0, x1, y1 float64) {
	l, err := plotter.NewLine(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y1}})
	if err != nil {
		panic(err) // two finite points always make a line
	}
	l.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x80}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(2), vg.Points(3)}}
	p.Add(l)
}

// SlowdownCDF draws, for each size bin, the CDFs of FCT slowdown of every
// record set (one per estimator, named by names) on a logarithmic slowdown
// axis, zoomed on the tail: the y axis runs from tail (e.g. 0.9; 0 shows
// the whole CDF) to 1, with a dotted line at the 99th percentile, as in
// Parsimon's Fig. 7 and 10. Panels are laid out two to a row (four
// would shrink to unreadable text at a notebook's width); a bin
// without flows in any set is left out.
func SlowdownCDF(names []string, sets [][]metrics.Record, bins metrics.Bins, tail float64) (*Figure, error) {
	if len(names) != len(sets) || len(sets) == 0 {
		return nil, fmt.Errorf("plot: SlowdownCDF needs one name per record set (%d names, %d sets)", len(names), len(sets))
	}
	if !(tail >= 0 && tail < 1) {
		return nil, fmt.Errorf("plot: tail must be in [0, 1), got %g", tail)
	}
	if err := bins.Check(); err != nil {
		return nil, err
	}
	byBin := make([][][]float64, len(sets))
	for i, recs := range sets {
		byBin[i] = metrics.SlowdownsByBin(recs, bins)
		for _, r := range recs {
			if !(r.Slowdown > 0) || math.IsInf(r.Slowdown, 0) {
				return nil, fmt.Errorf("plot: %s: flow %d has slowdown %g; a log axis needs positive finite values", names[i], r.FlowID, r.Slowdown)
			}
		}
	}
	var panels []*plot.Plot
	for b, label := range bins.Labels {
		counts := ""
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range sets {
			xs := byBin[i][b]
			if len(xs) == 0 {
				continue
			}
			if counts == "" {
				counts = fmt.Sprintf(" (%d flows)", len(xs))
			}
			pts := cdfCurve(xs, tail)
			lo, hi = min(lo, pts[0].X), max(hi, pts[len(pts)-1].X)
		}
		if counts == "" {
			continue
		}
		title := "size " + label + counts
		if bins.Len() == 1 {
			title = "all flows" + counts
		}
		p := newPlot(title, "FCT slowdown (log scale)", "CDF")
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
		if hi <= lo*1.05 { // keep a visible x range when the curves are flat
			lo, hi = lo/1.1, hi*1.1
		}
		p.X.Min, p.X.Max = lo, hi
		p.Y.Min, p.Y.Max = tail, 1
		p.Y.Tick.Marker = cdfTicks{}
		if tail < 0.99 {
			refLine(p, lo, 0.99, hi, 0.99)
		}
		for i := range sets {
			xs := byBin[i][b]
			if len(xs) == 0 {
				continue
			}
			l, err := plotter.NewLine(cdfCurve(xs, tail))
			if err != nil {
				return nil, fmt.Errorf("plot: %s, bin %s: %w", names[i], label, err)
			}
			l.LineStyle = lineStyle(i)
			p.Add(l)
			p.Legend.Add(names[i], l)
		}
		p.Legend.Top, p.Legend.Left = false, false
		p.Legend.XOffs, p.Legend.YOffs = -vg.Millimeter*2, vg.Millimeter*2
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return nil, fmt.Errorf("plot: SlowdownCDF: no records to plot")
	}
	return &Figure{Panels: grid(panels, 2)}, nil
}

// grid lays panels out at most cols to a row.
func grid(panels []*plot.Plot, cols int) [][]*plot.Plot {
	var rows [][]*plot.Plot
	for len(panels) > cols {
		rows, panels = append(rows, panels[:cols]), panels[cols:]
	}
	return append(rows, panels)
}

// loadBin is the index of the load bin of load: (-inf, e0], (e0, e1], ...
func loadBin(edges []float64, load float64) int {
	return sort.Search(len(edges), func(i int) bool { return load <= edges[i] })
}

// ErrorCDF draws the CDFs of the overall p99-slowdown error of estimator
// across the summary rows (one per scenario), one curve per bin of measured
// max load split at edges (metrics.ParsimonLoadEdges for Parsimon's Fig. 8) plus
// one over all scenarios. Each legend entry gives the bin's max-load range
// and, as in the paper, the largest top-10% mean load in it; dotted lines
// mark +-10%. Rows that combine MinIntervalSeeds seeds or more
// (CombineSeeds) get horizontal error bars: each scenario's mean error with its confidence
// interval, at its place on the curve over all scenarios.
func ErrorCDF(rows []metrics.Summary, estimator string, edges []float64) (*Figure, error) {
	for i := 1; i < len(edges); i++ {
		if edges[i] <= edges[i-1] {
			return nil, fmt.Errorf("plot: load edges must increase, got %v", edges)
		}
	}
	type group struct {
		errs          []float64
		lo, hi, top10 float64
	}
	groups := make([]group, len(edges)+1)
	for i := range groups {
		groups[i].lo, groups[i].hi = math.Inf(1), math.Inf(-1)
	}
	var all []float64
	var bars []ciPoint // (error, half-width) of combined rows
	level := 0.0
	for _, r := range rows {
		if r.Estimator != estimator || math.IsNaN(r.P99.ErrorAll) {
			continue
		}
		if r.Seeds >= MinIntervalSeeds && !math.IsNaN(r.Half.ErrorAll) {
			bars = append(bars, ciPoint{100 * r.P99.ErrorAll, 100 * r.Half.ErrorAll})
			level = r.Level
		}
		g := &groups[loadBin(edges, r.MaxLoad)]
		e := 100 * r.P99.ErrorAll
		g.errs, all = append(g.errs, e), append(all, e)
		g.lo, g.hi, g.top10 = min(g.lo, r.MaxLoad), max(g.hi, r.MaxLoad), max(g.top10, r.Top10Load)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("plot: ErrorCDF: no summary rows with a p99 error for estimator %q", estimator)
	}
	p := newPlot(fmt.Sprintf("p99 slowdown error of %s, %d scenarios", estimator, len(all)), "p99 error (%)", "CDF")
	p.Y.Min, p.Y.Max = 0, 1
	xlo, xhi := math.Inf(1), math.Inf(-1)
	for _, e := range all {
		xlo, xhi = min(xlo, e), max(xhi, e)
	}
	xlo, xhi = min(xlo, -10)-2, max(xhi, 10)+2
	p.X.Min, p.X.Max = xlo, xhi
	p.X.Tick.Marker, p.Y.Tick.Marker = linearTicks{}, linearTicks{}
	refLine(p, -10, 0, -10, 1)
	refLine(p, 10, 0, 10, 1)
	for i, g := range groups {
		if len(g.errs) == 0 {
			continue
		}
		l, err := plotter.NewLine(cdfCurve(g.errs, 0))
		if err != nil {
			return nil, err
		}
		l.LineStyle = lineStyle(i)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("max load %s (top-10%% <= %.0f%%), n=%d", percentRange(g.lo, g.hi), 100*g.top10, len(g.errs)), l)
	}
	l, err := plotter.NewLine(cdfCurve(all, 0))
	if err != nil {
		return nil, err
	}
	l.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1.2)}
	p.Add(l)
	p.Legend.Add(fmt.Sprintf("all, n=%d", len(all)), l)
	if len(bars) > 0 {
		// The k-th smallest error sits at height k/n on the curve.
		sort.Slice(bars, func(i, j int) bool { return bars[i].x < bars[j].x })
		pts := make(plotter.XYs, len(bars))
		halves := make([]float64, len(bars))
		sorted := sortedCopy(all)
		for i, b := range bars {
			pts[i] = plotter.XY{X: b.x, Y: float64(sort.SearchFloat64s(sorted, b.x)+1) / float64(len(all))}
			halves[i] = b.half
			p.X.Min, p.X.Max = min(p.X.Min, b.x-b.half-1), max(p.X.Max, b.x+b.half+1)
		}
		p.Add(ciBars(pts, halves, false))
		p.Title.Text += fmt.Sprintf("; bars: %.0f%% CI over seeds", 100*level)
	}
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.XOffs, p.Legend.YOffs = -vg.Millimeter*2, vg.Millimeter*2
	return &Figure{Panels: [][]*plot.Plot{{p}}, Width: 6.5 * vg.Inch, Height: 4.5 * vg.Inch}, nil
}

// cdfTicks are linearTicks plus a labelled tick at 0.99, the percentile the
// papers read off a tail zoom.
type cdfTicks struct{}

// Ticks implements plot.Ticker.
func (cdfTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := linearTicks{}.Ticks(lo, hi)
	if lo >= 0.99 || hi < 0.99 || hi-lo >= 0.5 {
		return ts
	}
	for i, t := range ts {
		if math.Abs(t.Value-0.99) < 1e-9 {
			ts[i].Label = "0.99"
			return ts
		}
	}
	return append(ts, plot.Tick{Value: 0.99, Label: "0.99"})
}

// percentRange writes the fractions lo and hi as a range of whole
// percents, or as one percent when they round to the same ("36%", not
// "36-36%").
func percentRange(lo, hi float64) string {
	a, b := fmt.Sprintf("%.0f", 100*lo), fmt.Sprintf("%.0f", 100*hi)
	if a == b {
		return a + "%"
	}
	return a + "-" + b + "%"
}
