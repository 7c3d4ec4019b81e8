// Package nb is the notebook-facing layer of tailscope: what a cell of a
// notebook running in the tailscope-go kernel calls, so that a cell is the
// one to three lines a researcher means.
//
//	book := nb.Open("01-quickstart")        // scale and output directory
//	sc := book.Build(spec)                  // the scenario, its loads
//	runs := book.Run(sc, "packetsim", "flowsim")
//	runs.SlowdownCDF(0.9)                   // saved as PNG and shown
//
// Runs and sweeps show their progress as one updating line (Line), and
// stop when the user interrupts the kernel: the kernel cancels Context,
// which they run under. A failure stops the cell with the library's
// message as the cell's error (Check), never a stack trace. Figure and
// Table save what they show under the book's directory. Show, DataFrame,
// Image and SVG serve cells that work with frames and plots directly.
//
// The kernel links this package in statically (kernel/packages.txt); like
// every notebook-facing package it exports nothing generic.
package nb

import (
	"bytes"
	"fmt"
	"image"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/tailscope/tailscope/lib/frame"
)

// Head is the first Rows rows of a frame. A cell whose value is a Head shows
// an HTML table: gophernotes renders any value with an HTML() string method
// as text/html.
type Head struct {
	Table *frame.Table
	Rows  int
}

// HTML renders the head as an HTML table (see frame.Table.HTML).
func (h Head) HTML() string {
	if h.Table == nil {
		return "<p>nil frame</p>\n"
	}
	return h.Table.HTML(h.Rows)
}

// Show returns the first rows rows of t for display; rows < 0 shows all.
func Show(t *frame.Table, rows int) Head { return Head{Table: t, Rows: rows} }

// DataFrame converts t into a gota DataFrame with the same column names and
// order: int64 columns become gota Int series, float64 Float, string String.
// The values are copied, so filtering the DataFrame leaves t untouched.
func DataFrame(t *frame.Table) (dataframe.DataFrame, error) {
	if t == nil {
		return dataframe.DataFrame{}, fmt.Errorf("nb: nil frame")
	}
	if err := t.Check(); err != nil {
		return dataframe.DataFrame{}, fmt.Errorf("nb: %w", err)
	}
	cols := make([]series.Series, 0, len(t.Columns))
	for i := range t.Columns {
		c := &t.Columns[i]
		switch c.Type() {
		case "int64":
			v := make([]int, len(c.Int64))
			for j, x := range c.Int64 {
				v[j] = int(x)
			}
			cols = append(cols, series.New(v, series.Int, c.Name))
		case "float64":
			cols = append(cols, series.New(append([]float64(nil), c.Float64...), series.Float, c.Name))
		case "string":
			cols = append(cols, series.New(append([]string(nil), c.String...), series.String, c.Name))
		default:
			return dataframe.DataFrame{}, fmt.Errorf("nb: column %q has type %s", c.Name, c.Type())
		}
	}
	df := dataframe.New(cols...)
	if df.Err != nil {
		return dataframe.DataFrame{}, fmt.Errorf("nb: %w", df.Err)
	}
	return df, nil
}

// Image draws p on a width x height canvas (vgimg's default 96 dpi). A cell
// ending in the result shows the figure as PNG.
func Image(p *plot.Plot, width, height vg.Length) image.Image {
	c := vgimg.New(width, height)
	p.Draw(draw.New(c))
	return c.Image()
}

// SVG draws p on a width x height canvas and returns the SVG document, for
// display.SVG in a cell or for writing to a file.
func SVG(p *plot.Plot, width, height vg.Length) (string, error) {
	c := vgsvg.New(width, height)
	p.Draw(draw.New(c))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", fmt.Errorf("nb: rendering SVG: %w", err)
	}
	return b.String(), nil
}
