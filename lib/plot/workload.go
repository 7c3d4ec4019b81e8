package plot

import (
	"fmt"
	"math"

	"github.com/tailscope/tailscope/lib/workload"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// matrixGrid shows a rack-to-rack matrix relative to uniform traffic:
// log10 of each entry times the number of rack pairs, so 0 means "as much
// as a uniform matrix" whatever the rack count.
type matrixGrid struct {
	m     *workload.Matrix
	floor float64 // log10 value shown for zero entries
}

func (g matrixGrid) Dims() (c, r int) { return g.m.Racks, g.m.Racks }
func (g matrixGrid) X(c int) float64  { return float64(c) }
func (g matrixGrid) Y(r int) float64  { return float64(r) }
func (g matrixGrid) Z(c, r int) float64 {
	w := g.m.W[r*g.m.Racks+c] * float64(g.m.Racks*g.m.Racks)
	if w <= 0 {
		return g.floor
	}
	return math.Log10(w)
}

// MatrixHeatmap draws a rack-to-rack traffic matrix (source racks as rows,
// destination racks as columns) on a log colour scale relative to a
// uniform matrix, like Parsimon's Fig. 6a.
func MatrixHeatmap(m *workload.Matrix, title string) (*Figure, error) {
	if m == nil || m.Racks == 0 || len(m.W) != m.Racks*m.Racks {
		return nil, fmt.Errorf("plot: MatrixHeatmap: malformed matrix")
	}
	g := matrixGrid{m: m}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, w := range m.W {
		if w > 0 {
			z := math.Log10(w * float64(m.Racks*m.Racks))
			lo, hi = min(lo, z), max(hi, z)
		}
	}
	if math.IsInf(lo, 1) {
		return nil, fmt.Errorf("plot: MatrixHeatmap: matrix %s carries no traffic", m.Name)
	}
	g.floor = lo
	p, side := logHeatmap(g, lo, hi, title, "destination rack", "source rack", "traffic / uniform")
	p.X.Min, p.X.Max = -0.5, float64(m.Racks)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(m.Racks)-0.5
	return &Figure{Panels: [][]*plot.Plot{{p}}, Side: side, SideFraction: 0.2,
		Width: 5.5 * vg.Inch, Height: 4.6 * vg.Inch}, nil
}

// SizeCDFs draws the CDFs of flow-size distributions on a log size axis
// (Parsimon Fig. 6b), evaluated from 10 B to 100 MB.
func SizeCDFs(dists []workload.SizeDist) (*Figure, error) {
	if len(dists) == 0 {
		return nil, fmt.Errorf("plot: SizeCDFs: no distributions")
	}
	p := newPlot("flow-size distributions", "flow size (log scale)", "CDF")
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, logTicks{bytes: true}
	const points = 400
	for i, d := range dists {
		pts := make(plotter.XYs, points)
		for j := range pts {
			x := math.Pow(10, 1+7*float64(j)/(points-1))
			pts[j] = plotter.XY{X: x, Y: d.CDF(x)}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("plot: SizeCDFs: %s: %w", d.Name(), err)
		}
		l.LineStyle = lineStyle(i)
		p.Add(l)
		p.Legend.Add(d.Name(), l)
	}
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top, p.Legend.Left = false, false
	return Single(p), nil
}

// LoadCDF draws, for each named set of channel loads, the CDF of the loads
// normalized to the set's maximum over the channels that carry traffic,
// like Parsimon's Fig. 6c.
func LoadCDF(names []string, loads [][]float64) (*Figure, error) {
	if len(names) != len(loads) || len(loads) == 0 {
		return nil, fmt.Errorf("plot: LoadCDF needs one name per load set (%d names, %d sets)", len(names), len(loads))
	}
	p := newPlot("channel loads", "load / maximum load", "CDF")
	for i, ls := range loads {
		mx := 0.0
		for _, x := range ls {
			mx = max(mx, x)
		}
		if !(mx > 0) {
			return nil, fmt.Errorf("plot: LoadCDF: %s carries no traffic", names[i])
		}
		var norm []float64
		for _, x := range ls {
			if x > 0 {
				norm = append(norm, x/mx)
			}
		}
		l, err := plotter.NewLine(cdfCurve(norm, 0))
		if err != nil {
			return nil, fmt.Errorf("plot: LoadCDF: %s: %w", names[i], err)
		}
		l.LineStyle = lineStyle(i)
		p.Add(l)
		p.Legend.Add(names[i], l)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Legend.Top, p.Legend.Left = false, false // the curves climb at the left
	return Single(p), nil
}
