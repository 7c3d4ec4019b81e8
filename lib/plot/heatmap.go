package plot

import (
	"fmt"
	"image/color"
	"math"

	"github.com/tailscope/tailscope/lib/metrics"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// PercentileGrid is a slowdown table for a heatmap: Slowdown[r][c] is the
// (c+1)-th percentile of FCT slowdown of size bin r. It implements
// gonum/plot's plotter.GridXYZ with the log10 of the slowdown as the value,
// because tail slowdowns span orders of magnitude.
type PercentileGrid struct {
	Labels   []string    // size bins (rows)
	Slowdown [][]float64 // slowdown; NaN for an empty bin
}

// NewPercentileGrid computes percentiles 1..100 of slowdown per size bin.
func NewPercentileGrid(recs []metrics.Record, bins metrics.Bins) (*PercentileGrid, error) {
	if err := bins.Check(); err != nil {
		return nil, err
	}
	ps := make([]float64, 100)
	for i := range ps {
		ps[i] = float64(i + 1)
	}
	g := &PercentileGrid{Labels: bins.Labels}
	for _, xs := range metrics.SlowdownsByBin(recs, bins) {
		g.Slowdown = append(g.Slowdown, metrics.Percentiles(xs, ps))
	}
	return g, nil
}

// Dims implements plotter.GridXYZ: 100 percentile columns, one row per bin.
func (g *PercentileGrid) Dims() (c, r int) { return 100, len(g.Slowdown) }

// Z implements plotter.GridXYZ: log10 of the slowdown.
func (g *PercentileGrid) Z(c, r int) float64 { return math.Log10(g.Slowdown[r][c]) }

// X implements plotter.GridXYZ: the percentile.
func (g *PercentileGrid) X(c int) float64 { return float64(c + 1) }

// Y implements plotter.GridXYZ: the bin index.
func (g *PercentileGrid) Y(r int) float64 { return float64(r) }

// SlowdownHeatmap draws m3's Fig. 3: FCT slowdown (colour, log scale) by
// size bin (rows; metrics.M3Bins for m3's buckets) and percentile 1..100
// (columns), so the right edge is each bin's tail. A colour bar on the
// right reads colours back as slowdowns; empty bins are left white.
func SlowdownHeatmap(recs []metrics.Record, bins metrics.Bins, title string) (*Figure, error) {
	g, err := NewPercentileGrid(recs, bins)
	if err != nil {
		return nil, err
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for r := range g.Slowdown {
		for c := range g.Slowdown[r] {
			if z := g.Slowdown[r][c]; !math.IsNaN(z) {
				if !(z > 0) {
					return nil, fmt.Errorf("plot: SlowdownHeatmap: a slowdown of %g cannot go on a log colour scale", z)
				}
				lo, hi = min(lo, math.Log10(z)), max(hi, math.Log10(z))
			}
		}
	}
	if math.IsInf(lo, 1) {
		return nil, fmt.Errorf("plot: SlowdownHeatmap: no records")
	}
	p, side := logHeatmap(g, lo, hi, title, "slowdown percentile", "flow size", "FCT slowdown")
	p.NominalY(g.Labels...)
	p.X.Min, p.X.Max = 0.5, 100.5
	p.X.Tick.Marker = linearTicks{}
	return &Figure{Panels: [][]*plot.Plot{{p}}, Side: side, SideFraction: 0.16,
		Width: 7 * vg.Inch, Height: vg.Length(2+0.3*float64(len(g.Labels))) * vg.Inch}, nil
}

// logHeatmap draws grid g, whose values are log10 of a quantity spanning
// lo..hi, with a colour bar labelled in the quantity's own units.
func logHeatmap(g plotter.GridXYZ, lo, hi float64, title, xlabel, ylabel, barLabel string) (p, side *plot.Plot) {
	if hi-lo < 1e-3 {
		hi = lo + 0.01 // a uniform map still needs a colour range
	}
	cm := moreland.SmoothBlueRed()
	cm.SetMin(lo)
	cm.SetMax(hi)
	h := plotter.NewHeatMap(g, cm.Palette(255))
	h.Min, h.Max = lo, hi
	p = newPlot(title, xlabel, ylabel)
	p.Add(h)
	side = newPlot("", "", barLabel)
	side.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	side.Y.Padding = 0
	side.Y.Tick.Marker = logTicks{log10: true}
	side.HideX()
	// An invisible copy of the map's title keeps the bar's top level with it.
	side.Title.Text, side.Title.TextStyle = title, p.Title.TextStyle
	side.Title.TextStyle.Color = color.White
	return p, side
}
