// Package plot draws tailscope's figures with gonum/plot: FCT-slowdown CDFs
// per size bin with a zoom on the tail (Parsimon Fig. 7 and 10), CDFs of p99
// error binned by load (Parsimon Fig. 8), violins of error faceted by
// scenario parameter (Parsimon Fig. 9), slowdown heatmaps by size bucket and
// percentile (m3 Fig. 3), what-if sweeps (m3 Fig. 13/14), and the studies'
// figures (CCEval's intervals, pfs's curves, DSCALE's queues, m3's
// ablation). It draws from records, summary rows and plain data, and
// imports no estimator or study package: building and combining summary
// rows, and the tables, are lib/summary's, and each study package
// (lib/ccstudy, lib/pfsstudy, lib/dscalestudy, lib/m3study, lib/whatif)
// turns its results into the plain data drawn here.
//
// Every figure is a Figure: a grid of gonum plots that Save writes as PNG or
// SVG and Image renders for a notebook cell. The API is non-generic so that
// the gophernotes interpreter can call it.
package plot

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// DPI is the resolution of PNG output and of Image: twice a screen's, so
// that figures stay sharp when a notebook scales them.
const DPI = 144

// Figure is a grid of panels with an optional title and an optional narrow
// panel on the right (a heatmap's colour bar).
type Figure struct {
	Title  string
	Panels [][]*plot.Plot // rows of panels; a nil panel leaves its tile empty
	Side   *plot.Plot     // optional; drawn in the right SideFraction of the width
	// SideFraction is the share of the width Side takes (0.12 if zero).
	SideFraction float64
	// Width and Height of the whole figure; Save and Image use a size
	// suited to the grid when they are zero.
	Width, Height vg.Length
}

// Single wraps one plot as a figure.
func Single(p *plot.Plot) *Figure { return &Figure{Panels: [][]*plot.Plot{{p}}} }

// size is the figure's size, defaulting to 4.5 x 3.5 inches per panel.
func (f *Figure) size() (w, h vg.Length) {
	w, h = f.Width, f.Height
	rows, cols := len(f.Panels), 0
	for _, r := range f.Panels {
		cols = max(cols, len(r))
	}
	if w == 0 {
		w = vg.Length(max(cols, 1)) * 4.5 * vg.Inch
		if f.Side != nil {
			w += 1.2 * vg.Inch
		}
	}
	if h == 0 {
		h = vg.Length(max(rows, 1)) * 3.5 * vg.Inch
		if f.Title != "" {
			h += 0.4 * vg.Inch
		}
	}
	return w, h
}

func (f *Figure) check() error {
	if f == nil || len(f.Panels) == 0 {
		return errors.New("plot: figure has no panels")
	}
	for _, r := range f.Panels {
		if len(r) == 0 {
			return errors.New("plot: figure has an empty row of panels")
		}
	}
	return nil
}

// Draw draws the figure on c.
func (f *Figure) Draw(c draw.Canvas) {
	if f.Title != "" {
		sty := textStyle(15)
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - 4}, f.Title)
		c.Max.Y -= sty.Height(f.Title) + 10
	}
	if f.Side != nil {
		frac := f.SideFraction
		if frac <= 0 {
			frac = 0.12
		}
		side := c
		side.Min.X = c.Max.X - vg.Length(frac)*(c.Max.X-c.Min.X)
		c.Max.X = side.Min.X
		f.Side.Draw(side)
	}
	cols := 0
	for _, r := range f.Panels {
		cols = max(cols, len(r))
	}
	grid := make([][]*plot.Plot, len(f.Panels))
	for i, r := range f.Panels {
		grid[i] = make([]*plot.Plot, cols) // Align wants a full grid
		copy(grid[i], r)
	}
	tiles := draw.Tiles{Rows: len(grid), Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 3}
	canvases := plot.Align(grid, tiles, c)
	for i := range grid {
		for j, p := range grid[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
}

// Save writes the figure to path as PNG (.png) or SVG (.svg), at its Width
// and Height (or the default size per panel).
func Save(f *Figure, path string) error {
	if err := f.check(); err != nil {
		return err
	}
	w, h := f.size()
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png":
		img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI), vgimg.UseBackgroundColor(color.White))
		f.Draw(draw.New(img))
		return writeFile(path, vgimg.PngCanvas{Canvas: img})
	case ".svg":
		svg := vgsvg.New(w, h)
		f.Draw(draw.New(svg))
		return writeFile(path, svg)
	default:
		return fmt.Errorf("plot: %s: unknown figure format %q (use .png or .svg)", path, ext)
	}
}

// writeFile writes a rendered canvas to path, reporting a failed close
// (a full disk shows up there).
func writeFile(path string, c io.WriterTo) error {
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	if _, err := c.WriteTo(out); err != nil {
		out.Close()
		return fmt.Errorf("plot: %s: %w", path, err)
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("plot: %s: %w", path, err)
	}
	return nil
}

// Image renders the figure as an image at DPI (a notebook cell ending in
// an image.Image shows it as PNG). A figure without panels renders as a
// blank image of the default size rather than panicking in a cell.
func Image(f *Figure) image.Image {
	w, h := (&Figure{}).size()
	if f != nil {
		w, h = f.size()
	}
	img := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI), vgimg.UseBackgroundColor(color.White))
	if f.check() == nil {
		f.Draw(draw.New(img))
	}
	return img.Image()
}

// textStyle is the figures' text: Liberation Sans, which reads better than
// gonum/plot's default serif at small sizes.
func textStyle(size vg.Length) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.From(sans, size),
		Handler: plot.DefaultTextHandler,
	}
}

var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// palette is the series colours: Okabe and Ito's colour-blind-safe set
// (Color Universal Design, 2008) without its yellow, which is too light
// on white, strongest contrasts first. gonum's default soft colours are
// hard to tell apart in thin lines at notebook size.
var palette = []color.Color{
	color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff}, // blue
	color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff}, // vermillion
	color.RGBA{R: 0x00, G: 0x9e, B: 0x73, A: 0xff}, // bluish green
	color.RGBA{R: 0xcc, G: 0x79, B: 0xa7, A: 0xff}, // reddish purple
	color.RGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff}, // orange
	color.RGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff}, // sky blue
	color.Black,
}

// seriesColor is the colour of the i-th series; it repeats after
// len(palette) series, where dashes (plotutil.Dashes) still differ.
func seriesColor(i int) color.Color { return palette[i%len(palette)] }

// newPlot returns a plot with the figures' fonts: 13 pt titles, 12 pt axis
// labels, 10 pt ticks and 10 pt legends, and a light grid.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(sans, 13)
	p.Title.Padding = vg.Millimeter * 2
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 12)
		a.Tick.Label.Font = font.From(sans, 10)
	}
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	p.Legend.TextStyle.Font = font.From(sans, 10)
	return p
}
