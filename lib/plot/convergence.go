package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CIMetric is one metric of a model-free estimation for CITrace: the
// relative half-width of its confidence interval after N trials, with the
// real trial count and the forecast to mark (0: none).
type CIMetric struct {
	Name     string
	Title    string    // the panel's title, e.g. the metric with its final interval
	N        []int     // trials so far
	Relative []float64 // half-width / |mean| after N[i] trials
	Trials   int       // the real trial count to the margin
	Forecast int       // the exploratory stage's forecast
}

// CIRow is one labelled final interval for CIByLabel.
type CIRow struct {
	Label      string
	Mean, Half float64
	Trials     int // trials run to the margin (or run at all when it never converged)
	Forecast   int // the forecast; 0 or less is drawn as 1
}

// CITrace draws CCEval's Fig. 7 for the named metrics (all of them when
// names is empty): the relative half-width of the confidence interval
// after each trial against the required relative margin, on log axes,
// with the real trial count (solid) and the exploratory stage's forecast
// (dashed) marked.
func CITrace(ms []CIMetric, margin float64, names []string) (*Figure, error) {
	if len(ms) == 0 {
		return nil, errors.New("plot: CITrace: no metrics")
	}
	var panels []*plot.Plot
	for _, m := range ms {
		if len(names) > 0 && !slices.Contains(names, m.Name) {
			continue
		}
		if len(m.N) != len(m.Relative) {
			return nil, fmt.Errorf("plot: CITrace: %s: %d trial counts, %d half-widths", m.Name, len(m.N), len(m.Relative))
		}
		var pts plotter.XYs
		for i, rel := range m.Relative {
			if rel > 0 && !math.IsInf(rel, 0) {
				pts = append(pts, plotter.XY{X: float64(m.N[i]), Y: 100 * rel})
			}
		}
		if len(pts) == 0 {
			continue
		}
		p := newPlot(m.Title, "trials", "CI half-width (% of mean)")
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
		lo, hi := 100*margin, 100*margin
		for _, q := range pts {
			lo, hi = min(lo, q.Y), max(hi, q.Y)
		}
		p.Y.Min, p.Y.Max = lo/1.5, hi*1.5
		xmax := pts[len(pts)-1].X
		if m.Forecast > 0 {
			xmax = max(xmax, float64(m.Forecast))
		}
		p.X.Min, p.X.Max = 2, xmax*1.2
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, err
		}
		l.LineStyle = lineStyle(0)
		p.Add(l)
		p.Legend.Add("real CI", l)
		req, _ := plotter.NewLine(plotter.XYs{{X: 2, Y: 100 * margin}, {X: xmax * 1.2, Y: 100 * margin}})
		req.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
		p.Add(req)
		p.Legend.Add(fmt.Sprintf("required CI (%g%%)", 100*margin), req)
		for _, mark := range []struct {
			n     int
			name  string
			style int
		}{{m.Trials, "real trial count", 2}, {m.Forecast, "forecast", 3}} {
			if mark.n <= 0 {
				continue
			}
			v, _ := plotter.NewLine(plotter.XYs{{X: float64(mark.n), Y: p.Y.Min}, {X: float64(mark.n), Y: p.Y.Max}})
			v.LineStyle = lineStyle(mark.style)
			v.LineStyle.Width = vg.Points(1)
			p.Add(v)
			p.Legend.Add(fmt.Sprintf("%s %d", mark.name, mark.n), v)
		}
		p.Legend.Top = true
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return nil, fmt.Errorf("plot: CITrace: none of the metrics %v has a trace", names)
	}
	return &Figure{Panels: grid(panels, 3)}, nil
}

// CIByLabel draws CCEval's Fig. 9 for one metric across labelled final
// intervals at a confidence level (estimators, congestion controls): (a)
// the mean with its confidence interval, (b) the real trial count (filled)
// and the forecast (hollow) on a log axis.
func CIByLabel(metric string, level float64, rows []CIRow) (*Figure, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("plot: CIByLabel: no rows for %s", metric)
	}
	var est, rtc, etc plotter.XYs
	var halves []float64
	labels := make([]string, len(rows))
	for i, r := range rows {
		x := float64(i)
		labels[i] = r.Label
		est, halves = append(est, plotter.XY{X: x, Y: r.Mean}), append(halves, r.Half)
		rtc = append(rtc, plotter.XY{X: x, Y: float64(r.Trials)})
		etc = append(etc, plotter.XY{X: x, Y: float64(max(r.Forecast, 1))})
	}
	a := newPlot(fmt.Sprintf("%s: mean and %.0f%% CI", metric, 100*level), "", metric)
	a.NominalX(labels...)
	s, err := plotter.NewScatter(est)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: seriesColor(0), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	a.Add(s, ciBars(est, halves, true))
	a.X.Min, a.X.Max = -0.5, float64(len(labels))-0.5
	b := newPlot("trials to the margin", "", "trials (log scale)")
	b.NominalX(labels...)
	b.Y.Scale, b.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	sr, _ := plotter.NewScatter(rtc)
	sr.GlyphStyle = draw.GlyphStyle{Color: seriesColor(1), Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
	se, _ := plotter.NewScatter(etc)
	se.GlyphStyle = draw.GlyphStyle{Color: seriesColor(2), Radius: vg.Points(5), Shape: draw.RingGlyph{}}
	b.Add(sr, se)
	lo, hi := math.Inf(1), 0.0
	for i := range rtc {
		lo, hi = min(lo, rtc[i].Y, etc[i].Y), max(hi, rtc[i].Y, etc[i].Y)
	}
	b.Y.Min, b.Y.Max = lo/2, hi*3
	b.Legend.Add("real trial count", sr)
	b.Legend.Add("forecast (Eq. 3)", se)
	b.Legend.Top = true
	b.X.Min, b.X.Max = -0.5, float64(len(labels))-0.5
	return &Figure{Panels: [][]*plot.Plot{{a, b}}}, nil
}

// DurationPoint is one trial length of CCEval's duration study for
// Durations.
type DurationPoint struct {
	Flows      int     // flows per trial
	Mean, Half float64 // the metric's mean and confidence half-width over all flows
	StableMean float64 // the mean over stable-phase flows (NaN: none)
	WarmUp     float64 // share of flows in the warm-up phase
	Stable     float64 // share in the stable phase
	CoolDown   float64 // share in the cool-down phase
	Trials     int     // trials run to the margin (or run at all when it never converged)
	TotalFlows int     // flows simulated to convergence
}

// Durations draws CCEval's Fig. 13 from a duration study: (a) the
// metric's mean with its confidence interval over all flows and the mean
// over stable-phase flows, (b) the shares of flows in the warm-up, stable
// and cool-down phases, (c) flows per trial, the real trial count and
// the flows simulated to convergence, all against flows per trial.
func Durations(points []DurationPoint, metric string) (*Figure, error) {
	if len(points) == 0 {
		return nil, errors.New("plot: Durations: no points")
	}
	var all, stable, warm, st, cool, fspt, rtc, total plotter.XYs
	var halves []float64
	for _, p := range points {
		x := float64(p.Flows)
		all, halves = append(all, plotter.XY{X: x, Y: p.Mean}), append(halves, p.Half)
		if !math.IsNaN(p.StableMean) {
			stable = append(stable, plotter.XY{X: x, Y: p.StableMean})
		}
		warm, st, cool = append(warm, plotter.XY{X: x, Y: 100 * p.WarmUp}), append(st, plotter.XY{X: x, Y: 100 * p.Stable}), append(cool, plotter.XY{X: x, Y: 100 * p.CoolDown})
		fspt = append(fspt, plotter.XY{X: x, Y: x})
		rtc, total = append(rtc, plotter.XY{X: x, Y: float64(p.Trials)}), append(total, plotter.XY{X: x, Y: float64(p.TotalFlows)})
	}
	logX := func(p *plot.Plot) {
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
		p.X.Min, p.X.Max = all[0].X/1.3, all[len(all)-1].X*1.3
	}
	a := newPlot(metric+" by trial length", "flows per trial (log scale)", metric)
	logX(a)
	if err := addLines(a, []string{"all flows, mean and CI", "stable flows only"}, []plotter.XYs{all, stable}); err != nil {
		return nil, err
	}
	a.Add(ciBars(all, halves, true))
	a.Legend.Top, a.Legend.Left = true, true
	b := newPlot("flows per phase", "flows per trial (log scale)", "share of flows (%)")
	logX(b)
	b.Y.Min, b.Y.Max = 0, 100
	if err := addLines(b, []string{"warm-up", "stable", "cool-down"}, []plotter.XYs{warm, st, cool}); err != nil {
		return nil, err
	}
	c := newPlot("cost of convergence", "flows per trial (log scale)", "count (log scale)")
	logX(c)
	c.Y.Scale, c.Y.Tick.Marker = plot.LogScale{}, logTicks{}
	if err := addLines(c, []string{"flows per trial (FSPT)", "real trial count (RTC)", "flows to converge (RTC x FSPT)"}, []plotter.XYs{fspt, rtc, total}); err != nil {
		return nil, err
	}
	c.Legend.Top, c.Legend.Left = true, true
	return &Figure{Panels: [][]*plot.Plot{{a, b, c}}}, nil
}

// TailMethod is one method of CCEval's tail comparison for
// TailComparison: its estimate and the cycles (trials) it needed.
type TailMethod struct {
	Label        string
	Mean, Half   float64
	Cycles       int
	SearchCycles int // of Cycles, those spent searching (importance sampling's cross-entropy)
}

// TailComparison draws CCEval's Fig. 14a for the p-quantile (0 < p < 1)
// of metric: (a) the cycles (trials) each method needed for the same
// relative margin, search cycles shown apart, with the share of the first
// method's (model-free) cycles saved; (b) the estimates with their
// confidence intervals.
func TailComparison(p float64, metric string, ms []TailMethod) (*Figure, error) {
	if len(ms) == 0 || ms[0].Cycles <= 0 {
		return nil, errors.New("plot: TailComparison: incomplete comparison")
	}
	first := float64(ms[0].Cycles)
	counts, search := make(plotter.Values, len(ms)), make(plotter.Values, len(ms))
	for i, m := range ms {
		counts[i], search[i] = float64(m.Cycles), float64(m.SearchCycles)
	}
	a := newPlot(fmt.Sprintf("p%g %s: trials to a %.3g%% CI", 100*p, metric, 100*ms[0].Half/math.Abs(ms[0].Mean)), "", "trials (cycles)")
	bars, err := plotter.NewBarChart(counts, vg.Points(28))
	if err != nil {
		return nil, err
	}
	bars.Color = seriesColor(0)
	sb, err := plotter.NewBarChart(search, vg.Points(28))
	if err != nil {
		return nil, err
	}
	sb.Color = seriesColor(1)
	a.Add(bars, sb)
	a.Legend.Add("trials", bars)
	a.Legend.Add("of which cross-entropy search", sb)
	a.Legend.Top = true
	names, short := make([]string, len(ms)), make([]string, len(ms))
	var est plotter.XYs
	var halves []float64
	for i, m := range ms {
		names[i] = fmt.Sprintf("%s\n%.0f (%+.0f%%)", m.Label, counts[i], -100*(1-counts[i]/first))
		short[i] = strings.ReplaceAll(m.Label, " ", "\n")
		est, halves = append(est, plotter.XY{X: float64(i), Y: m.Mean}), append(halves, m.Half)
	}
	a.NominalX(names...)
	a.Y.Min = 0
	a.Y.Max = 1.25 * slices.Max(counts)
	b := newPlot("estimates and CIs", "", fmt.Sprintf("p%g %s", 100*p, metric))
	b.NominalX(short...)
	s, err := plotter.NewScatter(est)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: seriesColor(0), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	b.Add(s, ciBars(est, halves, true))
	b.X.Min, b.X.Max = -0.5, float64(len(ms))-0.5
	return &Figure{Panels: [][]*plot.Plot{{a, b}}, Width: 10 * vg.Inch, Height: 4 * vg.Inch}, nil
}

// addLines adds one line with points per series (series without points
// are left out), named in the legend.
func addLines(p *plot.Plot, names []string, series []plotter.XYs) error {
	for i, xy := range series {
		if len(xy) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return fmt.Errorf("plot: %s: %w", names[i], err)
		}
		l.LineStyle = lineStyle(i)
		pts.GlyphStyle = draw.GlyphStyle{Color: seriesColor(i), Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		p.Add(l, pts)
		p.Legend.Add(names[i], l, pts)
	}
	return nil
}
