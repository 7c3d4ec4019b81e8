package nb

import (
	"encoding/xml"
	"image/color"
	"math"
	"strings"
	"testing"

	"github.com/go-gota/gota/dataframe"
	"github.com/go-gota/gota/series"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/tailscope/tailscope/lib/frame"
)

func sample() *frame.Table {
	return &frame.Table{Columns: []frame.Column{
		frame.StringColumn("estimator", []string{"packetsim", "parsimon", "packetsim", "parsimon"}),
		frame.Int64Column("size_bytes", []int64{100, 2000, 1 << 40, 7}),
		frame.Float64Column("slowdown", []float64{1, 2.5, 1.25, math.Inf(1)}),
	}}
}

func TestDataFrameValues(t *testing.T) {
	tab := sample()
	df, err := DataFrame(tab)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := df.Names(), []string{"estimator", "size_bytes", "slowdown"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("names %v, want %v", got, want)
	}
	if r, c := df.Dims(); r != 4 || c != 3 {
		t.Fatalf("dims %dx%d, want 4x3", r, c)
	}
	for col, typ := range map[string]series.Type{"estimator": series.String, "size_bytes": series.Int, "slowdown": series.Float} {
		if got := df.Col(col).Type(); got != typ {
			t.Errorf("column %s has gota type %v, want %v", col, got, typ)
		}
	}
	ints, err := df.Col("size_bytes").Int()
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range tab.Columns[1].Int64 {
		if int64(ints[i]) != want {
			t.Errorf("size_bytes[%d] = %d, want %d", i, ints[i], want)
		}
	}
	for i, want := range tab.Columns[2].Float64 {
		if got := df.Col("slowdown").Elem(i).Float(); got != want {
			t.Errorf("slowdown[%d] = %v, want %v", i, got, want)
		}
	}
	for i, want := range tab.Columns[0].String {
		if got := df.Col("estimator").Elem(i).String(); got != want {
			t.Errorf("estimator[%d] = %q, want %q", i, got, want)
		}
	}
}

// Filtering and grouping in gota give what a direct pass over the columns
// gives, and leave the frame untouched.
func TestDataFrameFilterGroup(t *testing.T) {
	tab := sample()
	df, err := DataFrame(tab)
	if err != nil {
		t.Fatal(err)
	}
	big := df.Filter(dataframe.F{Colname: "size_bytes", Comparator: series.Greater, Comparando: 1000})
	if n := big.Nrow(); n != 2 {
		t.Fatalf("rows with size > 1000: %d, want 2", n)
	}
	g := df.GroupBy("estimator").Aggregation([]dataframe.AggregationType{dataframe.Aggregation_SUM}, []string{"size_bytes"})
	want := map[string]float64{}
	for i, e := range tab.Columns[0].String {
		want[e] += float64(tab.Columns[1].Int64[i])
	}
	for i := 0; i < g.Nrow(); i++ {
		e := g.Col("estimator").Elem(i).String()
		if got := g.Col("size_bytes_SUM").Elem(i).Float(); got != want[e] {
			t.Errorf("sum of size_bytes for %s = %v, want %v", e, got, want[e])
		}
	}
	if g.Nrow() != len(want) {
		t.Errorf("%d groups, want %d", g.Nrow(), len(want))
	}
	df.Elem(0, 1).Set(5)
	if tab.Columns[1].Int64[0] != 100 {
		t.Error("changing the DataFrame changed the frame")
	}
}

func TestDataFrameErrors(t *testing.T) {
	for name, tab := range map[string]*frame.Table{
		"nil":        nil,
		"no columns": {},
		"ragged": {Columns: []frame.Column{
			frame.Int64Column("a", []int64{1, 2}), frame.Int64Column("b", []int64{1}),
		}},
		"two slices": {Columns: []frame.Column{{Name: "a", Int64: []int64{1}, String: []string{"x"}}}},
	} {
		if _, err := DataFrame(tab); err == nil {
			t.Errorf("%s: want error", name)
		}
	}
}

func TestHeadHTML(t *testing.T) {
	h := Show(sample(), 2)
	out := h.HTML()
	if got := strings.Count(out, "<tr>"); got != 3 { // header + 2 rows
		t.Errorf("%d <tr> in head of 2 rows, want 3:\n%s", got, out)
	}
	for _, s := range []string{"<th>slowdown</th>", "<td>packetsim</td>", "<td>parsimon</td>", "first 2 of 4 rows"} {
		if !strings.Contains(out, s) {
			t.Errorf("head HTML lacks %q:\n%s", s, out)
		}
	}
	if strings.Contains(out, "<td>7</td>") {
		t.Errorf("head of 2 rows shows row 4:\n%s", out)
	}
	if got := (Head{}).HTML(); !strings.Contains(got, "nil frame") {
		t.Errorf("nil head renders %q", got)
	}
}

func linePlot(t *testing.T) *plot.Plot {
	p := plot.New()
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		t.Fatal(err)
	}
	l.Color = color.RGBA{R: 255, A: 255}
	p.Add(l)
	return p
}

func TestImage(t *testing.T) {
	img := Image(linePlot(t), 4*vg.Inch, 3*vg.Inch)
	b := img.Bounds()
	if b.Dx() != 384 || b.Dy() != 288 { // 96 dpi
		t.Fatalf("image %v, want 384x288", b)
	}
	// The line is red: some pixel must be (mostly) red, which a blank
	// canvas would not have.
	red := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r > 0xc000 && g < 0x4000 && bl < 0x4000 {
				red++
			}
		}
	}
	if red < 100 {
		t.Fatalf("only %d red pixels: the line was not drawn", red)
	}
}

func TestSVG(t *testing.T) {
	s, err := SVG(linePlot(t), 4*vg.Inch, 3*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name
		Width   string `xml:"width,attr"`
	}
	if err := xml.Unmarshal([]byte(s), &doc); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	if doc.XMLName.Local != "svg" || doc.Width != "288pt" {
		t.Fatalf("root <%s width=%q>, want <svg width=\"288pt\"> (4 in at 72 pt/in)", doc.XMLName.Local, doc.Width)
	}
	if !strings.Contains(s, "stroke:#FF0000") {
		t.Error("SVG lacks the red line")
	}
}
