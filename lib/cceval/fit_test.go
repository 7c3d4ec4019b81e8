package cceval

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tailscope/tailscope/lib/workload"
	"gonum.org/v1/gonum/stat/distuv"
)

// Fitting a family to a CDF of the same family recovers its parameters.
func TestFitSizesRecovers(t *testing.T) {
	ln, err := workload.NewSizeDist(workload.SizeSpec{Dist: "lognormal", Mean: 5e4, Shape: 1.3})
	if err != nil {
		t.Fatal(err)
	}
	f, err := FitSizes(ln, LogNormal)
	if err != nil {
		t.Fatal(err)
	}
	if mu := math.Log(5e4) - 1.3*1.3/2; math.Abs(f.Mu-mu) > 1e-4 || math.Abs(f.Sigma-1.3) > 1e-4 || f.RMSE > 1e-6 {
		t.Errorf("log-normal fit %+v, want mu %.5f sigma 1.3 and no error", f, mu)
	}
	ex, _ := workload.NewSizeDist(workload.SizeSpec{Dist: "exp", Mean: 2e4})
	if f, err = FitSizes(ex, Exponential); err != nil || math.Abs(f.Scale/2e4-1) > 1e-4 {
		t.Errorf("exponential fit %+v (%v), want mean 2e4", f, err)
	}
	if d, err := f.Dist(); err != nil || d != ExpDist(f.Scale) {
		t.Errorf("Dist() = %v, %v", d, err)
	}
	if _, err := FitSizes(ex, "poisson"); err == nil {
		t.Error("unknown family: no error")
	}
	if _, err := (SizeFit{Family: Normal}).Dist(); err == nil {
		t.Error("a normal fit became a model distribution")
	}
}

// Fig. 14b: of the families fitted to the published CDFs, the log-normal
// fits best.
func TestFitSizesEmbedded(t *testing.T) {
	for _, name := range []string{"websearch", "webserver", "cachefollower", "hadoop"} {
		d, err := workload.NewSizeDist(workload.SizeSpec{Dist: name})
		if err != nil {
			t.Fatal(err)
		}
		rmse := map[string]float64{}
		for _, fam := range []string{LogNormal, Normal, Exponential} {
			f, err := FitSizes(d, fam)
			if err != nil {
				t.Fatal(err)
			}
			rmse[fam] = f.RMSE
			if fam == LogNormal {
				t.Logf("%s: %s, max error %.3f", name, f.Name(), f.MaxError)
			}
		}
		t.Logf("%s: CDF rmse log-normal %.4f, normal %.4f, exponential %.4f", name, rmse[LogNormal], rmse[Normal], rmse[Exponential])
		if rmse[LogNormal] >= rmse[Normal] || rmse[LogNormal] >= rmse[Exponential] {
			t.Errorf("%s: the log-normal does not fit best: %v", name, rmse)
		}
	}
}

// Densities and survival functions agree with gonum's.
func TestDistAgainstGonum(t *testing.T) {
	ln := LogNormalDist(2, 0.7)
	ex := ExpDist(3)
	gl := distuv.LogNormal{Mu: 2, Sigma: 0.7}
	ge := distuv.Exponential{Rate: 1.0 / 3}
	for _, x := range []float64{0.01, 0.5, 3, 7.4, 40} {
		if d := ln.LogPDF(x) - gl.LogProb(x); math.Abs(d) > 1e-12 {
			t.Errorf("log-normal log pdf at %v off by %g", x, d)
		}
		if d := ln.LogSurvival(x) - math.Log(gl.Survival(x)); math.Abs(d) > 1e-9 {
			t.Errorf("log-normal log survival at %v off by %g", x, d)
		}
		if d := ex.LogPDF(x) - ge.LogProb(x); math.Abs(d) > 1e-12 {
			t.Errorf("exponential log pdf at %v off by %g", x, d)
		}
		if d := ex.LogSurvival(x) - math.Log(ge.Survival(x)); math.Abs(d) > 1e-12 {
			t.Errorf("exponential log survival at %v off by %g", x, d)
		}
	}
	if math.Abs(ln.Mean()-gl.Mean()) > 1e-9 || ex.Mean() != 3 {
		t.Errorf("means %v %v", ln.Mean(), ex.Mean())
	}
	for _, bad := range []Dist{{Family: "pareto"}, ExpDist(0), LogNormalDist(1, 0), LogNormalDist(math.NaN(), 1)} {
		if bad.Validate() == nil {
			t.Errorf("%+v validated", bad)
		}
	}
}

// The cross-entropy update is the weighted maximum-likelihood fit: for
// the log-normal the weighted mean and variance of ln x (Eq. 16-17), for
// the exponential the weighted mean with censored gaps counted as time.
func TestCESumsFit(t *testing.T) {
	// Weight 1 on ln x = 1, 3 and weight 2 on ln x = 2: mean 2, var 0.5.
	var c ceSums
	for _, o := range []struct{ w, v float64 }{{1, 1}, {1, 3}, {2, 2}} {
		c.add(o.w, o.v)
	}
	d, err := c.fit(LogNormalDist(0, 1))
	if err != nil || math.Abs(d.Mu-2) > 1e-12 || math.Abs(d.Sigma-math.Sqrt(0.5)) > 1e-12 {
		t.Errorf("log-normal fit %v (%v), want mu 2 sigma 0.707", d, err)
	}
	// Two gaps 1 and 3 plus a censored 2: 6 time units over 2 events.
	e, err := ceSums{n: 2, s: 4, cens: 2}.fit(ExpDist(1))
	if err != nil || e.Scale != 3 {
		t.Errorf("exponential fit %v (%v), want mean 3", e, err)
	}
	if _, err := (ceSums{}).fit(ExpDist(1)); err == nil {
		t.Error("no weight: no error")
	}
}

// EM recovers a defensive mixture's share and tilted component from its
// draws, and the mixture's likelihood ratio is bounded by 1/Defensive.
func TestFitMixture(t *testing.T) {
	m := LogNormalDist(7.7, 1.8)
	want := Tilt{Size: LogNormalDist(12, 0.7), Defensive: 0.9}
	r := rand.New(rand.NewPCG(1, 2))
	var xs []weighted
	for range 20000 {
		d := want.Size
		if r.Float64() < want.Defensive {
			d = m
		}
		x := d.sample(r)
		xs = append(xs, weighted{x, 1})
		if l := want.sizeLogLR(&Model{Size: m}, x); l > -math.Log(want.Defensive)+1e-12 {
			t.Fatalf("ratio %v at %v above 1/Defensive", math.Exp(l), x)
		}
	}
	d, share, err := fitMixture(xs, m, LogNormalDist(11, 1), 0.3)
	if err != nil || math.Abs(share-0.1) > 0.01 || math.Abs(d.Mu-12) > 0.05 || math.Abs(d.Sigma-0.7) > 0.05 {
		t.Errorf("fit %v, share %.3f (%v); want %v, share 0.1", d, share, err, want.Size)
	}
}
