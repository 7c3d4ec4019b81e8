// Package synth draws synthetic summary rows for the tests of the packages
// that analyse and draw them (lib/summary, lib/plot), so that both test
// the same shapes of data.
package synth

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tailscope/tailscope/lib/metrics"
)

// Summaries draws n sweep rows of estimator parsimon against ns3 whose
// error grows with load, more so with matrix A and 4:1 oversubscription
// (the shape of Parsimon Fig. 9).
func Summaries(seed uint64, n int) []metrics.Summary {
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

// Seeded makes every row of Summaries(3, n) a family run with seeds
// seeds, the error of seed k shifted by k-(seeds-1)/2 percent; seed 0 has
// an empty (NaN) second bin.
func Seeded(n, seeds int) []metrics.Summary {
	var rows []metrics.Summary
	for i, r := range Summaries(3, n) {
		for k := range seeds {
			c := r
			d := 0.01 * (float64(k) - float64(seeds-1)/2)
			c.ScenarioID, c.Family = fmt.Sprintf("%s-%d", r.ScenarioID, k), fmt.Sprintf("fam%d", i)
			c.P99.Error = append([]float64(nil), r.P99.Error...)
			c.P99.Error[0] += d
			c.P99.ErrorAll += d
			c.MaxLoad += d
			if k == 0 {
				c.P99.Error[1] = math.NaN() // an empty bin in one seed
			}
			rows = append(rows, c)
		}
	}
	return rows
}
