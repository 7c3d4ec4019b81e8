package cceval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tailscope/tailscope/lib/workload"
)

// Normal is the family of a Gaussian size fit (Fig. 14b's comparison
// only: the model needs a positive distribution).
const Normal = "normal"

// SizeFit is a parametric distribution fitted to a flow-size CDF by
// non-linear least squares (§5, "Input distribution modeling"). It is a
// workload.SizeDist, so plot.SizeCDFs draws it beside the CDF it fits
// (Fig. 14b).
type SizeFit struct {
	Family string // LogNormal, Exponential or Normal
	// Parameters: log-normal ln X ~ N(Mu, Sigma²); normal X ~ N(Mu,
	// Sigma²); exponential mean Scale.
	Mu, Sigma, Scale float64
	// RMSE and MaxError are the root-mean-square and the largest
	// difference between the fitted and the fitted-to CDF over the fit
	// points.
	RMSE, MaxError float64
	Of             string // name of the fitted distribution
}

// fitPoints is the number of sizes, log-spaced between the fitted CDF's
// 0.1% and 99.9% points, at which the squared CDF differences are summed.
const fitPoints = 200

// FitSizes fits family (LogNormal, Exponential or Normal) to the CDF of d
// by minimizing the sum of squared CDF differences at fitPoints log-spaced
// sizes (Levenberg-Marquardt). Published size distributions are CDFs,
// which is why the paper fits CDF curves rather than samples.
func FitSizes(d workload.SizeDist, family string) (SizeFit, error) {
	if d == nil {
		return SizeFit{}, errors.New("cceval: FitSizes: nil size distribution")
	}
	lo, hi := sizeQuantile(d, 0.001), sizeQuantile(d, 0.999)
	if !(hi > lo) {
		return SizeFit{}, fmt.Errorf("cceval: %s has no spread to fit", d.Name())
	}
	xs := make([]float64, fitPoints)
	ys := make([]float64, fitPoints)
	for i := range xs {
		xs[i] = lo * math.Pow(hi/lo, float64(i)/(fitPoints-1))
		ys[i] = d.CDF(xs[i])
	}
	// Parameters are searched in a space where any real value is valid
	// (logs of scales), starting from the CDF's own quantiles.
	med := sizeQuantile(d, 0.5)
	var (
		start []float64
		cdf   func(th []float64, x float64) float64
		build func(th []float64) SizeFit
	)
	switch family {
	case LogNormal:
		s := (math.Log(sizeQuantile(d, 0.9)) - math.Log(sizeQuantile(d, 0.1))) / 2.563
		start = []float64{math.Log(med), math.Log(max(s, 0.1))}
		cdf = func(th []float64, x float64) float64 { return normCDF((math.Log(x) - th[0]) / math.Exp(th[1])) }
		build = func(th []float64) SizeFit { return SizeFit{Family: LogNormal, Mu: th[0], Sigma: math.Exp(th[1])} }
	case Normal:
		start = []float64{med, math.Log(max(sizeQuantile(d, 0.84)-sizeQuantile(d, 0.16), 1) / 2)}
		cdf = func(th []float64, x float64) float64 { return normCDF((x - th[0]) / math.Exp(th[1])) }
		build = func(th []float64) SizeFit { return SizeFit{Family: Normal, Mu: th[0], Sigma: math.Exp(th[1])} }
	case Exponential:
		start = []float64{math.Log(med / math.Ln2)}
		cdf = func(th []float64, x float64) float64 { return -math.Expm1(-x / math.Exp(th[0])) }
		build = func(th []float64) SizeFit { return SizeFit{Family: Exponential, Scale: math.Exp(th[0])} }
	default:
		return SizeFit{}, fmt.Errorf("cceval: unknown size family %q (%s, %s or %s)", family, LogNormal, Exponential, Normal)
	}
	th := levenbergMarquardt(start, func(th []float64, res []float64) {
		for i, x := range xs {
			res[i] = cdf(th, x) - ys[i]
		}
	}, len(xs))
	f := build(th)
	f.Of = d.Name()
	var ss float64
	for i, x := range xs {
		e := f.CDF(x) - ys[i]
		ss += e * e
		f.MaxError = max(f.MaxError, math.Abs(e))
	}
	f.RMSE = math.Sqrt(ss / float64(len(xs)))
	return f, nil
}

// levenbergMarquardt minimizes the sum of squares of the m residuals
// resid fills, from start, with a forward-difference Jacobian. The
// problems here have one or two parameters, so the normal equations are
// solved directly.
func levenbergMarquardt(start []float64, resid func(th, res []float64), m int) []float64 {
	k := len(start)
	th := append([]float64(nil), start...)
	r := make([]float64, m)
	r2 := make([]float64, m)
	jac := make([][]float64, k)
	for j := range jac {
		jac[j] = make([]float64, m)
	}
	sumsq := func(v []float64) float64 {
		s := 0.0
		for _, x := range v {
			s += x * x
		}
		return s
	}
	resid(th, r)
	cost, lambda := sumsq(r), 1e-3
	trial := make([]float64, k)
	for iter := 0; iter < 200; iter++ {
		for j := range th {
			h := 1e-6 * max(1, math.Abs(th[j]))
			copy(trial, th)
			trial[j] += h
			resid(trial, r2)
			for i := range r2 {
				jac[j][i] = (r2[i] - r[i]) / h
			}
		}
		// A = JᵀJ, g = Jᵀr.
		a := make([][]float64, k)
		g := make([]float64, k)
		for p := range a {
			a[p] = make([]float64, k)
			for q := range a[p] {
				for i := range r {
					a[p][q] += jac[p][i] * jac[q][i]
				}
			}
			for i := range r {
				g[p] += jac[p][i] * r[i]
			}
		}
		improved := false
		for range 30 {
			step := solveDamped(a, g, lambda)
			for j := range th {
				trial[j] = th[j] - step[j]
			}
			resid(trial, r2)
			if c := sumsq(r2); c < cost {
				done := cost-c < 1e-14*(1+cost)
				copy(th, trial)
				copy(r, r2)
				cost, lambda, improved = c, lambda/3, true
				if done {
					return th
				}
				break
			}
			lambda *= 4
		}
		if !improved {
			break
		}
	}
	return th
}

// solveDamped solves (A + lambda·diag(A)) x = g for one or two unknowns.
func solveDamped(a [][]float64, g []float64, lambda float64) []float64 {
	if len(g) == 1 {
		return []float64{g[0] / (a[0][0] * (1 + lambda))}
	}
	a00, a11 := a[0][0]*(1+lambda), a[1][1]*(1+lambda)
	det := a00*a11 - a[0][1]*a[1][0]
	return []float64{(a11*g[0] - a[0][1]*g[1]) / det, (a00*g[1] - a[1][0]*g[0]) / det}
}

// sizeQuantile inverts d's CDF by bisection on a log scale.
func sizeQuantile(d workload.SizeDist, p float64) float64 {
	lo, hi := 1e-3, 1e13
	for range 200 {
		m := math.Sqrt(lo * hi)
		if d.CDF(m) < p {
			lo = m
		} else {
			hi = m
		}
		if hi/lo < 1+1e-12 {
			break
		}
	}
	return hi
}

func normCDF(z float64) float64 { return math.Erfc(-z/math.Sqrt2) / 2 }

// Name implements workload.SizeDist.
func (f SizeFit) Name() string {
	switch f.Family {
	case Exponential:
		return fmt.Sprintf("exponential fit (mean %.3g B, rmse %.3f)", f.Scale, f.RMSE)
	case Normal:
		return fmt.Sprintf("normal fit (mean %.3g B, sd %.3g B, rmse %.3f)", f.Mu, f.Sigma, f.RMSE)
	}
	return fmt.Sprintf("log-normal fit (mu %.3g, sigma %.3g, rmse %.3f)", f.Mu, f.Sigma, f.RMSE)
}

// CDF implements workload.SizeDist.
func (f SizeFit) CDF(x float64) float64 {
	switch f.Family {
	case Exponential:
		if x <= 0 {
			return 0
		}
		return -math.Expm1(-x / f.Scale)
	case Normal:
		return normCDF((x - f.Mu) / f.Sigma)
	}
	if x <= 0 {
		return 0
	}
	return normCDF((math.Log(x) - f.Mu) / f.Sigma)
}

// Mean implements workload.SizeDist (for the normal, the mean of the
// untruncated fit).
func (f SizeFit) Mean() float64 {
	switch f.Family {
	case Exponential:
		return f.Scale
	case Normal:
		return f.Mu
	}
	return math.Exp(f.Mu + f.Sigma*f.Sigma/2)
}

// Sample implements workload.SizeDist: a draw rounded up to whole bytes,
// at least one.
func (f SizeFit) Sample(r *rand.Rand) int64 {
	var x float64
	switch f.Family {
	case Exponential:
		x = f.Scale * r.ExpFloat64()
	case Normal:
		x = f.Mu + f.Sigma*r.NormFloat64()
	default:
		x = math.Exp(f.Mu + f.Sigma*r.NormFloat64())
	}
	return sizeBytes(x)
}

// Dist is the fit as a model distribution (log-normal or exponential).
func (f SizeFit) Dist() (Dist, error) {
	switch f.Family {
	case LogNormal:
		return LogNormalDist(f.Mu, f.Sigma), nil
	case Exponential:
		return ExpDist(f.Scale), nil
	}
	return Dist{}, fmt.Errorf("cceval: a %s fit is not a model distribution (sizes must be positive)", f.Family)
}

// sizeBytes rounds a continuous size draw up to whole bytes, at least 1,
// as workload's distributions do.
func sizeBytes(x float64) int64 {
	if x <= 1 {
		return 1
	}
	if x >= math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(math.Ceil(x))
}
