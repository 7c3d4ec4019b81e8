package plot

import (
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/tailscope/tailscope/lib/internal/synth"
	"github.com/tailscope/tailscope/lib/metrics"
)

// outDir is where figures go: TAILSCOPE_FIGURES keeps them for a look,
// otherwise a temporary directory.
func outDir(t *testing.T) string {
	if d := os.Getenv("TAILSCOPE_FIGURES"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// synthRecords draws n flows with Meta-like sizes and slowdowns 1 + a
// log-normal excess that grows with scale (a stand-in estimator output).
func synthRecords(seed uint64, n int, scale float64) []metrics.Record {
	r := rand.New(rand.NewPCG(seed, 7))
	recs := make([]metrics.Record, n)
	for i := range recs {
		size := int64(math.Exp(r.NormFloat64()*2.2 + 8))
		recs[i] = metrics.Record{FlowID: i, Size: size + 1, Slowdown: 1 + scale*math.Exp(r.NormFloat64()*1.1)}
	}
	return recs
}

func TestSilvermanBandwidth(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []float64
		want float64
	}{
		// sd = 1.581, IQR/1.34 = (4-2)/1.34 = 1.493 is the smaller.
		{"1..5", []float64{1, 2, 3, 4, 5}, 0.9 * (2 / 1.34) * math.Pow(5, -0.2)},
		// IQR 0 (ties), so sd = sqrt(0.2) is used.
		{"ties", []float64{0, 0, 0, 0, 1}, 0.9 * math.Sqrt(0.2) * math.Pow(5, -0.2)},
		{"one value", []float64{3}, 0},
		{"all equal", []float64{2, 2, 2}, 0},
	} {
		if got := SilvermanBandwidth(tc.xs); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("%s: bandwidth %g, want %g", tc.name, got, tc.want)
		}
	}
}

// The KDE of standard-normal samples integrates to 1 and, with Silverman's
// bandwidth, lies close to the normal density (its bias is a smoothing of
// the pdf by the kernel: N(0, 1 + bw^2), which the test also checks).
func TestKDENormal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	xs := make([]float64, 20000)
	for i := range xs {
		xs[i] = r.NormFloat64()
	}
	bw := SilvermanBandwidth(xs)
	// Silverman's rule on normal data: 0.9 n^-0.2 (min(sd, IQR/1.34) = ~1).
	if want := 0.9 * math.Pow(20000, -0.2); math.Abs(bw-want)/want > 0.05 {
		t.Errorf("bandwidth %g, want about %g", bw, want)
	}
	var at []float64
	for x := -6.0; x <= 6; x += 0.01 {
		at = append(at, x)
	}
	d := KDE(xs, bw, at)
	var integral float64
	for i := 1; i < len(at); i++ {
		integral += (d[i] + d[i-1]) / 2 * (at[i] - at[i-1])
	}
	if math.Abs(integral-1) > 1e-3 {
		t.Errorf("KDE integrates to %g, want 1", integral)
	}
	smooth := math.Sqrt(1 + bw*bw)
	for i, x := range at {
		if x < -3 || x > 3 || i%50 != 0 {
			continue
		}
		want := math.Exp(-x*x/(2*smooth*smooth)) / (smooth * math.Sqrt(2*math.Pi))
		if math.Abs(d[i]-want) > 0.012 {
			t.Errorf("KDE(%g) = %.4f, want %.4f (normal pdf smoothed by the kernel)", x, d[i], want)
		}
	}
	if KDE(nil, 1, at) != nil || KDE(xs, 0, at) != nil {
		t.Error("KDE of no data or zero bandwidth should be nil")
	}
}

func TestViolin(t *testing.T) {
	v, err := NewViolin(2, []float64{9, 1, 8, 2, 7, 3, 6, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"min", v.Min, 1}, {"Q1", v.Q1, 3}, {"median", v.Median, 5}, {"Q3", v.Q3, 7}, {"max", v.Max, 9}} {
		if c.got != c.want {
			t.Errorf("%s = %g, want %g", c.name, c.got, c.want)
		}
	}
	if v.Y[0] != 1 || v.Y[len(v.Y)-1] != 9 {
		t.Errorf("density evaluated over [%g, %g], want the data range [1, 9]", v.Y[0], v.Y[len(v.Y)-1])
	}
	// Uniform data: the density is symmetric about the median.
	for i := range v.Density {
		if j := len(v.Density) - 1 - i; math.Abs(v.Density[i]-v.Density[j]) > 1e-12 {
			t.Fatalf("density not symmetric: %g at %g, %g at %g", v.Density[i], v.Y[i], v.Density[j], v.Y[j])
		}
	}
	// The outline is mirrored: the right side's x offsets equal the left's.
	pts := v.outline(100, 20, func(y float64) vg.Length { return vg.Length(10 * y) })
	n := len(v.Y)
	for i := 0; i < n; i++ {
		right, left := pts[i], pts[2*n-1-i]
		if math.Abs(float64(right.X-100)+float64(left.X-100)) > 1e-9 || right.Y != left.Y || right.X-100 > 20+1e-9 {
			t.Fatalf("outline not mirrored at %d: %v vs %v", i, right, left)
		}
	}
	for _, bad := range [][]float64{nil, {1, math.NaN()}, {math.Inf(1)}} {
		if _, err := NewViolin(0, bad); err == nil {
			t.Errorf("NewViolin(%v) accepted bad values", bad)
		}
	}
	one, err := NewViolin(0, []float64{4})
	if err != nil || one.Density != nil || one.Median != 4 {
		t.Errorf("single-value violin: %+v, %v; want a median of 4 and no density", one, err)
	}
	// Drawn alone on a plot without axes, it still shows: a dark pixel
	// where its value is, the middle of the y range [3, 5].
	p := newPlot("", "", "")
	p.HideAxes()
	p.Add(one)
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -1, 1, 3, 5
	img := Image(Single(p))
	b := img.Bounds()
	dark := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r+g+bl < 3*0x8000 {
				dark++
			}
		}
	}
	if dark == 0 {
		t.Error("a violin of one value draws nothing visible")
	}
}

func TestCDFCurve(t *testing.T) {
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = float64(100 - i) // 1..100, reversed
	}
	pts := cdfCurve(xs, 0.9)
	if pts[0].X != 90 || pts[0].Y != 0.9 || pts[len(pts)-1].X != 100 || pts[len(pts)-1].Y != 1 {
		t.Errorf("tail curve runs from %v to %v, want (90, 0.9) to (100, 1)", pts[0], pts[len(pts)-1])
	}
	for _, p := range pts { // every point lies on the empirical CDF's step
		if k := math.Ceil(p.Y*100 - 1e-9); p.X != k {
			t.Fatalf("point %v: the smallest value with CDF >= %g is %g", p, p.Y, k)
		}
	}
}

// saveBoth writes f as PNG and SVG and checks both files: the PNG decodes
// with the expected pixel size, the SVG is well-formed XML with an svg root.
func saveBoth(t *testing.T, f *Figure, name string) {
	t.Helper()
	dir := outDir(t)
	pngPath := filepath.Join(dir, name+".png")
	if err := Save(f, pngPath); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	cfg, err := png.DecodeConfig(fh)
	if err != nil {
		t.Fatalf("%s: %v", pngPath, err)
	}
	w, h := f.size()
	if wantW, wantH := int(float64(w/vg.Inch)*DPI+0.5), int(float64(h/vg.Inch)*DPI+0.5); cfg.Width != wantW || cfg.Height != wantH {
		t.Errorf("%s is %dx%d px, want %dx%d", pngPath, cfg.Width, cfg.Height, wantW, wantH)
	}
	svgPath := filepath.Join(dir, name+".svg")
	if err := Save(f, svgPath); err != nil {
		t.Fatal(err)
	}
	sf, err := os.Open(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	defer sf.Close()
	dec := xml.NewDecoder(sf)
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", svgPath, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Errorf("%s: root element %q, want svg", svgPath, root)
	}
	if img := Image(f); img.Bounds().Dx() != cfg.Width || img.Bounds().Dy() != cfg.Height {
		t.Errorf("Image is %v, want %dx%d like the PNG", img.Bounds(), cfg.Width, cfg.Height)
	}
}

func TestFigures(t *testing.T) {
	base, est := synthRecords(1, 20000, 1), synthRecords(2, 20000, 1.15)
	rows := synth.Summaries(5, 192)
	for _, tc := range []struct {
		name string
		make func() (*Figure, error)
	}{
		{"slowdown_cdf", func() (*Figure, error) {
			return SlowdownCDF([]string{"ns-3", "parsimon"}, [][]metrics.Record{base, est}, metrics.ParsimonBins(), 0.9)
		}},
		{"slowdown_cdf_all", func() (*Figure, error) {
			return SlowdownCDF([]string{"ns-3"}, [][]metrics.Record{base}, metrics.AllSizes(), 0)
		}},
		{"error_cdf", func() (*Figure, error) { return ErrorCDF(rows, "parsimon", metrics.ParsimonLoadEdges()) }},
		{"violins_low", func() (*Figure, error) { return ErrorViolins(rows, "parsimon", 0, 0.5) }},
		{"violins_high", func() (*Figure, error) { return ErrorViolins(rows, "parsimon", 0.5, 1) }},
		{"heatmap", func() (*Figure, error) { return SlowdownHeatmap(base, metrics.M3Bins(), "synthetic records") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.make()
			if err != nil {
				t.Fatal(err)
			}
			saveBoth(t, f, tc.name)
		})
	}
}

func TestFigureErrors(t *testing.T) {
	recs := synthRecords(1, 100, 1)
	bad := append([]metrics.Record(nil), recs...)
	bad[3].Slowdown = 0
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"names", second(SlowdownCDF([]string{"a", "b"}, [][]metrics.Record{recs}, metrics.ParsimonBins(), 0.9)), "one name per record set"},
		{"tail", second(SlowdownCDF([]string{"a"}, [][]metrics.Record{recs}, metrics.ParsimonBins(), 1)), "tail must be in [0, 1)"},
		{"zero slowdown", second(SlowdownCDF([]string{"a"}, [][]metrics.Record{bad}, metrics.ParsimonBins(), 0.9)), "flow 3 has slowdown 0"},
		{"no records", second(SlowdownCDF([]string{"a"}, [][]metrics.Record{nil}, metrics.ParsimonBins(), 0.9)), "no records"},
		{"no error rows", second(ErrorCDF(nil, "parsimon", nil)), `estimator "parsimon"`},
		{"edges", second(ErrorCDF(nil, "x", []float64{0.5, 0.4})), "must increase"},
		{"no violin rows", second(ErrorViolins(synth.Summaries(1, 10), "m3", 0, 1)), `estimator "m3"`},
		{"empty heatmap", second(SlowdownHeatmap(nil, metrics.M3Bins(), "")), "no records"},
		{"format", Save(Single(newPlot("", "", "")), "fig.pdf"), `unknown figure format ".pdf"`},
		{"no panels", Save(&Figure{}, "fig.png"), "no panels"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", tc.name, tc.err, tc.want)
		}
	}
}

func second(_ *Figure, err error) error { return err }

// WhatIf draws one panel per class, two to a row, with intervals beside
// their points and cut at a slowdown of 1, and refuses data whose shapes
// disagree.
func TestWhatIf(t *testing.T) {
	d := WhatIfData{Title: "eta", Param: "hpcc.eta", X: []float64{0.7, 0.8, 0.9}, Classes: []string{"<=1KB", "1-10KB", ">10KB"},
		Series: []WhatIfSeries{
			{Name: "packetsim", Y: [][]float64{{2, 2.5, 3}, {3, 3.5, 4}, {5, 5, 6}}, Half: [][]float64{{0.1, 3, 0.1}, {0.1, 0.1, 0.1}, {0.3, 0.2, math.NaN()}}},
			{Name: "m3", Y: [][]float64{{2, 2.4, 3.1}, {3, 3.4, 4.1}, {5, 5.2, 5.9}}},
		}}
	f, err := WhatIf(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Panels) != 2 || len(f.Panels[0]) != 2 || len(f.Panels[1]) != 1 {
		t.Fatalf("layout %d rows", len(f.Panels))
	}
	// 2.5 ± 3 reaches below 1 and stops there; packetsim's bars, the first
	// of two series, sit left of x = 0.7 by 0.6% of the x span.
	if p := f.Panels[0][0]; p.Y.Min != 1 || p.Y.Max != 5.5 || math.Abs(p.X.Min-(0.7-0.006*0.2)) > 1e-12 {
		t.Errorf("first panel spans x [%g, %g], y [%g, %g]; want x from 0.6988, y [1, 5.5]", p.X.Min, p.X.Max, p.Y.Min, p.Y.Max)
	}
	if img := Image(f); img.Bounds().Dx() == 0 {
		t.Error("empty image")
	}
	// The legend stands beside the panels, none on the data.
	c := draw.New(vgimg.New(400, 300))
	if f.Side == nil || f.Side.Legend.Rectangle(c).Size().X == 0 {
		t.Error("no legend beside the panels")
	}
	for _, row := range f.Panels {
		for _, p := range row {
			if w := p.Legend.Rectangle(c).Size().X; w != 0 {
				t.Errorf("panel %q has a legend %v wide on its data", p.Title.Text, w)
			}
		}
	}
	d.XLabels = []string{"a", "b"}
	if _, err := WhatIf(d); err == nil {
		t.Error("accepted 2 labels for 3 values")
	}
	d.XLabels = nil
	d.Series[1].Y = d.Series[1].Y[:2]
	if _, err := WhatIf(d); err == nil {
		t.Error("accepted a series without every class")
	}
}

func TestPercentRange(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string
	}{{0.36, 0.36, "36%"}, {0.361, 0.364, "36%"}, {0.36, 0.7, "36-70%"}, {0.3549, 0.3551, "35-36%"}} {
		if got := percentRange(tc.lo, tc.hi); got != tc.want {
			t.Errorf("percentRange(%g, %g) = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}
