package whatif

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/atlas"
	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/metrics"
)

// Effect is the change of one estimator's p99 in one class from the
// first value to another: the mean over seeds of the paired difference
// (the same seed, so the same flows, at both values) and the half-width
// of its confidence interval at the sweep's level (NaN with one seed).
// Shown is set when the interval excludes zero: the difference is larger
// than its interval.
type Effect struct {
	Estimator, Class string
	From, To         string // the values, JSON
	Diff, Half       float64
	Shown            bool
}

// SeedsFor is the number of seeds at which the interval of e would be
// about as narrow as its difference (the half-width shrinks as one over
// the square root of the seeds): 0 when e is shown or has no interval.
func (e Effect) SeedsFor(seeds int) int {
	if e.Shown || math.IsNaN(e.Half) || seeds < 2 {
		return 0
	}
	if e.Diff == 0 {
		return math.MaxInt
	}
	return int(math.Ceil(float64(seeds) * (e.Half / e.Diff) * (e.Half / e.Diff)))
}

// effects computes every estimator's effects, per class, from the first
// value to each other one it answered.
func (r *Result) effects() {
	r.Effects = nil
	if len(r.Values) < 2 {
		return
	}
	for _, e := range r.Estimators {
		for _, class := range r.Classes {
			from, ok := r.point(r.Values[0], e, class)
			if !ok {
				continue
			}
			for _, v := range r.Values[1:] {
				to, ok := r.point(v, e, class)
				if !ok || len(to.PerSeed) != len(from.PerSeed) {
					continue
				}
				d := make([]float64, len(to.PerSeed))
				for k := range d {
					d[k] = to.PerSeed[k] - from.PerSeed[k]
				}
				x := Effect{Estimator: e, Class: class, From: r.Values[0], To: v, Half: math.NaN()}
				for _, y := range d {
					x.Diff += y / float64(len(d))
				}
				if ci, err := metrics.MeanCI(d, r.Level); err == nil {
					x.Half = ci.Half
				}
				x.Shown = !math.IsNaN(x.Half) && math.Abs(x.Diff) > x.Half
				r.Effects = append(r.Effects, x)
			}
		}
	}
}

// FirstSeeds is the number of seeds SeedsNeeded asks for after one: the
// fewest with which an interval means anything.
const FirstSeeds = 3

// SeedsNeeded is the number of seeds at which the clearest of the
// baseline's changes would be about as large as its interval
// (Effect.SeedsFor); FirstSeeds after one seed; 0 when a change is
// already shown, or none can be (every change is zero).
func (r *Result) SeedsNeeded() int {
	if r.Resolved() || len(r.Values) < 2 {
		return 0
	}
	if r.Seeds < 2 {
		return FirstSeeds
	}
	need := 0
	for _, e := range r.Effects {
		if n := e.SeedsFor(r.Seeds); e.Estimator == r.Baseline && n > 0 && n < math.MaxInt && (need == 0 || n < need) {
			need = n
		}
	}
	return need
}

// Resolved reports whether any of the baseline's effects is larger than
// its interval: whether the sweep shows any real difference at all.
func (r *Result) Resolved() bool {
	return slices.ContainsFunc(r.Effects, func(e Effect) bool { return e.Estimator == r.Baseline && e.Shown })
}

// EffectLines say, in words, which differences the sweep shows: the
// baseline's effects larger than their intervals, or that none is, with
// the seeds (or flows) that would resolve the largest; and per estimator
// how many of the baseline's shown changes it got the direction of.
func (r *Result) EffectLines() []string {
	if len(r.Effects) == 0 {
		return nil
	}
	var out []string
	if r.SeedsAsked > 0 && r.Seeds > r.SeedsAsked {
		out = append(out, fmt.Sprintf("seeds raised from %d to %d to tell %s's changes from seed noise", r.SeedsAsked, r.Seeds, r.Baseline))
	}
	level := fmt.Sprintf("%.0f%%", 100*r.Level)
	var base []Effect
	for _, e := range r.Effects {
		if e.Estimator == r.Baseline {
			base = append(base, e)
		}
	}
	if r.Seeds < 2 {
		return append(out, fmt.Sprintf("one seed: no difference shown here has an interval, so none can be told from seed noise; run --seeds 5 or more, or let --max-seeds choose (%s's p99 moves with the seed)", r.Baseline))
	}
	var shown []string
	// The clearest of the changes not shown: the one fewest seeds would
	// resolve.
	need := math.MaxInt
	var clearest Effect
	for _, e := range base {
		if e.Shown {
			shown = append(shown, fmt.Sprintf("%s %s->%s %+.3f±%.3f", e.Class, e.From, e.To, e.Diff, e.Half))
			continue
		}
		if n := e.SeedsFor(r.Seeds); n > 0 && n < need {
			need, clearest = n, e
		}
	}
	more := ""
	if need < math.MaxInt {
		more = fmt.Sprintf("the clearest change (%s, %s->%s, %+.3f±%.3f) would need about %d seeds, or about %.1fx the flows at %d seeds (an interval narrows as one over the square root of either)",
			clearest.Class, clearest.From, clearest.To, clearest.Diff, clearest.Half, need, float64(need)/float64(r.Seeds), r.Seeds)
	}
	if len(shown) == 0 {
		msg := fmt.Sprintf("no difference shown here is larger than its %s interval: at %d seeds %s cannot tell these values apart, so no estimator's direction can be judged", level, r.Seeds, r.Baseline)
		if more != "" {
			msg += "; " + more
		}
		return append(out, msg)
	}
	out = append(out, fmt.Sprintf("%s's differences larger than their %s intervals (paired over seeds): %s", r.Baseline, level, strings.Join(shown, ", ")))
	if n := len(base) - len(shown); n > 0 {
		msg := fmt.Sprintf("%d other differences of %s are within their intervals (not shown to be real)", n, r.Baseline)
		if more != "" {
			msg += "; " + more
		}
		out = append(out, msg)
	}
	for _, est := range r.Estimators {
		if est == r.Baseline {
			continue
		}
		right, of := 0, 0
		for _, b := range base {
			if !b.Shown {
				continue
			}
			i := slices.IndexFunc(r.Effects, func(e Effect) bool {
				return e.Estimator == est && e.Class == b.Class && e.To == b.To
			})
			if i < 0 {
				continue
			}
			of++
			if e := r.Effects[i]; (e.Diff > 0) == (b.Diff > 0) && e.Diff != 0 {
				right++
			}
		}
		if of > 0 {
			out = append(out, fmt.Sprintf("%s: direction right in %d of the %d changes %s shows", est, right, of, r.Baseline))
		}
	}
	return out
}

// DirectionLines say, per estimator the accuracy atlas measures that
// answered at some value, how far
// it trusts the estimator's direction when the swept setting changes
// (estimator.Directions): a sweep with one seed, or whose baseline is not
// packetsim, has nothing else to judge directions by. An estimator run
// with options the atlas did not measure gets a line saying so
// (Result.Unmeasured); one run as a variant the atlas measures gets the
// variant's scores under its label (Result.MeasuredAs).
func (r *Result) DirectionLines() []string {
	var out []string
	for _, e := range r.Estimators {
		if !slices.ContainsFunc(r.Points, func(p Point) bool { return p.Estimator == e }) {
			continue // refused at every value
		}
		if r.Unmeasured[e] != "" {
			out = append(out, fmt.Sprintf("%s: how often its direction is right is unknown: %s", e, r.Unmeasured[e]))
			continue
		}
		l, name := r.atlasLabel(e), e
		if l != e {
			name = e + ", measured as " + l
		}
		ds, measured, err := estimator.Directions(l, r.Param)
		switch {
		case err != nil:
			out = append(out, err.Error())
		case measured:
			out = append(out, atlas.DirectionLine(name, r.Param, ds))
		}
	}
	return out
}
