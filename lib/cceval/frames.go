package cceval

import (
	"math"
	"sort"

	"github.com/tailscope/tailscope/lib/frame"
)

// Column names of the cceval frames.
const (
	ColLabel     = "label"     // what a row is about: an estimator, a method, a trial length
	ColMetric    = "metric"    // a metric name (MetricName)
	ColTrial     = "trial"     // trial index; it ran with seed Config.Seed + trial
	ColN         = "n"         // trials so far
	ColMean      = "mean"      // mean of the metric
	ColHalf      = "half"      // half-width of its confidence interval
	ColRelative  = "relative"  // half / |mean|
	ColRequired  = "required"  // the half-width the margin asks for: margin x |mean|
	ColLevel     = "level"     // confidence level
	ColTrials    = "trials"    // trials (cycles) to convergence, RTC; 0 if it never converged
	ColForecast  = "forecast"  // Eq. 3's forecast from the exploratory stage, ETC
	ColCycles    = "cycles"    // cycles run
	ColRuns      = "runs"      // estimator runs (replays included)
	ColFlows     = "flows"     // flows simulated, or flows per trial in a duration study
	ColReduction = "reduction" // share of the model-free cycles saved
)

// TrialsTable is one row per trial of r, one column per metric of its
// first trial (sorted by name).
func (r *Result) TrialsTable() *frame.Table {
	var names []string
	if len(r.Trials) > 0 {
		for k := range r.Trials[0] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	idx := make([]int64, len(r.Trials))
	for i := range idx {
		idx[i] = int64(i)
	}
	t := &frame.Table{Columns: []frame.Column{frame.Int64Column(ColTrial, idx)}}
	for _, n := range names {
		v := make([]float64, len(r.Trials))
		for i, m := range r.Trials {
			v[i] = m[n]
		}
		t.Columns = append(t.Columns, frame.Float64Column(n, v))
	}
	return t
}

// TraceTable is Fig. 7's data: for each metric of r and each trial count
// N from 2, the interval then and the half-width the margin asks for.
func (r *Result) TraceTable() *frame.Table {
	var name []string
	var n []int64
	var mean, half, rel, req []float64
	for _, m := range r.Metrics {
		for _, iv := range m.Trace {
			name, n = append(name, m.Name), append(n, int64(iv.N))
			mean, half, rel = append(mean, iv.Mean), append(half, iv.Half), append(rel, iv.Relative())
			req = append(req, r.Margin*math.Abs(iv.Mean))
		}
	}
	return &frame.Table{Columns: []frame.Column{
		frame.StringColumn(ColMetric, name), frame.Int64Column(ColN, n), frame.Float64Column(ColMean, mean),
		frame.Float64Column(ColHalf, half), frame.Float64Column(ColRelative, rel), frame.Float64Column(ColRequired, req),
	}}
}

// ResultsTable is Fig. 9's data: for each labelled result (an estimator,
// a congestion control) and each of its metrics, the final interval, the
// real trial count and the forecast.
func ResultsTable(labels []string, results []*Result) *frame.Table {
	var lab, name []string
	var mean, half, rel, level []float64
	var trials, fore []int64
	for i, r := range results {
		for _, m := range r.Metrics {
			lab, name = append(lab, labels[i]), append(name, m.Name)
			mean, half, rel, level = append(mean, m.Interval.Mean), append(half, m.Interval.Half), append(rel, m.Interval.Relative()), append(level, r.Level)
			trials, fore = append(trials, int64(m.Trials)), append(fore, int64(m.Forecast))
		}
	}
	return &frame.Table{Columns: []frame.Column{
		frame.StringColumn(ColLabel, lab), frame.StringColumn(ColMetric, name), frame.Float64Column(ColMean, mean),
		frame.Float64Column(ColHalf, half), frame.Float64Column(ColRelative, rel), frame.Float64Column(ColLevel, level),
		frame.Int64Column(ColTrials, trials), frame.Int64Column(ColForecast, fore),
	}}
}

// Table is Fig. 14a's data: one row per method (model-free, plain,
// importance sampling) with its estimate, interval, cycles to
// convergence, estimator runs, flows simulated, the share of the
// model-free cycles it saved and its wall-clock seconds.
func (c *TailComparison) Table() *frame.Table {
	mf := float64(c.ModelFreeCount)
	rows := []struct {
		label             string
		iv                Interval
		cycles, runs, fls int
		secs              float64
	}{
		{"model-free", c.ModelFree.Interval, c.ModelFreeCount, c.ModelFreeCount, c.ModelFreeFlows, c.ModelFreeSeconds},
		{"renewal-reward", c.Plain.Interval, c.Plain.Cycles, c.Plain.Runs, c.Plain.Flows, c.PlainSeconds},
		{"importance sampling", c.IS.Interval, c.IS.Cycles, c.IS.Runs, c.IS.Flows, c.ISSeconds},
	}
	t := &frame.Table{}
	var lab []string
	var mean, half, rel, red, secs []float64
	var cyc, runs, flows []int64
	for _, r := range rows {
		lab = append(lab, r.label)
		secs = append(secs, r.secs)
		mean, half, rel = append(mean, r.iv.Mean), append(half, r.iv.Half), append(rel, r.iv.Relative())
		cyc, runs, flows = append(cyc, int64(r.cycles)), append(runs, int64(r.runs)), append(flows, int64(r.fls))
		red = append(red, 1-float64(r.cycles)/mf)
	}
	t.Columns = []frame.Column{
		frame.StringColumn(ColLabel, lab), frame.Float64Column(ColMean, mean), frame.Float64Column(ColHalf, half),
		frame.Float64Column(ColRelative, rel), frame.Int64Column(ColCycles, cyc), frame.Int64Column(ColRuns, runs),
		frame.Int64Column(ColFlows, flows), frame.Float64Column(ColReduction, red), frame.Float64Column("wall_seconds", secs),
	}
	return t
}

// DurationTable is Fig. 13's data: one row per trial length.
func DurationTable(points []DurationPoint) *frame.Table {
	n := len(points)
	ints := func(get func(p DurationPoint) int) []int64 {
		v := make([]int64, n)
		for i, p := range points {
			v[i] = int64(get(p))
		}
		return v
	}
	nums := func(get func(p DurationPoint) float64) []float64 {
		v := make([]float64, n)
		for i, p := range points {
			v[i] = get(p)
		}
		return v
	}
	return &frame.Table{Columns: []frame.Column{
		frame.Int64Column(ColFlows, ints(func(p DurationPoint) int { return p.Flows })),
		frame.Float64Column("duration_ns", nums(func(p DurationPoint) float64 { return p.DurationNs })),
		frame.Float64Column(ColMean, nums(func(p DurationPoint) float64 { return p.Result.Interval.Mean })),
		frame.Float64Column(ColHalf, nums(func(p DurationPoint) float64 { return p.Result.Interval.Half })),
		frame.Float64Column("stable_mean", nums(func(p DurationPoint) float64 { return p.StableMean })),
		frame.Int64Column(ColTrials, ints(func(p DurationPoint) int { return p.Result.Trials })),
		frame.Int64Column(ColForecast, ints(func(p DurationPoint) int { return p.Result.Forecast })),
		frame.Int64Column("total_flows", ints(func(p DurationPoint) int { return p.TotalFlows })),
		frame.Float64Column("warmup", nums(func(p DurationPoint) float64 { return p.WarmUp })),
		frame.Float64Column("stable", nums(func(p DurationPoint) float64 { return p.Stable })),
		frame.Float64Column("cooldown", nums(func(p DurationPoint) float64 { return p.CoolDown })),
		frame.Float64Column("warmup_time", nums(func(p DurationPoint) float64 { return p.WarmUpTime })),
		frame.Float64Column("stable_time", nums(func(p DurationPoint) float64 { return p.StableTime })),
		frame.Float64Column("cooldown_time", nums(func(p DurationPoint) float64 { return p.CoolDownTime })),
	}}
}
