package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestPercentileHandCases(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		{"min", []float64{1, 2, 3, 4}, 0, 1},
		{"max", []float64{1, 2, 3, 4}, 100, 4},
		{"median of even n interpolates", []float64{1, 2, 3, 4}, 50, 2.5},
		{"quartile h=0.75", []float64{1, 2, 3, 4}, 25, 1.75},
		{"p99 h=2.97", []float64{1, 2, 3, 4}, 99, 3.97},
		{"textbook p40 h=1.6", []float64{15, 20, 35, 40, 50}, 40, 29},
		{"odd median is the middle value", []float64{15, 20, 35, 40, 50}, 50, 35},
		{"unsorted input", []float64{3, 1, 2}, 50, 2},
		{"single value", []float64{7}, 99, 7},
		{"ties", []float64{5, 5, 5, 9}, 75, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Percentile(tc.xs, tc.p); math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("Percentile(%v, %g) = %g, want %g", tc.xs, tc.p, got, tc.want)
			}
		})
	}
}

func TestPercentileUndefined(t *testing.T) {
	for _, tc := range []struct {
		name string
		xs   []float64
		p    float64
	}{
		{"empty", nil, 50},
		{"negative p", []float64{1, 2}, -1},
		{"p above 100", []float64{1, 2}, 100.5},
		{"NaN p", []float64{1, 2}, math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Percentile(tc.xs, tc.p); !math.IsNaN(got) {
				t.Errorf("Percentile(%v, %g) = %g, want NaN", tc.xs, tc.p, got)
			}
		})
	}
}

// On the values 0..n-1 in any order, type-7 percentile p is exactly
// (n-1)p/100; the input must come back unmodified.
func TestPercentileOfARange(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{2, 10, 101, 1000} {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(i)
		}
		r.Shuffle(n, func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		orig := slices.Clone(xs)
		ps := []float64{0, 1, 12.5, 50, 90, 99, 99.9, 100}
		got := Percentiles(xs, ps)
		for i, p := range ps {
			if want := float64(n-1) * p / 100; math.Abs(got[i]-want) > 1e-9 {
				t.Errorf("n=%d p=%g: got %g, want %g", n, p, got[i], want)
			}
		}
		if !slices.Equal(xs, orig) {
			t.Errorf("n=%d: Percentiles modified its input", n)
		}
	}
}

func TestP99Error(t *testing.T) {
	for _, tc := range []struct {
		est, base, want float64
	}{
		{1.1, 1, 0.1},
		{3, 4, -0.25},
		{4.20, 1.94, (4.20 - 1.94) / 1.94}, // m3 Table 5, 30% load: +116%
		{2, 2, 0},
	} {
		if got := P99Error(tc.est, tc.base); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("P99Error(%g, %g) = %g, want %g", tc.est, tc.base, got, tc.want)
		}
	}
	for _, base := range []float64{0, -1, math.NaN()} {
		if got := P99Error(1, base); !math.IsNaN(got) {
			t.Errorf("P99Error(1, %g) = %g, want NaN", base, got)
		}
	}
}

func TestBins(t *testing.T) {
	for _, tc := range []struct {
		bins   Bins
		labels string
		sizes  []int64
		want   []int
	}{
		{ParsimonBins(), "<=1KB 1KB-10KB 10KB-100KB >100KB",
			[]int64{1, 1000, 1001, 10_000, 10_001, 100_000, 100_001, 1 << 40}, []int{0, 0, 1, 1, 2, 2, 3, 3}},
		{NS3Bins(), "<=10KB 10KB-1MB >1MB",
			[]int64{9_999, 10_000, 10_001, 1_000_000, 1_000_001}, []int{0, 0, 1, 1, 2}},
		{M3Bins(), "<=250B 250B-500B 500B-750B 750B-1KB 1KB-2KB 2KB-5KB 5KB-7.5KB 7.5KB-10KB 10KB-50KB >50KB",
			[]int64{250, 251, 7_500, 7_501, 50_001}, []int{0, 1, 6, 7, 9}},
		{M3OutputBins(), "<=1KB 1KB-10KB 10KB-50KB >50KB", []int64{50_000, 50_001}, []int{2, 3}},
		{AllSizes(), "all", []int64{1, 1 << 50}, []int{0, 0}},
	} {
		if got := strings.Join(tc.bins.Labels, " "); got != tc.labels {
			t.Errorf("labels %q, want %q", got, tc.labels)
		}
		for i, s := range tc.sizes {
			if got := tc.bins.Index(s); got != tc.want[i] {
				t.Errorf("%s: Index(%d) = %d, want %d", tc.labels, s, got, tc.want[i])
			}
		}
	}
}

func TestBinsErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edges  []int64
		labels []string
		want   string
	}{
		{"decreasing", []int64{10, 5}, nil, "strictly increasing"},
		{"repeated", []int64{10, 10}, nil, "strictly increasing"},
		{"zero", []int64{0}, nil, "positive"},
		{"label count", []int64{10}, []string{"a"}, "need 2 labels"},
	} {
		if _, err := NewBins(tc.edges, tc.labels); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", tc.name, err, tc.want)
		}
	}
	if _, err := BinsByName("nope"); err == nil || !strings.Contains(err.Error(), "parsimon") {
		t.Errorf("BinsByName(nope): %v, want an error listing the known names", err)
	}
}

// Compare on records whose estimate is the baseline scaled by 1.1 in one
// bin and by 0.5 in another: the errors are exactly those factors minus 1.
func TestCompare(t *testing.T) {
	var base, est []Record
	for i := 1; i <= 101; i++ { // bin <=1KB: slowdowns 1..101, p99 = 100
		base = append(base, Record{Size: 500, Slowdown: float64(i)})
		est = append(est, Record{Size: 500, Slowdown: 1.1 * float64(i)})
	}
	for i := 1; i <= 11; i++ { // bin 10KB-100KB: p99 = 10.9
		base = append(base, Record{Size: 50_000, Slowdown: float64(i)})
		est = append(est, Record{Size: 50_000, Slowdown: 0.5 * float64(i)})
	}
	c := Compare(est, base, ParsimonBins(), 99)
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"bin0 base", c.Base[0], 100},
		{"bin0 est", c.Est[0], 110},
		{"bin0 error", c.Error[0], 0.1},
		{"bin2 base", c.Base[2], 10.9},
		{"bin2 error", c.Error[2], -0.5},
		{"all base", c.BaseAll, Percentile(Slowdowns(base), 99)},
	} {
		if math.Abs(tc.got-tc.want) > 1e-9 {
			t.Errorf("%s = %g, want %g", tc.name, tc.got, tc.want)
		}
	}
	if c.Count[0] != 101 || c.BaseCount[2] != 11 || c.Count[1] != 0 {
		t.Errorf("counts %v / %v", c.Count, c.BaseCount)
	}
	for _, v := range []float64{c.Est[1], c.Base[3], c.Error[1], c.Error[3]} {
		if !math.IsNaN(v) {
			t.Errorf("an empty bin gave %g, want NaN", v)
		}
	}
	if want := P99Error(c.All, c.BaseAll); c.ErrorAll != want {
		t.Errorf("overall error %g, want %g", c.ErrorAll, want)
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{250: "250B", 1000: "1KB", 7500: "7.5KB", 1_000_000: "1MB", 1234: "1234B", 2_500_000: "2.5MB"} {
		if got := ByteSize(n); got != want {
			t.Errorf("ByteSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestComparisonString(t *testing.T) {
	c := Comparison{Percentile: 99, Labels: []string{"<=1KB", ">1KB"}, Count: []int{3, 1},
		Est: []float64{2, 4}, Base: []float64{2, 5}, Error: []float64{0, -0.2}, All: 4, BaseAll: 5, ErrorAll: -0.2}
	want := "size            flows    est p99   base p99    error\n" +
		"<=1KB               3      2.000      2.000    +0.0%\n" +
		">1KB                1      4.000      5.000   -20.0%\n" +
		"all                 4      4.000      5.000   -20.0%\n"
	if got := c.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
