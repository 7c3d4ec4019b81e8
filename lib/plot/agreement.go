package plot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// AgreementSeries is one estimator's values against the reference's, point
// by point (for example p99 slowdowns per scenario and size bin).
type AgreementSeries struct {
	Name      string
	Reference []float64 // x: the reference (ground truth)
	Estimate  []float64 // y: the estimator, same length
}

// AgreementPanel is one panel of an agreement figure.
type AgreementPanel struct {
	Title          string
	XLabel, YLabel string
	Series         []AgreementSeries
}

// Agreement draws each panel's estimates against the reference on
// logarithmic axes, one marker shape and colour per series, with the line
// y = x and dashed lines at (1 ± tol) x: points inside the band agree
// within tol. It is the figure of the ns-3 validation (packetsim against
// ns-3, Parsimon Table 5's per-bin comparison as a picture). Panels are
// laid out side by side.
func Agreement(title string, panels []AgreementPanel, tol float64) (*Figure, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("plot: Agreement needs at least one panel")
	}
	if !(tol >= 0 && tol < 1) {
		return nil, fmt.Errorf("plot: Agreement tolerance must be in [0, 1), got %g", tol)
	}
	row := make([]*plot.Plot, len(panels))
	for i, pn := range panels {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range pn.Series {
			if len(s.Reference) != len(s.Estimate) {
				return nil, fmt.Errorf("plot: Agreement series %q has %d reference and %d estimate values", s.Name, len(s.Reference), len(s.Estimate))
			}
			for j := range s.Reference {
				for _, v := range []float64{s.Reference[j], s.Estimate[j]} {
					if !(v > 0) || math.IsInf(v, 0) {
						return nil, fmt.Errorf("plot: Agreement series %q point %d: %g on a log axis", s.Name, j, v)
					}
					lo, hi = min(lo, v), max(hi, v)
				}
			}
		}
		if math.IsInf(lo, 1) {
			return nil, fmt.Errorf("plot: Agreement panel %q has no points", pn.Title)
		}
		lo, hi = lo/1.15, hi*1.15
		p := newPlot(pn.Title, pn.XLabel, pn.YLabel)
		for _, a := range []*plot.Axis{&p.X, &p.Y} {
			a.Scale, a.Tick.Marker = plot.LogScale{}, logTicks{}
			a.Min, a.Max = lo, hi
		}
		diag(p, lo, hi, 1, nil)
		if tol > 0 {
			dash := []vg.Length{vg.Points(4), vg.Points(3)}
			diag(p, lo, hi, 1+tol, dash)
			diag(p, lo, hi, 1-tol, dash)
		}
		for k, s := range pn.Series {
			pts := make(plotter.XYs, len(s.Reference))
			for j := range pts {
				pts[j] = plotter.XY{X: s.Reference[j], Y: s.Estimate[j]}
			}
			sc, err := plotter.NewScatter(pts)
			if err != nil {
				return nil, fmt.Errorf("plot: Agreement series %q: %w", s.Name, err)
			}
			sc.GlyphStyle = draw.GlyphStyle{Color: seriesColor(k), Shape: plotutil.Shape(k), Radius: vg.Points(3.5)}
			p.Add(sc)
			p.Legend.Add(s.Name, sc)
		}
		p.Legend.Top, p.Legend.Left = true, true
		row[i] = p
	}
	return &Figure{Title: title, Panels: [][]*plot.Plot{row}}, nil
}

// diag adds the line y = f x over [lo, hi], clipped to the plot's range.
func diag(p *plot.Plot, lo, hi, f float64, dashes []vg.Length) {
	l, err := plotter.NewLine(plotter.XYs{{X: lo, Y: f * lo}, {X: hi, Y: f * hi}})
	if err != nil {
		panic(err) // two finite points always make a line
	}
	l.LineStyle = draw.LineStyle{Color: color.Gray{Y: 0x60}, Width: vg.Points(1), Dashes: dashes}
	p.Add(l)
}
