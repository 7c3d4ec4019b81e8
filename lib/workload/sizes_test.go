package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func mustDist(t testing.TB, s SizeSpec) SizeDist {
	t.Helper()
	d, err := NewSizeDist(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// draw returns n sorted samples of d from a fixed seed.
func draw(d SizeDist, n int, seed uint64) []int64 {
	r := rand.New(rand.NewPCG(seed, 7))
	xs := make([]int64, n)
	for i := range xs {
		xs[i] = d.Sample(r)
	}
	slices.Sort(xs)
	return xs
}

func sampleMean(xs []int64) float64 {
	s := 0.0
	for _, x := range xs {
		s += float64(x)
	}
	return s / float64(len(xs))
}

// integratedMean is E[X] = integral of 1 - CDF over x > 0, by the trapezoid
// rule on a geometric grid: a second computation of the mean that only
// uses CDF.
func integratedMean(d SizeDist, hi float64) float64 {
	const steps = 200000
	sum, prev, prevX := 0.0, 1.0, 0.0
	ratio := math.Pow(hi, 1.0/steps)
	for x := 1.0; x <= hi*1.0000001; x *= ratio {
		v := 1 - d.CDF(x)
		sum += (v + prev) / 2 * (x - prevX)
		prev, prevX = v, x
	}
	return sum
}

// cdfMedian finds the median by bisection on CDF.
func cdfMedian(d SizeDist) float64 {
	lo, hi := 0.0, 1e12
	for range 200 {
		m := (lo + hi) / 2
		if d.CDF(m) < 0.5 {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// Facts from REFERENCE.md "Workloads" (Parsimon §5.1, Roy et al.), and for
// WebSearch the summary our CSV header promises.
func TestEmbeddedSizeFacts(t *testing.T) {
	for _, tc := range []struct {
		name              string
		mean, median, max float64
	}{
		{"cachefollower", 610e3, 23e3, 28e6},
		{"webserver", 91e3, 1.5e3, 20e6},
		{"hadoop", 569e3, 700, 96e6},
		{"websearch", 1.71e6, 73e3, 30e6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := mustDist(t, SizeSpec{Dist: tc.name})
			if !within(d.Mean(), tc.mean, 0.1) {
				t.Errorf("mean %.0f, want %.0f within 10%%", d.Mean(), tc.mean)
			}
			if im := integratedMean(d, 2*tc.max); !within(im, d.Mean(), 1e-3) {
				t.Errorf("Mean() %.0f disagrees with the integral of 1-CDF %.0f", d.Mean(), im)
			}
			if m := cdfMedian(d); !within(m, tc.median, 0.1) {
				t.Errorf("median %.0f, want %.0f within 10%%", m, tc.median)
			}
			if d.CDF(tc.max) != 1 || d.CDF(tc.max*0.99) == 1 {
				t.Errorf("CDF(max %g) = %v, CDF(0.99 max) = %v: the largest size is not %g", tc.max, d.CDF(tc.max), d.CDF(tc.max*0.99), tc.max)
			}
			xs := draw(d, 1_000_000, 1)
			if m := sampleMean(xs); !within(m, tc.mean, 0.1) {
				t.Errorf("sample mean %.0f, want %.0f within 10%%", m, tc.mean)
			}
			if m := float64(xs[len(xs)/2]); !within(m, tc.median, 0.1) {
				t.Errorf("sample median %.0f, want %.0f within 10%%", m, tc.median)
			}
			if xs[0] < 1 || float64(xs[len(xs)-1]) > tc.max {
				t.Errorf("samples span [%d, %d], outside [1, %g]", xs[0], xs[len(xs)-1], tc.max)
			}
		})
	}
}

// WebServer: a third of flows below 1 KB, 80% below 10 KB (Parsimon §5.3).
func TestWebServerSmallFlows(t *testing.T) {
	d := mustDist(t, SizeSpec{Dist: "WebServer"})
	xs := draw(d, 1_000_000, 2)
	frac := func(limit int64) float64 {
		n, _ := slices.BinarySearch(xs, limit+1)
		return float64(n) / float64(len(xs))
	}
	for _, tc := range []struct {
		limit int64
		want  float64
	}{{1000, 1.0 / 3}, {10000, 0.8}} {
		if got := d.CDF(float64(tc.limit)); math.Abs(got-tc.want) > 0.02 {
			t.Errorf("CDF(%d) = %.3f, want %.3f", tc.limit, got, tc.want)
		}
		if got := frac(tc.limit); math.Abs(got-tc.want) > 0.02 {
			t.Errorf("share of samples <= %d B = %.3f, want %.3f", tc.limit, got, tc.want)
		}
	}
}

// ksStat is the Kolmogorov-Smirnov distance between sorted integer samples
// and d. Sample rounds up, so P(size <= k) = CDF(k) and P(size < k) =
// CDF(k-1): both sides of each step are compared with the exact discrete
// CDF (for continuous CDFs this is the usual statistic).
func ksStat(xs []int64, d SizeDist) float64 {
	n := float64(len(xs))
	dmax := 0.0
	for i := 0; i < len(xs); {
		j := i
		for j < len(xs) && xs[j] == xs[i] {
			j++
		}
		below, upto := float64(i)/n, float64(j)/n
		dmax = max(dmax, math.Abs(below-d.CDF(float64(xs[i]-1))), math.Abs(upto-d.CDF(float64(xs[i]))))
		i = j
	}
	return dmax
}

// ksCritical01 is the asymptotic critical value of the one-sample KS
// statistic at alpha = 0.01.
func ksCritical01(n int) float64 { return 1.628 / math.Sqrt(float64(n)) }

func TestSamplesPassKS(t *testing.T) {
	const n = 100_000
	specs := []SizeSpec{
		{Dist: "cachefollower"}, {Dist: "webserver"}, {Dist: "hadoop"}, {Dist: "websearch"},
		{Dist: "pareto", Mean: 5000}, {Dist: "pareto", Mean: 50000, Shape: 2.5},
		{Dist: "exp", Mean: 20000},
		{Dist: "gaussian", Mean: 10000}, {Dist: "gaussian", Mean: 30000, Shape: 1},
		{Dist: "lognormal", Mean: 5000}, {Dist: "lognormal", Mean: 50000, Shape: 2},
	}
	for i, s := range specs {
		d := mustDist(t, s)
		t.Run(d.Name(), func(t *testing.T) {
			xs := draw(d, n, uint64(100+i))
			if D := ksStat(xs, d); D > ksCritical01(n) {
				t.Errorf("KS statistic %.5f exceeds the alpha=0.01 critical value %.5f", D, ksCritical01(n))
			}
		})
	}
}

// The KS check must be able to fail: samples of one distribution against
// a neighbouring CDF are rejected.
func TestKSRejectsWrongDistribution(t *testing.T) {
	const n = 100_000
	for _, tc := range []struct{ sample, against SizeSpec }{
		{SizeSpec{Dist: "webserver"}, SizeSpec{Dist: "hadoop"}},
		{SizeSpec{Dist: "lognormal", Mean: 10000}, SizeSpec{Dist: "exp", Mean: 10000}},
		{SizeSpec{Dist: "gaussian", Mean: 10000}, SizeSpec{Dist: "gaussian", Mean: 10500}},
	} {
		xs := draw(mustDist(t, tc.sample), n, 3)
		if D := ksStat(xs, mustDist(t, tc.against)); D <= ksCritical01(n) {
			t.Errorf("%s samples against %s: KS %.5f not above %.5f", tc.sample.Dist, tc.against.Dist, D, ksCritical01(n))
		}
	}
}

// Parametric families against closed forms: the mean is the parameter; the
// median is mean*ln 2 (exp), exp(ln(mean) - sigma^2/2) (log-normal),
// xm*2^(1/alpha) with xm = mean(alpha-1)/alpha (Pareto).
func TestParametricMoments(t *testing.T) {
	for _, tc := range []struct {
		spec    SizeSpec
		median  float64 // 0: not checked in closed form
		meanTol float64 // relative tolerance of the 1M-sample mean
	}{
		{SizeSpec{Dist: "exp", Mean: 5000}, 5000 * math.Ln2, 0.01},
		{SizeSpec{Dist: "exp", Mean: 50000}, 50000 * math.Ln2, 0.01},
		{SizeSpec{Dist: "lognormal", Mean: 20000}, 20000 * math.Exp(-0.5), 0.01},
		{SizeSpec{Dist: "lognormal", Mean: 20000, Shape: 1.5}, 20000 * math.Exp(-1.125), 0.03},
		{SizeSpec{Dist: "pareto", Mean: 30000, Shape: 2.5}, 30000 * 1.5 / 2.5 * math.Pow(2, 1/2.5), 0.01},
		// Infinite variance: the sample mean converges slowly.
		{SizeSpec{Dist: "pareto", Mean: 30000}, 10000 * math.Pow(2, 1/1.5), 0.05},
		{SizeSpec{Dist: "gaussian", Mean: 20000, Shape: 0.2}, 20000, 0.01},
		{SizeSpec{Dist: "gaussian", Mean: 20000}, 0, 0.01},
		{SizeSpec{Dist: "gaussian", Mean: 20000, Shape: 1}, 0, 0.01},
	} {
		d := mustDist(t, tc.spec)
		t.Run(d.Name(), func(t *testing.T) {
			if d.Mean() != tc.spec.Mean {
				t.Errorf("Mean() = %v, want the parameter %v", d.Mean(), tc.spec.Mean)
			}
			if im := integratedMean(d, tc.spec.Mean*1e5); !within(im, tc.spec.Mean, 0.005) {
				t.Errorf("integral of 1-CDF = %.1f, want the mean %v", im, tc.spec.Mean)
			}
			xs := draw(d, 1_000_000, 4)
			// Rounding up adds half a byte on average.
			if m := sampleMean(xs) - 0.5; !within(m, tc.spec.Mean, tc.meanTol) {
				t.Errorf("sample mean %.1f, want %v within %g", m, tc.spec.Mean, tc.meanTol)
			}
			if tc.median > 0 {
				if m := cdfMedian(d); !within(m, tc.median, 1e-6) {
					t.Errorf("CDF median %.2f, want %.2f", m, tc.median)
				}
				if m := float64(xs[len(xs)/2]); !within(m, tc.median, 0.01) {
					t.Errorf("sample median %.0f, want %.0f", m, tc.median)
				}
			}
		})
	}
}

func TestDefaultShapes(t *testing.T) {
	for _, tc := range []struct {
		dist, name string
	}{
		{"pareto", fmt.Sprintf("pareto(mean=5000,shape=%g)", DefaultParetoShape)},
		{"lognormal", fmt.Sprintf("lognormal(mean=5000,shape=%g)", DefaultLognormalSigma)},
		{"gaussian", fmt.Sprintf("gaussian(mean=5000,shape=%g)", DefaultGaussianCV)},
		{"EXP", "exp(mean=5000)"},
	} {
		if d := mustDist(t, SizeSpec{Dist: tc.dist, Mean: 5000}); d.Name() != tc.name {
			t.Errorf("%s: name %q, want %q", tc.dist, d.Name(), tc.name)
		}
	}
}

func TestSameSeedSameSizes(t *testing.T) {
	for _, s := range []SizeSpec{{Dist: "hadoop"}, {Dist: "pareto", Mean: 9000}, {Dist: "gaussian", Mean: 9000, Shape: 1}} {
		d := mustDist(t, s)
		a, b := rand.New(rand.NewPCG(42, 1)), rand.New(rand.NewPCG(42, 1))
		c := rand.New(rand.NewPCG(43, 1))
		differ := false
		for i := range 1000 {
			x, y, z := d.Sample(a), d.Sample(b), d.Sample(c)
			if x != y {
				t.Fatalf("%s: draw %d differs for the same seed: %d vs %d", d.Name(), i, x, y)
			}
			differ = differ || x != z
		}
		if !differ {
			t.Errorf("%s: seeds 42 and 43 gave the same 1000 sizes", d.Name())
		}
	}
}

func TestFirstRowAtom(t *testing.T) {
	d, err := ReadCDF("atom", strings.NewReader("100,0.4\n200,1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.CDF(99.9) != 0 || d.CDF(100) != 0.4 || math.Abs(d.CDF(150)-0.7) > 1e-12 {
		t.Errorf("CDF(99.9, 100, 150) = %v, %v, %v; want 0, 0.4, 0.7", d.CDF(99.9), d.CDF(100), d.CDF(150))
	}
	if want := 0.4*100 + 0.6*150; math.Abs(d.Mean()-want) > 1e-9 {
		t.Errorf("mean %v, want %v", d.Mean(), want)
	}
	xs := draw(d, 100_000, 5)
	n, _ := slices.BinarySearch(xs, 101)
	if f := float64(n) / float64(len(xs)); math.Abs(f-0.4) > 0.01 {
		t.Errorf("%.3f of samples are 100 B, want 0.4", f)
	}
}

func TestEmpiricalFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mine.csv")
	if err := os.WriteFile(path, []byte("# two sizes\nsize_bytes,cdf\n1000,0\n3000,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := mustDist(t, SizeSpec{Dist: "Empirical", File: path})
	if d.Mean() != 2000 || d.Name() != path {
		t.Errorf("mean %v name %q, want 2000 and %q", d.Mean(), d.Name(), path)
	}
}

func TestSizeSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		spec SizeSpec
		want string
	}{
		{SizeSpec{Dist: "zipf", Mean: 5000}, "unknown size distribution \"zipf\" (known: cachefollower, webserver, hadoop, websearch, empirical, pareto, exp, gaussian, lognormal)"},
		{SizeSpec{}, "unknown size distribution"},
		{SizeSpec{Dist: "pareto"}, "needs a positive mean"},
		{SizeSpec{Dist: "exp", Mean: -1}, "needs a positive mean"},
		{SizeSpec{Dist: "pareto", Mean: 5000, Shape: 1}, "must exceed 1"},
		{SizeSpec{Dist: "gaussian", Mean: 5000, Shape: 1.5}, "at most 1"},
		{SizeSpec{Dist: "exp", Mean: 5000, Shape: 2}, "has no shape"},
		{SizeSpec{Dist: "lognormal", Mean: 5000, Shape: -1}, "shape -1 must be a positive number"},
		{SizeSpec{Dist: "lognormal", Mean: 5000, File: "x.csv"}, "takes no file"},
		{SizeSpec{Dist: "hadoop", Mean: 5000}, "fixed dataset"},
		{SizeSpec{Dist: "empirical"}, "needs a file"},
		{SizeSpec{Dist: "empirical", File: filepath.Join(t.TempDir(), "missing.csv")}, "no such file"},
	} {
		_, err := NewSizeDist(tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.spec, err, tc.want)
		}
	}
}

func TestReadCDFErrors(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"", "no size_bytes,cdf rows"},
		{"# only a comment\n", "no size_bytes,cdf rows"},
		{"100,0\n200\n", "line 2: want 2 comma-separated fields"},
		{"100,0\n200,x\n", "line 2: \"200,x\" is not two numbers"},
		{"0,0\n200,1\n", "line 1: size 0 must be a positive"},
		{"100,0\n200,1.5\n", "line 2: cdf 1.5 must lie in [0, 1]"},
		{"100,0\n100,1\n", "line 2: size 100 does not exceed the previous size 100"},
		{"#c\n100,0.5\n200,0.4\n300,1\n", "line 3: cdf 0.4 is below the previous 0.5"},
		{"100,0\n200,0.9\n", "the cdf ends at 0.9"},
		{"100,0\nNaN,1\n", "line 2: size NaN must be a positive"},
	} {
		_, err := ReadCDF("test.csv", strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "test.csv") {
			t.Errorf("%q: error %v, want one naming test.csv and containing %q", tc.in, err, tc.want)
		}
	}
}

func TestSampleDoesNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, s := range []SizeSpec{{Dist: "webserver"}, {Dist: "lognormal", Mean: 5000}, {Dist: "gaussian", Mean: 5000}} {
		d := mustDist(t, s)
		if a := testing.AllocsPerRun(1000, func() { d.Sample(r) }); a != 0 {
			t.Errorf("%s: %v allocations per sample", d.Name(), a)
		}
	}
}

func BenchmarkSample(b *testing.B) {
	for _, s := range []SizeSpec{
		{Dist: "cachefollower"}, {Dist: "webserver"}, {Dist: "hadoop"},
		{Dist: "pareto", Mean: 20000}, {Dist: "exp", Mean: 20000},
		{Dist: "gaussian", Mean: 20000}, {Dist: "lognormal", Mean: 20000},
	} {
		d := mustDist(b, s)
		b.Run(s.Dist, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			var sum int64
			for b.Loop() {
				sum += d.Sample(r)
			}
			if sum <= 0 {
				b.Fatal("no bytes drawn")
			}
		})
	}
}

func ExampleNewSizeDist() {
	d, err := NewSizeDist(SizeSpec{Dist: "webserver"})
	if err != nil {
		panic(err)
	}
	r := rand.New(rand.NewPCG(1, 2)) // every random choice flows from a seed
	size := d.Sample(r)
	fmt.Printf("%s: mean %.0f KB, %.0f%% of flows <= 10 KB, sample in [1, 20 MB]: %v\n",
		d.Name(), d.Mean()/1000, 100*d.CDF(10000), size >= 1 && size <= 20e6)
	// Output: webserver: mean 92 KB, 80% of flows <= 10 KB, sample in [1, 20 MB]: true
}
