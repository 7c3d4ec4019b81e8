package accuracy

import (
	"math"
	"slices"

	"github.com/tailscope/tailscope/lib/atlas"
)

// Folds is the number of cross-validation folds the atlas sample is cut
// into to choose the intervals' widening and the regions' minimum size
// (Tune). A draw's scenarios (a counterfactual pair shares its flows)
// stay in one fold: fold = draw mod Folds.
const Folds = 5

// MinScenarioChoices are the minimum region sizes Tune chooses from: a
// region with fewer atlas scenarios falls back to a coarser one.
var MinScenarioChoices = []int{5, 10, 20}

// Tuning is what Tune chose on the atlas sample, and how the choices did
// under cross-validation.
type Tuning struct {
	// MinScenarios is the chosen minimum region size.
	MinScenarios int
	// Choices are the candidates' cross-validated outcomes.
	Choices []TuneChoice
	// Widen is the chosen factor per estimator and size bin.
	Widen map[string]map[string]float64
	// Folds holds, per estimator and bin at the chosen minimum, the
	// cross-validated coverage of the widened intervals.
	Folds []Coverage
}

// TuneChoice is one candidate minimum region size under cross-validation:
// the mean width of the widened intervals (each estimator and bin widened
// to Coverage on the held-out folds), the points stated and those left
// without an interval.
type TuneChoice struct {
	MinScenarios     int
	MeanWidth        float64
	Stated, Unstated int
}

// point is one held-out error (of row id, in bin) and the raw interval
// stated for it.
type point struct {
	id       int
	est, bin string
	iv       atlas.Interval
	err      float64
}

// needed is the widening factor that makes iv's interval reach err.
func needed(iv atlas.Interval, err float64) float64 {
	const floor = 1e-3 // an interval of no width about the median
	if err >= iv.P50 {
		return (err - iv.P50) / math.Max(iv.P90-iv.P50, floor)
	}
	return (iv.P50 - err) / math.Max(iv.P50-iv.P10, floor)
}

// conformal is the split-conformal quantile of the needed factors for
// coverage c: the ceil((n+1) c)-th smallest, so that a new exchangeable
// value falls at or below it with probability at least c.
func conformal(fs []float64, c float64) float64 {
	s := slices.Sorted(slices.Values(fs))
	k := int(math.Ceil(float64(len(s)+1)*c)) - 1
	return s[min(max(k, 0), len(s)-1)]
}

// crossPoints holds out each fold of the atlas rows in turn, summarizes
// the others with minimum region size m, and returns the held-out errors
// with the raw intervals stated for them, and how many had none.
func crossPoints(rows []Row, m int) (pts []point, unstated int) {
	for k := range Folds {
		var train []Row
		for _, r := range rows {
			if r.Draw%Folds != k {
				train = append(train, r)
			}
		}
		s := rawSummary(train, "", foldMin(m))
		for id, r := range rows {
			if r.Draw%Folds != k {
				continue
			}
			exp := map[string]atlas.Interval{}
			for _, iv := range s.ExpectIn(r.Estimator, r.Region).Intervals {
				exp[iv.Bin] = iv
			}
			for b, l := range Labels() {
				if math.IsNaN(r.Error[b]) {
					continue
				}
				iv, ok := exp[l]
				if !ok {
					unstated++
					continue
				}
				pts = append(pts, point{id, r.Estimator, l, iv, r.Error[b]})
			}
		}
	}
	return pts, unstated
}

// foldMin is the minimum region size of the folds' summaries for a
// summary of minimum m: a fold keeps (Folds-1)/Folds of a region's
// scenarios, so a region of m scenarios has about foldMin(m) in a fold.
// With m itself the folds would fall back to coarser, wider regions more
// often than the summary does, and the factors they choose would be too
// small for the summary's own regions.
func foldMin(m int) int { return (m*(Folds-1) + Folds - 1) / Folds }

// widen chooses per estimator and bin the factor that holds coverage of
// the points.
func widen(pts []point, coverage float64) map[string]map[string]float64 {
	need := map[string]map[string][]float64{}
	for _, p := range pts {
		if need[p.est] == nil {
			need[p.est] = map[string][]float64{}
		}
		need[p.est][p.bin] = append(need[p.est][p.bin], needed(p.iv, p.err))
	}
	out := map[string]map[string]float64{}
	for e, m := range need {
		out[e] = map[string]float64{}
		for b, fs := range m {
			// Rounded up to two digits, for a readable summary.
			out[e][b] = math.Ceil(100*conformal(fs, coverage)) / 100
		}
	}
	return out
}

// Tune chooses, on the atlas sample of rows alone (the calibration sample
// is left to measure the outcome), the minimum region size and the
// widening factors: for each candidate of MinScenarioChoices, each fold's
// errors are set against the intervals the other folds state; per
// estimator and bin the factor is the split-conformal quantile of the
// widening each held-out error needs to fall inside, for
// atlas.DefaultCoverage. The candidate whose widened intervals are
// narrowest on average wins, over the errors every candidate states an
// interval for (a larger minimum leaves small regions, such as a rarely
// run variant's, without one).
func Tune(rows []Row) Tuning {
	var as []Row
	for _, r := range rows {
		if r.Sample == SampleAtlas && r.Refused == "" {
			as = append(as, r)
		}
	}
	var t Tuning
	type cand struct {
		pts   []point
		widen map[string]map[string]float64
	}
	var cands []cand
	stated := map[[2]any]int{} // how many candidates state each error
	for _, m := range MinScenarioChoices {
		pts, unstated := crossPoints(as, m)
		cands = append(cands, cand{pts, widen(pts, atlas.DefaultCoverage)})
		t.Choices = append(t.Choices, TuneChoice{MinScenarios: m, Stated: len(pts), Unstated: unstated})
		for _, p := range pts {
			stated[[2]any{p.id, p.bin}]++
		}
	}
	best := -1
	for i, c := range cands {
		width, n := 0.0, 0
		for _, p := range c.pts {
			if stated[[2]any{p.id, p.bin}] == len(cands) {
				lo, hi := p.iv.Widened(c.widen[p.est][p.bin])
				width += hi - lo
				n++
			}
		}
		t.Choices[i].MeanWidth = width / float64(max(n, 1))
		if n > 0 && (best < 0 || t.Choices[i].MeanWidth < t.Choices[best].MeanWidth) {
			best = i
		}
	}
	if best < 0 {
		return Tuning{MinScenarios: atlas.DefaultMinScenarios}
	}
	t.MinScenarios = t.Choices[best].MinScenarios
	t.Widen = cands[best].widen
	t.Folds = coverOf(cands[best].pts, cands[best].widen)
	return t
}

// coverOf is the coverage of the points' intervals widened by w, per
// estimator and bin.
func coverOf(pts []point, w map[string]map[string]float64) []Coverage {
	type key struct{ est, bin string }
	m := map[key]*Coverage{}
	for _, p := range pts {
		k := key{p.est, p.bin}
		if m[k] == nil {
			m[k] = &Coverage{Estimator: p.est, Bin: p.bin}
		}
		lo, hi := p.iv.Widened(w[p.est][p.bin])
		m[k].Stated++
		m[k].Width += hi - lo
		if p.err >= lo && p.err <= hi {
			m[k].Inside++
		}
	}
	return sortCoverage(m)
}
