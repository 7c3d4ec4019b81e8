package plot

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// WhatIfSeries is one estimator's answers over a swept parameter: per
// flow-size class (the rows of Y and Half, in WhatIfData.Classes' order),
// the p99 slowdown at each value and the half-width of its confidence
// interval (NaN or 0: none).
type WhatIfSeries struct {
	Name    string
	Y, Half [][]float64
}

// WhatIfData is a counterfactual sweep as plain numbers: the swept
// parameter's name in words (Param, the x axis' label, as "ECN threshold
// (KB per Gbps)") and values (X; labels XLabels where the values are not
// numbers), the flow-size classes, and one series per estimator.
type WhatIfData struct {
	Title, Param string
	X            []float64
	XLabels      []string // tick labels at X; nil for a numeric axis
	Classes      []string
	Series       []WhatIfSeries
}

// WhatIf draws a counterfactual sweep like m3's Fig. 13 and 14: one panel
// per flow-size class, the swept value on x, the p99 FCT slowdown on y,
// one line per estimator with its confidence intervals as bars in its
// colour, cut at a slowdown of 1. The legend stands beside the panels,
// off the data.
func WhatIf(d WhatIfData) (*Figure, error) {
	if len(d.X) == 0 || len(d.Classes) == 0 || len(d.Series) == 0 {
		return nil, fmt.Errorf("plot: WhatIf needs values, classes and series (%d, %d, %d)", len(d.X), len(d.Classes), len(d.Series))
	}
	if d.XLabels != nil && len(d.XLabels) != len(d.X) {
		return nil, fmt.Errorf("plot: WhatIf: %d labels for %d values", len(d.XLabels), len(d.X))
	}
	xspan := slices.Max(d.X) - slices.Min(d.X)
	var panels []*plot.Plot
	for c, class := range d.Classes {
		p := newPlot(class, d.Param, "p99 FCT slowdown")
		for i, s := range d.Series {
			if len(s.Y) != len(d.Classes) || len(s.Y[c]) != len(d.X) || (s.Half != nil && (len(s.Half) != len(d.Classes) || len(s.Half[c]) != len(d.X))) {
				return nil, fmt.Errorf("plot: WhatIf: series %s does not have one value per class and value", s.Name)
			}
			if err := addCurve(p, s.Name, i, d.X, s.Y[c]); err != nil {
				return nil, err
			}
			if s.Half == nil {
				continue
			}
			// Each estimator's intervals in its colour, a hair to the side
			// of its points so that intervals at one value do not hide one
			// another, and cut at a slowdown of 1, below which no FCT lies
			// (intervals over two seeds are often wider than the value).
			dodge := (float64(i) - float64(len(d.Series)-1)/2) * 0.012 * xspan
			var pts plotter.XYs
			var halves []float64
			for k, y := range s.Y[c] {
				if h := s.Half[c][k]; !math.IsNaN(y) && !math.IsNaN(h) && h > 0 {
					pts, halves = append(pts, plotter.XY{X: d.X[k] + dodge, Y: y}), append(halves, h)
				}
			}
			if len(pts) > 0 {
				bars := ciBars(pts, halves, true).(*plotter.YErrorBars)
				bars.Color = seriesColor(i)
				for k := range bars.YErrors {
					bars.YErrors[k].Low = max(min(bars.YErrors[k].Low, pts[k].Y-1), 0)
				}
				p.Add(bars)
			}
		}
		if d.XLabels != nil {
			ticks := make(plot.ConstantTicks, len(d.X))
			for k, x := range d.X {
				ticks[k] = plot.Tick{Value: x, Label: d.XLabels[k]}
			}
			p.X.Tick.Marker = ticks
		} else {
			p.X.Tick.Marker = linearTicks{}
		}
		p.Y.Tick.Marker = linearTicks{}
		p.Legend = plot.NewLegend() // one legend, beside the panels
		panels = append(panels, p)
	}
	legend := newPlot("", "", "")
	legend.HideAxes()
	legend.Legend.Top, legend.Legend.Left = true, true
	for i, s := range d.Series {
		l, pts, err := plotter.NewLinePoints(plotter.XYs{{}})
		if err != nil {
			return nil, err
		}
		l.LineStyle = lineStyle(i)
		pts.Color, pts.Radius = l.LineStyle.Color, vg.Points(2.5)
		legend.Legend.Add(s.Name, l, pts)
	}
	// Two panels to a row, as SlowdownCDF lays out its bins.
	var rows [][]*plot.Plot
	for i := 0; i < len(panels); i += 2 {
		rows = append(rows, panels[i:min(i+2, len(panels))])
	}
	return &Figure{Title: d.Title, Panels: rows, Side: legend, SideFraction: 0.18}, nil
}
