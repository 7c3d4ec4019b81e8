package cceval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Families of Dist.
const (
	Exponential = "exponential"
	LogNormal   = "lognormal"
)

// Dist is a distribution of the input model (§4.3.2): the exponential
// (Poisson arrivals; the service times of an M/M/1 queue) or the
// log-normal (flow sizes; bursty arrivals).
type Dist struct {
	Family string  // Exponential or LogNormal
	Scale  float64 // exponential: the mean, 1/rate
	Mu     float64 // log-normal: mean of ln X
	Sigma  float64 // log-normal: standard deviation of ln X
}

// ExpDist is the exponential distribution with the given mean.
func ExpDist(mean float64) Dist { return Dist{Family: Exponential, Scale: mean} }

// LogNormalDist is the log-normal distribution with ln X ~ N(mu, sigma²).
func LogNormalDist(mu, sigma float64) Dist { return Dist{Family: LogNormal, Mu: mu, Sigma: sigma} }

// Validate reports a family or parameter that cannot be sampled.
func (d Dist) Validate() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch d.Family {
	case Exponential:
		if !(d.Scale > 0) || !finite(d.Scale) {
			return fmt.Errorf("cceval: exponential mean %v must be positive", d.Scale)
		}
	case LogNormal:
		if !(d.Sigma > 0) || !finite(d.Sigma) || !finite(d.Mu) {
			return fmt.Errorf("cceval: log-normal needs a finite mu and sigma > 0, got mu %v sigma %v", d.Mu, d.Sigma)
		}
	default:
		return fmt.Errorf("cceval: unknown distribution family %q (%s or %s)", d.Family, Exponential, LogNormal)
	}
	return nil
}

// Mean is the distribution's mean.
func (d Dist) Mean() float64 {
	if d.Family == Exponential {
		return d.Scale
	}
	return math.Exp(d.Mu + d.Sigma*d.Sigma/2)
}

// String names the distribution and its parameters.
func (d Dist) String() string {
	if d.Family == Exponential {
		return fmt.Sprintf("exp(mean=%.4g)", d.Scale)
	}
	return fmt.Sprintf("lognormal(mu=%.4g,sigma=%.4g)", d.Mu, d.Sigma)
}

// LogPDF is the log density at x > 0.
func (d Dist) LogPDF(x float64) float64 {
	if d.Family == Exponential {
		return -math.Log(d.Scale) - x/d.Scale
	}
	z := (math.Log(x) - d.Mu) / d.Sigma
	return -z*z/2 - math.Log(x*d.Sigma) - 0.5*math.Log(2*math.Pi)
}

// LogSurvival is log P(X > x): the age term G of Eq. 10.
func (d Dist) LogSurvival(x float64) float64 {
	if d.Family == Exponential {
		return -max(x, 0) / d.Scale
	}
	if x <= 0 {
		return 0
	}
	return math.Log(math.Erfc((math.Log(x)-d.Mu)/d.Sigma/math.Sqrt2) / 2)
}

// logAddExp is log(e^a + e^b) without overflow.
func logAddExp(a, b float64) float64 {
	return max(a, b) + math.Log1p(math.Exp(-math.Abs(a-b)))
}

func (d Dist) sample(r *rand.Rand) float64 {
	if d.Family == Exponential {
		return d.Scale * r.ExpFloat64()
	}
	return math.Exp(d.Mu + d.Sigma*r.NormFloat64())
}

// stat is the sufficient statistic the cross-entropy update (the
// weighted maximum-likelihood fit, Eq. 16-17) sums: x for the
// exponential, ln x for the log-normal.
func (d Dist) stat(x float64) float64 {
	if d.Family == Exponential {
		return x
	}
	return math.Log(x)
}

// ceSums accumulates, over cycles with weight w, the weighted count, sum
// and sum of squares of a distribution's statistics, plus censored
// observations (an exponential gap known only to exceed an age).
type ceSums struct{ n, s, s2, cens float64 }

// add adds statistic v with weight w.
func (c *ceSums) add(w, v float64) {
	c.n, c.s, c.s2 = c.n+w, c.s+w*v, c.s2+w*v*v
}

// fit is the weighted maximum-likelihood distribution of family like d:
// Eq. 16 and 17 for the log-normal, the censored-sample mean for the
// exponential. It fails when no cycle carried weight.
func (c ceSums) fit(d Dist) (Dist, error) {
	if !(c.n > 0) {
		return d, errors.New("no tail events carried weight")
	}
	if d.Family == Exponential {
		return ExpDist((c.s + c.cens) / c.n), nil
	}
	mu := c.s / c.n
	v := c.s2/c.n - mu*mu
	if !(v > 0) {
		return d, errors.New("the weighted sizes have no spread")
	}
	return LogNormalDist(mu, math.Sqrt(v)), nil
}

// SyntheticTrial is a trial whose one metric, "x", is a draw from d: a case
// with a known mean, d.Mean(), for checking the coverage of intervals.
func SyntheticTrial(d Dist) Trial {
	return func(_ context.Context, seed uint64) (Metrics, error) {
		if err := d.Validate(); err != nil {
			return nil, err
		}
		return Metrics{"x": d.sample(rand.New(rand.NewPCG(seed, 0x73796e)))}, nil
	}
}
