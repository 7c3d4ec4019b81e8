package nb

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/plot"
)

// Book is one notebook's place in the output tree: the scale it runs at
// and the directory its frames and figures go to. A cell ending in a Book
// shows both.
type Book struct {
	Name  string // the notebook's name, e.g. "01-quickstart"
	Scale string // ci, quick or paper
	Dir   string // <output root>/notebooks/<Name>
	// Workers is the number of sweep tasks run at once (default 1: most
	// estimators use every core themselves).
	Workers int
}

// Scales are the scales a notebook runs at, smallest first.
var Scales = []string{"ci", "quick", "paper"}

// Open returns the Book of the notebook name at the scale named by
// TAILSCOPE_SCALE (default quick) under the output root TAILSCOPE_OUT
// (default ../out, the repository's out/ seen from notebooks/), and
// creates its directory. An unknown scale or a directory that cannot be
// made stops the cell with a message saying so.
func Open(name string) *Book {
	scale := os.Getenv("TAILSCOPE_SCALE")
	if scale == "" {
		scale = "quick"
	}
	if scaleIndex(scale) < 0 {
		Check(fmt.Errorf("TAILSCOPE_SCALE is %q; want one of %s", scale, strings.Join(Scales, ", ")))
	}
	root := os.Getenv("TAILSCOPE_OUT")
	if root == "" {
		root = filepath.Join("..", "out")
	}
	b := &Book{Name: name, Scale: scale, Dir: filepath.Join(root, "notebooks", name)}
	Check(os.MkdirAll(b.Dir, 0o755))
	return b
}

func scaleIndex(s string) int {
	for i, x := range Scales {
		if x == s {
			return i
		}
	}
	return -1
}

// HTML shows the scale and the output directory.
func (b *Book) HTML() string {
	return fmt.Sprintf("<p>%s at scale <b>%s</b>; frames and figures go to <code>%s</code></p>\n",
		html.EscapeString(b.Name), html.EscapeString(b.Scale), html.EscapeString(b.Dir))
}

// Pick returns the value for the book's scale: ci, quick or paper.
func (b *Book) Pick(ci, quick, paper int) int {
	return [...]int{ci, quick, paper}[b.index()]
}

// PickFloat is Pick for float64 values.
func (b *Book) PickFloat(ci, quick, paper float64) float64 {
	return [...]float64{ci, quick, paper}[b.index()]
}

func (b *Book) index() int {
	i := scaleIndex(b.Scale)
	if i < 0 {
		Check(fmt.Errorf("book %s: unknown scale %q", b.Name, b.Scale))
	}
	return i
}

// Path is the path of the file name in the book's directory.
func (b *Book) Path(name string) string { return filepath.Join(b.Dir, name) }

// Figure saves fig as <name>.png in the book's directory and returns it
// for display; err, when not nil, is the error of the call that drew fig,
// and stops the cell with its message. It takes a figure function's two
// results as they come: fig, err := plot.X(...); book.Figure("x", fig, err).
func (b *Book) Figure(name string, fig *plot.Figure, err error) *Figure {
	Check(err)
	path := b.Path(name + ".png")
	Check(plot.Save(fig, path))
	return &Figure{Figure: fig, Path: path}
}

// Table writes t as <name>.parquet in the book's directory and returns
// its first rows for display; err is handled as in Figure.
func (b *Book) Table(name string, t *frame.Table, err error) Head {
	Check(err)
	Check(frame.WriteTable(b.Path(name+".parquet"), t))
	return Show(t, 10)
}

// Figure is a figure saved to Path. A cell ending in a Figure shows it as
// PNG.
type Figure struct {
	*plot.Figure
	Path string
}

// SimpleRender is the saved PNG for the kernel's display (the method
// gophernotes looks for: a map from MIME type to data).
func (f *Figure) SimpleRender() map[string]interface{} {
	png, err := os.ReadFile(f.Path)
	Check(err)
	return map[string]interface{}{
		"image/png":  png,
		"text/plain": "figure " + f.Path,
	}
}

// Error is a failure this package reports by stopping the cell: the
// kernel shows its message as the cell's error, without a stack trace.
type Error struct{ Err error }

// Error returns the wrapped error's message.
func (e *Error) Error() string { return e.Err.Error() }

// Unwrap returns the error reported.
func (e *Error) Unwrap() error { return e.Err }

// Check stops the cell with err's message when err is not nil; cells
// calling the library directly write nb.Check(err) after a call that can
// fail. The kernel turns the stop into the cell's error output, as it does
// for any failure of the functions of this package.
//
// Check panics with *Error to do so, which the kernel recovers on the
// cell's goroutine; outside a cell, recover it or use the library.
func Check(err error) {
	if err != nil {
		panic(&Error{Err: err})
	}
}
