package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/tailscope/tailscope/lib/cceval"
)

// CITrace draws CCEval's Fig. 7 for the named metrics of a model-free
// result (all of them when names is empty): the relative half-width of the
// confidence interval after each trial against the required margin, on
// log axes, with the real trial count (solid) and the exploratory stage's
// forecast (dashed) marked.
func CITrace(r *cceval.Result, names []string) (*Figure, error) {
	if r == nil || len(r.Metrics) == 0 {
		return nil, errors.New("plot: CITrace: no metrics")
	}
	var panels []*plot.Plot
	for _, m := range r.Metrics {
		if len(names) > 0 && !slices.Contains(names, m.Name) {
			continue
		}
		var pts plotter.XYs
		for _, iv := range m.Trace {
			if rel := iv.Relative(); rel > 0 && !math.IsInf(rel, 0) {
				pts = append(pts, plotter.XY{X: float64(iv.N), Y: 100 * rel})
			}
		}
		if len(pts) == 0 {
			continue
		}
		p := newPlot(fmt.Sprintf("%s: %s", m.Name, m.Interval), "trials", "CI half-width (% of mean)")
		p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{}
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, logTicks{}
		lo, hi := 100*r.Margin, 100*r.Margin
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
		req, _ := plotter.NewLine(plotter.XYs{{X: 2, Y: 100 * r.Margin}, {X: xmax * 1.2, Y: 100 * r.Margin}})
		req.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(6), vg.Points(3)}}
		p.Add(req)
		p.Legend.Add(fmt.Sprintf("required CI (%g%%)", 100*r.Margin), req)
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

// CIByLabel draws CCEval's Fig. 9 for one metric across labelled
// model-free results (estimators, congestion controls): (a) the final
// mean with its confidence interval, (b) the real trial count (filled)
// and the forecast (hollow) on a log axis.
func CIByLabel(labels []string, results []*cceval.Result, metric string) (*Figure, error) {
	if len(labels) != len(results) || len(labels) == 0 {
		return nil, fmt.Errorf("plot: CIByLabel needs one label per result (%d labels, %d results)", len(labels), len(results))
	}
	var est, rtc, etc plotter.XYs
	var halves []float64
	for i, r := range results {
		m, ok := r.Metric(metric)
		if !ok {
			return nil, fmt.Errorf("plot: CIByLabel: %s has no metric %q", labels[i], metric)
		}
		x := float64(i)
		est, halves = append(est, plotter.XY{X: x, Y: m.Interval.Mean}), append(halves, m.Interval.Half)
		n := m.Trials
		if n == 0 { // unconverged: the trials run
			n = m.Interval.N
		}
		rtc = append(rtc, plotter.XY{X: x, Y: float64(n)})
		etc = append(etc, plotter.XY{X: x, Y: float64(max(m.Forecast, 1))})
	}
	level := results[0].Level
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

// Durations draws CCEval's Fig. 13 from a duration study: (a) the
// metric's mean with its confidence interval over all flows and the mean
// over stable-phase flows, (b) the shares of flows in the warm-up, stable
// and cool-down phases, (c) flows per trial, the real trial count and
// the flows simulated to convergence, all against flows per trial.
func Durations(points []cceval.DurationPoint, metric string) (*Figure, error) {
	if len(points) == 0 {
		return nil, errors.New("plot: Durations: no points")
	}
	var all, stable, warm, st, cool, fspt, rtc, total plotter.XYs
	var halves []float64
	for _, p := range points {
		x := float64(p.Flows)
		all, halves = append(all, plotter.XY{X: x, Y: p.Result.Interval.Mean}), append(halves, p.Result.Interval.Half)
		if !math.IsNaN(p.StableMean) {
			stable = append(stable, plotter.XY{X: x, Y: p.StableMean})
		}
		warm, st, cool = append(warm, plotter.XY{X: x, Y: 100 * p.WarmUp}), append(st, plotter.XY{X: x, Y: 100 * p.Stable}), append(cool, plotter.XY{X: x, Y: 100 * p.CoolDown})
		fspt = append(fspt, plotter.XY{X: x, Y: x})
		n := p.Result.Trials
		if n == 0 {
			n = p.Result.Interval.N
		}
		rtc, total = append(rtc, plotter.XY{X: x, Y: float64(n)}), append(total, plotter.XY{X: x, Y: float64(p.TotalFlows)})
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

// TailComparison draws CCEval's Fig. 14a: (a) the cycles (trials) each
// method needed for the same relative margin, importance sampling's
// search shown apart, with the share of model-free cycles saved; (b) the
// estimates with their confidence intervals.
func TailComparison(c *cceval.TailComparison) (*Figure, error) {
	if c == nil || c.Plain == nil || c.IS == nil {
		return nil, errors.New("plot: TailComparison: incomplete comparison")
	}
	labels := []string{"model-free", "renewal-reward", "importance sampling"}
	mf := float64(c.ModelFreeCount)
	counts := plotter.Values{mf, float64(c.Plain.Cycles), float64(c.IS.Cycles)}
	search := plotter.Values{0, 0, float64(c.IS.SearchCycles)}
	a := newPlot(fmt.Sprintf("p%g %s: trials to a %.3g%% CI", 100*c.P, c.Metric, 100*c.ModelFree.Interval.Relative()), "", "trials (cycles)")
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
	names := make([]string, 3)
	for i, l := range labels {
		names[i] = fmt.Sprintf("%s\n%.0f (%+.0f%%)", l, counts[i], -100*(1-counts[i]/mf))
	}
	a.NominalX(names...)
	a.Y.Min = 0
	a.Y.Max = 1.25 * max(counts[0], counts[1], counts[2])
	ivs := []cceval.Interval{c.ModelFree.Interval, c.Plain.Interval, c.IS.Interval}
	var est plotter.XYs
	var halves []float64
	for i, iv := range ivs {
		est, halves = append(est, plotter.XY{X: float64(i), Y: iv.Mean}), append(halves, iv.Half)
	}
	b := newPlot("estimates and CIs", "", fmt.Sprintf("p%g %s", 100*c.P, c.Metric))
	b.NominalX("model-free", "renewal\nreward", "importance\nsampling")
	s, err := plotter.NewScatter(est)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: seriesColor(0), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	b.Add(s, ciBars(est, halves, true))
	b.X.Min, b.X.Max = -0.5, 2.5
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
