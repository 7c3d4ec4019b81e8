package workload

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/datasets"
)

// SizeDist is a flow-size distribution. The implementations here are
// read-only after construction: goroutines may share one, each drawing from
// its own rand.Rand.
type SizeDist interface {
	// Name identifies the distribution and its parameters.
	Name() string
	// Sample draws one flow size in whole bytes (>= 1): a draw X of the
	// continuous distribution rounded up, so that P(size <= k) = CDF(k) for
	// every integer k.
	Sample(r *rand.Rand) int64
	// Mean is the mean of the continuous distribution in bytes; sampled
	// sizes average at most one byte more because of the rounding up.
	Mean() float64
	// CDF is P(X <= x) of the continuous distribution.
	CDF(x float64) float64
}

// SizeSpec selects a flow-size distribution; see NewSizeDist.
type SizeSpec struct {
	Dist  string  `json:"dist"`
	Mean  float64 `json:"mean,omitempty"`
	Shape float64 `json:"shape,omitempty"`
	File  string  `json:"file,omitempty"`
}

// Default shapes of the parametric distributions. m3 (Table 2) names the
// families and a size parameter of 5 KB to 50 KB but no shapes; these are
// ours: a heavy-tailed Pareto with finite mean, a log-normal whose median is
// 61% of the mean, a Gaussian whose standard deviation is half the mean.
const (
	DefaultParetoShape    = 1.5 // tail index alpha; must exceed 1 for a finite mean
	DefaultLognormalSigma = 1.0 // sigma of ln(size)
	DefaultGaussianCV     = 0.5 // standard deviation / mean, at most 1
)

var embeddedSizes = []string{"cachefollower", "webserver", "hadoop", "websearch"}

// SizeDistNames lists the names NewSizeDist accepts.
func SizeDistNames() []string {
	return append(append([]string(nil), embeddedSizes...), "empirical", "pareto", "exp", "gaussian", "lognormal")
}

// NewSizeDist builds the distribution s names (case-insensitive):
//
//   - cachefollower, webserver, hadoop: Meta's distributions (Parsimon Fig.
//     6b, from Roy et al. SIGCOMM'15); websearch: DCTCP's web search
//     background traffic (Alizadeh et al. SIGCOMM'10 Fig. 4). These are our
//     own piecewise-linear CDFs embedded from datasets/sizes; Mean, Shape and
//     File must be unset.
//   - empirical: the CDF in the CSV file File (format of ReadCDF).
//   - pareto, exp, gaussian, lognormal: m3's parametric families with mean
//     Mean bytes (m3 draws 5000-50000). Shape is the Pareto tail index
//     (default DefaultParetoShape, > 1), the log-normal sigma (default
//     DefaultLognormalSigma) or the Gaussian's coefficient of variation
//     (default DefaultGaussianCV, in (0, 1]; the Gaussian is truncated to
//     positive sizes with its location shifted so the mean stays Mean).
//     The exponential has no shape.
func NewSizeDist(s SizeSpec) (SizeDist, error) {
	name := strings.ToLower(strings.TrimSpace(s.Dist))
	param := name == "pareto" || name == "exp" || name == "gaussian" || name == "lognormal"
	switch {
	case param && (s.Mean <= 0 || math.IsInf(s.Mean, 0) || math.IsNaN(s.Mean)):
		return nil, fmt.Errorf("workload: size distribution %s needs a positive mean in bytes (m3 uses 5000-50000), got %v", name, s.Mean)
	case param && s.File != "":
		return nil, fmt.Errorf("workload: size distribution %s takes no file (got %q)", name, s.File)
	case s.Shape < 0 || math.IsNaN(s.Shape) || math.IsInf(s.Shape, 0):
		return nil, fmt.Errorf("workload: size distribution %s: shape %v must be a positive number (0 selects the default)", name, s.Shape)
	}
	switch name {
	case "cachefollower", "webserver", "hadoop", "websearch":
		if s.Mean != 0 || s.Shape != 0 || s.File != "" {
			return nil, fmt.Errorf("workload: size distribution %s is a fixed dataset; mean, shape and file must be unset", name)
		}
		f, err := datasets.FS.Open("sizes/" + name + ".csv")
		if err != nil {
			return nil, fmt.Errorf("workload: embedded size distribution %s: %w", name, err)
		}
		defer f.Close()
		return ReadCDF(name, f)
	case "empirical":
		if s.File == "" {
			return nil, errors.New("workload: size distribution empirical needs a file (a CSV of size_bytes,cdf rows)")
		}
		if s.Mean != 0 || s.Shape != 0 {
			return nil, fmt.Errorf("workload: size distribution empirical (%s) takes no mean or shape", s.File)
		}
		f, err := os.Open(s.File)
		if err != nil {
			return nil, fmt.Errorf("workload: size distribution: %w", err)
		}
		defer f.Close()
		return ReadCDF(s.File, f)
	case "pareto":
		a := s.Shape
		if a == 0 {
			a = DefaultParetoShape
		}
		if a <= 1 {
			return nil, fmt.Errorf("workload: pareto shape %v must exceed 1 (the mean is infinite otherwise)", a)
		}
		return &pareto{mean: s.Mean, alpha: a, xm: s.Mean * (a - 1) / a}, nil
	case "exp":
		if s.Shape != 0 {
			return nil, fmt.Errorf("workload: the exponential size distribution has no shape (got %v)", s.Shape)
		}
		return &exponential{mean: s.Mean}, nil
	case "lognormal":
		sigma := s.Shape
		if sigma == 0 {
			sigma = DefaultLognormalSigma
		}
		return &lognormal{mean: s.Mean, sigma: sigma, mu: math.Log(s.Mean) - sigma*sigma/2}, nil
	case "gaussian":
		cv := s.Shape
		if cv == 0 {
			cv = DefaultGaussianCV
		}
		if cv > 1 {
			return nil, fmt.Errorf("workload: gaussian shape (coefficient of variation) %v must be at most 1", cv)
		}
		return newGaussian(s.Mean, cv), nil
	}
	return nil, fmt.Errorf("workload: unknown size distribution %q (known: %s)", s.Dist, strings.Join(SizeDistNames(), ", "))
}

// empirical is a piecewise-linear CDF through (size[i], cdf[i]); cdf[0] > 0
// is an atom at size[0].
type empirical struct {
	name      string
	size, cdf []float64
	mean      float64
}

// maxCDFSize is the largest size a CDF may name: 2^62 bytes, so that every
// sample, rounded up, is an int64 and the mean is finite.
const maxCDFSize = 1 << 62

// ReadCDF reads a flow-size CDF: lines starting with '#' are comments, an
// optional "size_bytes,cdf" header, then rows "size,cdf" with sizes
// positive and strictly increasing, cdf values non-decreasing in [0, 1] and
// the last one 1. Between rows the CDF is linear; a first cdf above 0 is
// the probability of exactly the first size. name labels the distribution
// and its errors.
func ReadCDF(name string, r io.Reader) (SizeDist, error) {
	e := &empirical{name: name}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || t[0] == '#' {
			continue
		}
		fields := strings.Split(t, ",")
		if len(fields) != 2 {
			return nil, fmt.Errorf("workload: %s line %d: want 2 comma-separated fields size_bytes,cdf, got %q", name, line, t)
		}
		s, err1 := strconv.ParseFloat(strings.TrimSpace(fields[0]), 64)
		c, err2 := strconv.ParseFloat(strings.TrimSpace(fields[1]), 64)
		if err1 != nil || err2 != nil {
			if len(e.size) == 0 && strings.EqualFold(strings.TrimSpace(fields[0]), "size_bytes") {
				continue // column header
			}
			return nil, fmt.Errorf("workload: %s line %d: %q is not two numbers", name, line, t)
		}
		n := len(e.size)
		switch {
		case !(s > 0 && s <= maxCDFSize):
			return nil, fmt.Errorf("workload: %s line %d: size %v must be a positive number of bytes, at most 2^62", name, line, s)
		case !(c >= 0 && c <= 1):
			return nil, fmt.Errorf("workload: %s line %d: cdf %v must lie in [0, 1]", name, line, c)
		case n > 0 && s <= e.size[n-1]:
			return nil, fmt.Errorf("workload: %s line %d: size %v does not exceed the previous size %v; sizes must increase", name, line, s, e.size[n-1])
		case n > 0 && c < e.cdf[n-1]:
			return nil, fmt.Errorf("workload: %s line %d: cdf %v is below the previous %v; a CDF must not decrease", name, line, c, e.cdf[n-1])
		}
		e.size = append(e.size, s)
		e.cdf = append(e.cdf, c)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("workload: %s: %w", name, err)
	}
	n := len(e.size)
	if n == 0 {
		return nil, fmt.Errorf("workload: %s has no size_bytes,cdf rows", name)
	}
	if math.Abs(e.cdf[n-1]-1) > 1e-9 {
		return nil, fmt.Errorf("workload: %s: the cdf ends at %v (line %d), not 1", name, e.cdf[n-1], line)
	}
	e.cdf[n-1] = 1
	e.mean = e.cdf[0] * e.size[0]
	for k := 1; k < n; k++ {
		e.mean += (e.cdf[k] - e.cdf[k-1]) * (e.size[k-1] + e.size[k]) / 2
	}
	return e, nil
}

func (e *empirical) Name() string  { return e.name }
func (e *empirical) Mean() float64 { return e.mean }

func (e *empirical) CDF(x float64) float64 {
	n := len(e.size)
	switch {
	case x < e.size[0]:
		return 0
	case x >= e.size[n-1]:
		return 1
	}
	k := upper(e.size, x) // size[k-1] <= x < size[k]
	return e.cdf[k-1] + (x-e.size[k-1])/(e.size[k]-e.size[k-1])*(e.cdf[k]-e.cdf[k-1])
}

// quantile is the piecewise-linear inverse CDF at u in [0, 1).
func (e *empirical) quantile(u float64) float64 {
	if u < e.cdf[0] {
		return e.size[0]
	}
	k := upper(e.cdf, u) // cdf[k-1] <= u < cdf[k]; flat segments are skipped
	if k == len(e.cdf) {
		return e.size[k-1]
	}
	return e.size[k-1] + (u-e.cdf[k-1])/(e.cdf[k]-e.cdf[k-1])*(e.size[k]-e.size[k-1])
}

func (e *empirical) Sample(r *rand.Rand) int64 { return ceilBytes(e.quantile(r.Float64())) }

// upper returns the first index k with a[k] > x (len(a) if none): a binary
// search by hand, as sort.Search's closure costs a third of a sample.
func upper(a []float64, x float64) int {
	lo, hi := 0, len(a)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if a[m] > x {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

func ceilBytes(x float64) int64 {
	if x <= 1 {
		return 1
	}
	if x >= math.MaxInt64/2 { // only an extreme Pareto or log-normal draw gets here
		return math.MaxInt64 / 2
	}
	return int64(math.Ceil(x))
}

// pareto is a Pareto (type I) distribution with scale xm and tail index
// alpha: mean alpha xm / (alpha - 1).
type pareto struct{ mean, alpha, xm float64 }

func (p *pareto) Name() string {
	return fmt.Sprintf("pareto(mean=%g,shape=%g)", p.mean, p.alpha)
}
func (p *pareto) Mean() float64 { return p.mean }
func (p *pareto) CDF(x float64) float64 {
	if x <= p.xm {
		return 0
	}
	return 1 - math.Pow(p.xm/x, p.alpha)
}
func (p *pareto) Sample(r *rand.Rand) int64 {
	// xm U^(-1/alpha) = xm exp(E/alpha) with E = -ln U ~ Exp(1): cheaper than Pow.
	return ceilBytes(p.xm * math.Exp(r.ExpFloat64()/p.alpha))
}

type exponential struct{ mean float64 }

func (e *exponential) Name() string  { return fmt.Sprintf("exp(mean=%g)", e.mean) }
func (e *exponential) Mean() float64 { return e.mean }
func (e *exponential) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return -math.Expm1(-x / e.mean)
}
func (e *exponential) Sample(r *rand.Rand) int64 { return ceilBytes(e.mean * r.ExpFloat64()) }

// lognormal has ln(X) ~ N(mu, sigma^2) with mu = ln(mean) - sigma^2/2.
type lognormal struct{ mean, sigma, mu float64 }

func (l *lognormal) Name() string {
	return fmt.Sprintf("lognormal(mean=%g,shape=%g)", l.mean, l.sigma)
}
func (l *lognormal) Mean() float64 { return l.mean }
func (l *lognormal) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return normCDF((math.Log(x) - l.mu) / l.sigma)
}
func (l *lognormal) Sample(r *rand.Rand) int64 {
	return ceilBytes(math.Exp(l.mu + l.sigma*r.NormFloat64()))
}

// gaussian is N(loc, sd^2) truncated to x > 0, with sd = cv*mean and loc
// chosen so that the truncated mean is mean.
type gaussian struct {
	mean, cv, loc, sd float64
	p0                float64 // P(N(loc, sd^2) <= 0), the truncated mass
}

func newGaussian(mean, cv float64) *gaussian {
	// Truncated mean = loc + sd*phi(t)/Phi(t) with t = loc/sd; as a function
	// of t it is increasing, so bisect t for mean/sd = t + phi(t)/Phi(t).
	target := 1 / cv
	lo, hi := -1.0, target
	for range 100 {
		t := (lo + hi) / 2
		if t+normPDF(t)/normCDF(t) < target {
			lo = t
		} else {
			hi = t
		}
	}
	sd := cv * mean
	loc := (lo + hi) / 2 * sd
	return &gaussian{mean: mean, cv: cv, loc: loc, sd: sd, p0: normCDF(-loc / sd)}
}

func (g *gaussian) Name() string {
	return fmt.Sprintf("gaussian(mean=%g,shape=%g)", g.mean, g.cv)
}
func (g *gaussian) Mean() float64 { return g.mean }
func (g *gaussian) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return (normCDF((x-g.loc)/g.sd) - g.p0) / (1 - g.p0)
}
func (g *gaussian) Sample(r *rand.Rand) int64 {
	for { // rejection: with cv <= 1 at least 69% of draws are kept
		if x := g.loc + g.sd*r.NormFloat64(); x > 0 {
			return ceilBytes(x)
		}
	}
}

func normCDF(z float64) float64 { return math.Erfc(-z/math.Sqrt2) / 2 }
func normPDF(z float64) float64 { return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) }
