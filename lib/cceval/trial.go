package cceval

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
)

// DefaultPercentiles are the quantiles CCEval reports (§6.1), plus the
// median.
func DefaultPercentiles() []float64 { return []float64{50, 90, 95, 99, 99.9} }

// MetricName names the p-th percentile of a per-flow quantity ("fct" or
// "slowdown"), over all flows when label is "" and over one size bin
// otherwise: "fct_p99", "slowdown_p99.9[<=1KB]".
func MetricName(quantity string, p float64, label string) string {
	n := quantity + "_p" + strconv.FormatFloat(p, 'g', -1, 64)
	if label != "" {
		n += "[" + label + "]"
	}
	return n
}

// ParseMetricName splits a percentile MetricName such as "fct_p99",
// "slowdown_p99.9" or "fct_p99[<=1KB]" into its quantity, percentile (in
// (0, 100]) and size-bin label ("" over all flows).
func ParseMetricName(name string) (quantity string, pct float64, label string, err error) {
	base := name
	if i := strings.IndexByte(name, '['); i >= 0 && strings.HasSuffix(name, "]") {
		base, label = name[:i], name[i+1:len(name)-1]
	}
	for _, q := range []string{"fct", "slowdown"} {
		if rest, ok := strings.CutPrefix(base, q+"_p"); ok {
			p, perr := strconv.ParseFloat(rest, 64)
			if perr == nil && p > 0 && p <= 100 && MetricName(q, p, label) == name {
				return q, p, label, nil
			}
		}
	}
	return "", 0, "", fmt.Errorf("cceval: metric %q is not a percentile in (0, 100] such as fct_p99, slowdown_p99.9 or fct_p99[<=1KB]", name)
}

// TargetPercentiles are the percentiles that targets (MetricNames) ask
// for, sorted and each once, for RecordMetrics; means need none. A target
// that is neither a mean nor a percentile is an error.
func TargetPercentiles(targets []string) ([]float64, error) {
	var pcts []float64
	for _, t := range targets {
		if t == "fct_mean" || t == "slowdown_mean" {
			continue
		}
		_, p, _, err := ParseMetricName(t)
		if err != nil {
			return nil, fmt.Errorf("cceval: unknown metric %q (fct_mean, slowdown_mean, or fct_pP / slowdown_pP with P in (0, 100], optionally with a size bin label [...])", t)
		}
		if !slices.Contains(pcts, p) {
			pcts = append(pcts, p)
		}
	}
	slices.Sort(pcts)
	return pcts, nil
}

// CheckTargets returns an error naming the first target that RecordMetrics
// with bins and pcts never produces, so that a misspelt metric is refused
// before any trial runs.
func CheckTargets(targets []string, bins metrics.Bins, pcts []float64) error {
	known := map[string]bool{"fct_mean": true, "slowdown_mean": true}
	labels := []string{""}
	if bins.Len() > 1 {
		labels = append(labels, bins.Labels...)
	}
	for _, q := range []string{"fct", "slowdown"} {
		for _, p := range pcts {
			for _, l := range labels {
				known[MetricName(q, p, l)] = true
			}
		}
	}
	for _, t := range targets {
		if !known[t] {
			return fmt.Errorf("cceval: unknown metric %q (fct_mean, slowdown_mean, or fct_pP / slowdown_pP, optionally with a size bin label [...] of the chosen bins)", t)
		}
	}
	return nil
}

// RecordMetrics summarizes one trial's flow records: the percentiles pcts
// of FCT (ns) and slowdown over all flows and, when bins has more than one
// bin, per size bin (MetricName), plus "fct_mean" and "slowdown_mean". A
// bin without flows in this trial has no entries.
func RecordMetrics(recs []metrics.Record, bins metrics.Bins, pcts []float64) (Metrics, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("cceval: no flow records")
	}
	if err := bins.Check(); err != nil {
		return nil, err
	}
	m := Metrics{}
	add := func(label string, recs []metrics.Record) {
		fct := make([]float64, len(recs))
		sd := make([]float64, len(recs))
		for i, r := range recs {
			fct[i], sd[i] = float64(r.FCT), r.Slowdown
		}
		for i, v := range metrics.Percentiles(fct, pcts) {
			m[MetricName("fct", pcts[i], label)] = v
		}
		for i, v := range metrics.Percentiles(sd, pcts) {
			m[MetricName("slowdown", pcts[i], label)] = v
		}
	}
	add("", recs)
	var fsum, ssum float64
	for _, r := range recs {
		fsum += float64(r.FCT)
		ssum += r.Slowdown
	}
	m["fct_mean"], m["slowdown_mean"] = fsum/float64(len(recs)), ssum/float64(len(recs))
	if bins.Len() > 1 {
		by := make([][]metrics.Record, bins.Len())
		for _, r := range recs {
			i := bins.Index(r.Size)
			by[i] = append(by[i], r)
		}
		for i, rs := range by {
			if len(rs) > 0 {
				add(bins.Labels[i], rs)
			}
		}
	}
	return m, nil
}

// ScenarioTrial makes a Trial that builds spec with the trial's seed, runs
// the named estimator (see estimator.Names) with options (JSON, "" for
// defaults) and summarizes the records with RecordMetrics.
func ScenarioTrial(spec scenario.Spec, name, options string, bins metrics.Bins, pcts []float64) Trial {
	return func(ctx context.Context, seed uint64) (Metrics, error) {
		recs, err := runSeeded(ctx, spec, seed, name, options)
		if err != nil {
			return nil, err
		}
		return RecordMetrics(recs, bins, pcts)
	}
}

// runSeeded builds spec with seed and runs the named estimator on it.
func runSeeded(ctx context.Context, spec scenario.Spec, seed uint64, name, options string) ([]metrics.Record, error) {
	spec.Seed = seed
	sc, err := scenario.Build(spec)
	if err != nil {
		return nil, err
	}
	res, err := estimator.Run(ctx, name, sc, options)
	if err != nil {
		return nil, err
	}
	return res.Records, nil
}
