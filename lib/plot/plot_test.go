package plot

import (
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"gonum.org/v1/plot/vg"
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

// synthSummaries draws sweep rows whose error grows with load, more so
// with matrix A and 4:1 oversubscription (the shape of Parsimon Fig. 9).
func synthSummaries(seed uint64, n int) []metrics.Summary {
	r := rand.New(rand.NewPCG(seed, 9))
	bins := metrics.ParsimonBins()
	rows := make([]metrics.Summary, n)
	for i := range rows {
		p := metrics.Params{Matrix: []string{"A", "B", "C"}[r.IntN(3)], Sizes: []string{"cachefollower", "webserver", "hadoop"}[r.IntN(3)],
			Oversub: []float64{1, 2, 4}[r.IntN(3)], Sigma: float64(1 + r.IntN(2)), TargetLoad: 0.25 + 0.5*r.Float64()}
		load := p.TargetLoad * 1.06
		e := 0.02 + 0.1*math.Max(0, load-0.4)*r.ExpFloat64()
		if p.Matrix == "A" && p.Oversub == 4 {
			e *= 3
		}
		c := metrics.Comparison{Percentile: 99, Labels: bins.Labels, Count: make([]int, 4), BaseCount: make([]int, 4)}
		for b := 0; b < 4; b++ {
			base := 2 + float64(b) + r.Float64()
			eb := e + 0.02*r.NormFloat64()
			c.Est, c.Base, c.Error = append(c.Est, base*(1+eb)), append(c.Base, base), append(c.Error, eb)
		}
		c.BaseAll = 3 + r.Float64()
		c.All = c.BaseAll * (1 + e)
		c.ErrorAll = metrics.P99Error(c.All, c.BaseAll)
		rows[i] = metrics.Summary{ScenarioID: fmt.Sprintf("s%03d", i), Estimator: "parsimon", Baseline: "ns3", Params: p,
			Flows: 20000, MaxLoad: load, Top10Load: 0.8 * load, WallSeconds: 2 + r.Float64(), BaseWallSeconds: 300 + 100*r.Float64(), P99: c}
	}
	return rows
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
	rows := synthSummaries(5, 192)
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
		{"error_cdf", func() (*Figure, error) { return ErrorCDF(rows, "parsimon", ParsimonLoadEdges()) }},
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
		{"no violin rows", second(ErrorViolins(synthSummaries(1, 10), "m3", 0, 1)), `estimator "m3"`},
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

// summariesViaParquet writes a summary frame as Parquet and reads its rows
// back.
func summariesViaParquet(t *testing.T, tab *frame.Table) []metrics.Summary {
	t.Helper()
	path := filepath.Join(t.TempDir(), "summary.parquet")
	if err := frame.WriteTable(path, tab); err != nil {
		t.Fatal(err)
	}
	back, err := frame.ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Summaries(back)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A summary frame survives Parquet: the rows read back equal the rows
// written (bin flow counts are not stored).
func TestSummaryTableRoundTrip(t *testing.T) {
	rows := synthSummaries(8, 12)
	tab, err := SummaryTable(rows)
	if err != nil {
		t.Fatal(err)
	}
	got := summariesViaParquet(t, tab)
	if len(got) != len(rows) {
		t.Fatalf("%d rows back, want %d", len(got), len(rows))
	}
	for i := range rows {
		want := rows[i]
		want.P99.Count, want.P99.BaseCount = nil, nil
		if fmt.Sprintf("%+v", got[i]) != fmt.Sprintf("%+v", want) {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, got[i], want)
		}
	}
	mixed := append(synthSummaries(1, 2), metrics.Summary{P99: metrics.Compare(nil, nil, metrics.NS3Bins(), 99)})
	if _, err := SummaryTable(mixed); err == nil || !strings.Contains(err.Error(), "has bins") {
		t.Errorf("rows with different bins: %v", err)
	}
	if _, err := Summaries(frame.RecordsTable(nil, frame.Meta{})); err == nil || !strings.Contains(err.Error(), "not a summary frame") {
		t.Errorf("records frame read as summaries: %v", err)
	}
}

func TestTopErrorsMarkdown(t *testing.T) {
	rows := synthSummaries(5, 50)
	rows[17].P99.ErrorAll = -0.9 // the largest magnitude, an underestimate
	md := Markdown(TopErrors(rows, "parsimon", 5))
	lines := strings.Split(strings.TrimSuffix(md, "\n"), "\n")
	if len(lines) != 7 {
		t.Fatalf("Markdown has %d lines, want header, separator and 5 rows:\n%s", len(lines), md)
	}
	if lines[0] != "| Error | Max load | Matrix | Sizes | Oversub | σ | Scenario |" || lines[1] != "| --- | --- | --- | --- | --- | --- | --- |" {
		t.Errorf("header:\n%s\n%s", lines[0], lines[1])
	}
	if !strings.HasPrefix(lines[2], "| -90.0% |") || !strings.HasSuffix(lines[2], "| s017 |") {
		t.Errorf("first row %q, want scenario s017 at -90.0%%", lines[2])
	}
	prev := math.Inf(1)
	for _, l := range lines[2:] {
		var e float64
		fmt.Sscanf(strings.TrimPrefix(strings.Fields(l)[1], "+"), "%g", &e)
		if math.Abs(e) > prev {
			t.Errorf("rows not ordered by |error|: %q", l)
		}
		prev = math.Abs(e)
	}
	num := &frame.Table{Columns: []frame.Column{frame.Float64Column("x", []float64{1.23456}), frame.StringColumn("s|t", []string{"a|b"})}}
	if got, want := Markdown(num), "| x | s\\|t |\n| ---: | --- |\n| 1.235 | a\\|b |\n"; got != want {
		t.Errorf("Markdown:\n%s\nwant\n%s", got, want)
	}
}

func TestComparisonTable(t *testing.T) {
	rows := synthSummaries(2, 3)
	m3 := rows[0]
	m3.Estimator, m3.WallSeconds = "m3", 1
	m3.P99.All, m3.P99.ErrorAll = m3.P99.BaseAll*0.99, -0.01
	tab := ComparisonTable(append(rows, m3))
	if tab.Len() != 3 {
		t.Fatalf("%d rows, want one per scenario", tab.Len())
	}
	scen, _ := tab.Strings("Scenario")
	speed, _ := tab.Strings("m3 speed-up")
	errs, _ := tab.Strings("m3 error")
	for i, s := range scen {
		if s == m3.ScenarioID {
			if want := fmt.Sprintf("%.0fx", m3.BaseWallSeconds); speed[i] != want || errs[i] != "-1.0%" {
				t.Errorf("m3 on %s: speed-up %q error %q, want %q and -1.0%%", s, speed[i], errs[i], want)
			}
		} else if speed[i] != "" {
			t.Errorf("m3 did not run %s but shows speed-up %q", s, speed[i])
		}
	}
	load, _ := tab.Strings("Max load")
	for i := 1; i < len(load); i++ {
		if load[i] < load[i-1] {
			t.Errorf("rows not ordered by max load: %v", load)
		}
	}
}

// ErrorStats on hand-made rows: two estimators, errors chosen so that each
// statistic has a known value per load range.
func TestErrorStats(t *testing.T) {
	row := func(est string, load, err, wall float64) metrics.Summary {
		r := metrics.Summary{Estimator: est, Baseline: "packetsim", MaxLoad: load, WallSeconds: wall, BaseWallSeconds: 10}
		r.P99.ErrorAll = err
		return r
	}
	rows := []metrics.Summary{
		row("parsimon", 0.30, 0.05, 20), row("parsimon", 0.35, 0.20, 20),
		row("parsimon", 0.70, 0.40, 20), row("parsimon", 0.80, -0.08, 20),
		row("m3", 0.30, -0.02, 1), row("m3", 0.60, math.NaN(), 1),
		row("packetsim", 0.30, 0, 10), // the baseline's own row is left out
	}
	tab := ErrorStats(rows, []float64{0.5})
	got := Markdown(tab)
	want := `| Estimator | Max load | Scenarios | Within 10% | Median \|error\| | Mean \|error\| | Max \|error\| | Over | Speed-up |
| --- | --- | --- | --- | --- | --- | --- | --- | --- |
| m3 | all | 1 | 100.0% | 2.0% | 2.0% | 2.0% | 0.0% | 10x |
| m3 | <= 50.0% | 1 | 100.0% | 2.0% | 2.0% | 2.0% | 0.0% | 10x |
| parsimon | all | 4 | 50.0% | 14.0% | 18.2% | 40.0% | 75.0% | 0.50x |
| parsimon | <= 50.0% | 2 | 50.0% | 12.5% | 12.5% | 20.0% | 100.0% | 0.50x |
| parsimon | > 50.0% | 2 | 50.0% | 24.0% | 24.0% | 40.0% | 50.0% | 0.50x |
`
	if got != want {
		t.Errorf("ErrorStats:\n%s\nwant\n%s", got, want)
	}
}
