package summary

import (
	"fmt"
	"math"
	"strings"

	"github.com/tailscope/tailscope/lib/metrics"
)

// CombineSeeds merges the summary rows of scenarios run with several seeds
// (experiment.Replicate): rows with the same Family, estimator and
// baseline (and baseline family) become one row whose P99 values, errors included, are the
// means over the seeds, with Half holding the half-widths of their
// Student-t confidence intervals at level (metrics.MeanCI). The scenario id of
// a combined row is its family; a scenario run once keeps its row as it
// is. Rows keep the order in which their first seed appears.
func CombineSeeds(rows []metrics.Summary, level float64) ([]metrics.Summary, error) {
	if !(level > 0 && level < 1) {
		return nil, fmt.Errorf("summary: confidence level %v must be in (0, 1)", level)
	}
	type key struct{ family, est, base, baseFamily string }
	var order []key
	groups := map[key][]metrics.Summary{}
	for _, r := range rows {
		k := key{r.Family, r.Estimator, r.Baseline, r.BaseFamily}
		if k.family == "" {
			k.family = r.ScenarioID
		}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	out := make([]metrics.Summary, 0, len(order))
	for _, k := range order {
		g := groups[k]
		if len(g) == 1 {
			out = append(out, g[0])
			continue
		}
		c, err := combine(g, level)
		if err != nil {
			return nil, fmt.Errorf("summary: scenario family %s, %s: %w", k.family, k.est, err)
		}
		c.ScenarioID, c.Family = k.family, k.family
		out = append(out, c)
	}
	return out, nil
}

// combine averages one family's rows.
func combine(g []metrics.Summary, level float64) (metrics.Summary, error) {
	first := g[0]
	labels := first.P99.Labels
	for _, r := range g[1:] {
		if strings.Join(r.P99.Labels, "\x00") != strings.Join(labels, "\x00") || r.P99.Percentile != first.P99.Percentile {
			return metrics.Summary{}, fmt.Errorf("seeds have different bins or percentiles (%v p%g, %v p%g)", labels, first.P99.Percentile, r.P99.Labels, r.P99.Percentile)
		}
	}
	// stat is the mean and CI half-width of get over the seeds where it is
	// a number (an empty bin gives NaN).
	stat := func(get func(r *metrics.Summary) float64) (mean, half float64) {
		var xs []float64
		for i := range g {
			if v := get(&g[i]); !math.IsNaN(v) && !math.IsInf(v, 0) {
				xs = append(xs, v)
			}
		}
		switch len(xs) {
		case 0:
			return math.NaN(), math.NaN()
		case 1:
			return xs[0], math.NaN()
		}
		iv, err := metrics.MeanCI(xs, level)
		if err != nil {
			return math.NaN(), math.NaN()
		}
		return iv.Mean, iv.Half
	}
	mean := func(get func(r *metrics.Summary) float64) float64 {
		m, _ := stat(get)
		return m
	}
	c := first
	c.Seeds, c.Level = len(g), level
	c.P99 = metrics.Comparison{Percentile: first.P99.Percentile, Labels: labels}
	c.Half = metrics.Comparison{Percentile: first.P99.Percentile, Labels: labels}
	c.P99.All, c.Half.All = stat(func(r *metrics.Summary) float64 { return r.P99.All })
	c.P99.BaseAll, c.Half.BaseAll = stat(func(r *metrics.Summary) float64 { return r.P99.BaseAll })
	c.P99.ErrorAll, c.Half.ErrorAll = stat(func(r *metrics.Summary) float64 { return r.P99.ErrorAll })
	for b := range labels {
		m, h := stat(func(r *metrics.Summary) float64 { return r.P99.Est[b] })
		c.P99.Est, c.Half.Est = append(c.P99.Est, m), append(c.Half.Est, h)
		m, h = stat(func(r *metrics.Summary) float64 { return r.P99.Base[b] })
		c.P99.Base, c.Half.Base = append(c.P99.Base, m), append(c.Half.Base, h)
		m, h = stat(func(r *metrics.Summary) float64 { return r.P99.Error[b] })
		c.P99.Error, c.Half.Error = append(c.P99.Error, m), append(c.Half.Error, h)
	}
	c.Flows = int(math.Round(mean(func(r *metrics.Summary) float64 { return float64(r.Flows) })))
	c.MaxLoad = mean(func(r *metrics.Summary) float64 { return r.MaxLoad })
	c.Top10Load = mean(func(r *metrics.Summary) float64 { return r.Top10Load })
	c.WallSeconds = mean(func(r *metrics.Summary) float64 { return r.WallSeconds })
	c.BaseWallSeconds = mean(func(r *metrics.Summary) float64 { return r.BaseWallSeconds })
	return c, nil
}
