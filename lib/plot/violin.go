package plot

import (
	"errors"
	"image/color"
	"math"
	"sort"

	"github.com/tailscope/tailscope/lib/metrics"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SilvermanBandwidth is Silverman's rule-of-thumb bandwidth for a Gaussian
// kernel, 0.9 min(sd, IQR/1.34) n^(-1/5), robust to heavy tails through
// the IQR. When one of sd and IQR/1.34 is zero (many ties) the other is
// used; it is 0 for fewer than two distinct values.
func SilvermanBandwidth(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	sd := stat.StdDev(xs, nil)
	q := metrics.Percentiles(xs, []float64{25, 75})
	spread := min(sd, (q[1]-q[0])/1.34)
	if spread == 0 {
		spread = max(sd, (q[1]-q[0])/1.34)
	}
	return 0.9 * spread * math.Pow(float64(len(xs)), -0.2)
}

// KDE evaluates the Gaussian kernel density estimate of xs with bandwidth
// bw at each point of at: (1/(n bw)) sum_i phi((x - xs_i)/bw). It is nil
// when xs is empty or bw is not positive.
func KDE(xs []float64, bw float64, at []float64) []float64 {
	if len(xs) == 0 || !(bw > 0) {
		return nil
	}
	norm := 1 / (float64(len(xs)) * bw * math.Sqrt(2*math.Pi))
	out := make([]float64, len(at))
	for j, x := range at {
		var s float64
		for _, v := range xs {
			z := (x - v) / bw
			s += math.Exp(-z * z / 2)
		}
		out[j] = s * norm
	}
	return out
}

// Violin is a gonum/plot plotter of one distribution drawn vertically at
// x = Location: its Gaussian kernel density estimate (Silverman bandwidth)
// mirrored about the centre line and cut at the data's range, with a thick
// bar from the first to the third quartile, a thin line from minimum to
// maximum and a white dot with a dark rim at the median, as in Parsimon's
// Fig. 9.
type Violin struct {
	Location float64
	// Width is the violin's width at its densest point, in x-axis units
	// (categories sit 1 apart, so 0.8 leaves a gap), so that violins scale
	// with the panel.
	Width float64
	// Quartiles and extremes of the values (metrics.Percentile).
	Min, Q1, Median, Q3, Max float64
	Bandwidth                float64
	// Y and Density are the KDE's evaluation points (from Min to Max) and
	// values; empty when the values have no spread.
	Y, Density []float64
	FillColor  color.Color
	LineStyle  draw.LineStyle
}

// violinPoints is how many points the density polygon has per side.
const violinPoints = 120

// NewViolin summarises values (at least one, none NaN) as a violin at loc.
func NewViolin(loc float64, values []float64) (*Violin, error) {
	if len(values) == 0 {
		return nil, errors.New("plot: a violin needs at least one value")
	}
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("plot: violin values must be finite")
		}
	}
	q := metrics.Percentiles(values, []float64{0, 25, 50, 75, 100})
	v := &Violin{Location: loc, Width: 0.8,
		Min: q[0], Q1: q[1], Median: q[2], Q3: q[3], Max: q[4],
		Bandwidth: SilvermanBandwidth(values),
		FillColor: color.RGBA{R: 0x9e, G: 0xc3, B: 0xe6, A: 0xff},
		LineStyle: draw.LineStyle{Color: color.RGBA{R: 0x2b, G: 0x4c, B: 0x7e, A: 0xff}, Width: vg.Points(1)},
	}
	if v.Bandwidth > 0 && v.Max > v.Min {
		v.Y = make([]float64, violinPoints)
		for i := range v.Y {
			v.Y[i] = v.Min + (v.Max-v.Min)*float64(i)/float64(violinPoints-1)
		}
		v.Density = KDE(values, v.Bandwidth, v.Y)
	}
	return v, nil
}

// outline is the violin's polygon on the canvas, centred on x0 with
// half-width proportional to the density, half at the peak: the right side
// bottom-up, then the left side top-down.
func (v *Violin) outline(x0, half vg.Length, y func(float64) vg.Length) []vg.Point {
	peak := 0.0
	for _, d := range v.Density {
		peak = max(peak, d)
	}
	n := len(v.Y)
	pts := make([]vg.Point, 0, 2*n)
	for i := 0; i < n; i++ {
		pts = append(pts, vg.Point{X: x0 + half*vg.Length(v.Density[i]/peak), Y: y(v.Y[i])})
	}
	for i := n - 1; i >= 0; i-- {
		pts = append(pts, vg.Point{X: x0 - half*vg.Length(v.Density[i]/peak), Y: y(v.Y[i])})
	}
	return pts
}

// Plot implements plot.Plotter.
func (v *Violin) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	x0 := trX(v.Location)
	if len(v.Density) > 0 {
		pts := v.outline(x0, trX(v.Location+v.Width/2)-x0, trY)
		c.FillPolygon(v.FillColor, c.ClipPolygonXY(pts))
		c.StrokeLines(v.LineStyle, c.ClipLinesXY(append(pts, pts[0]))...)
	}
	dark := draw.LineStyle{Color: color.Gray{Y: 0x30}, Width: vg.Points(1)}
	c.StrokeLines(dark, c.ClipLinesXY([]vg.Point{{X: x0, Y: trY(v.Min)}, {X: x0, Y: trY(v.Max)}})...)
	dark.Width = vg.Points(5)
	c.StrokeLines(dark, c.ClipLinesXY([]vg.Point{{X: x0, Y: trY(v.Q1)}, {X: x0, Y: trY(v.Q3)}})...)
	// The median's white dot has a dark rim: a violin of one value (a
	// category with one scenario) is that dot alone, which would be
	// invisible on the white background.
	if m := (vg.Point{X: x0, Y: trY(v.Median)}); c.Contains(m) {
		c.DrawGlyph(draw.GlyphStyle{Color: dark.Color, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}, m)
		c.DrawGlyph(draw.GlyphStyle{Color: color.White, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}, m)
	}
}

// DataRange implements plot.DataRanger; it includes the violin's width.
func (v *Violin) DataRange() (xmin, xmax, ymin, ymax float64) {
	return v.Location - v.Width/2, v.Location + v.Width/2, v.Min, v.Max
}

// sortedKeys returns a map's keys in order (category order on an axis).
func sortedKeys(m map[string][]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
