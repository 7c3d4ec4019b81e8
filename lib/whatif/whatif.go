// Package whatif answers what-if questions about a network's
// configuration, as m3's counterfactual search (§5.4, Fig. 13 and 14):
// one scenario, one field of its network block swept over a list of
// values, every estimator asked at every value, the same flows throughout
// (only the network changes, so the workload is fixed: scenario.Spec's
// WorkloadID is the same at every value), seeds for confidence intervals.
//
// Run is the one entry point (the command tailscope whatif and notebooks
// call it); its Result holds the p99 slowdown per flow-size class, value
// and estimator with intervals over seeds, each estimator's error against
// the baseline at the same value and seed, the CPU time of every run, and
// the estimators that refused a configuration (estimator.Models) with
// their reasons, and those that answered by extrapolating beyond what
// they were trained on (m3 outside its model's training ranges);
// EffectLines says which differences are real, DirectionLines how often
// the accuracy atlas found each estimator's direction right for the
// swept setting.
// Result.Table, Result.Costs and Result.Figure turn it into frames and an
// m3-style figure. The API is non-generic so that the gophernotes
// interpreter can call it.
package whatif

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
)

// DefaultEstimators are the estimators asked when Options names none:
// packetsim as the ground truth, m3, Parsimon and flowSim alone.
var DefaultEstimators = []string{"packetsim", "m3", "parsimon", "flowsim"}

// All is the class of all flows, after the size classes.
const All = "all"

// Options describe a what-if sweep. Spec, Param, Values and Dir are
// required; the rest have defaults.
type Options struct {
	// Spec is the scenario; its network block is the configuration the
	// swept field is changed in, and its seed the first seed.
	Spec scenario.Spec
	// Param is the swept field's JSON path in the network block
	// ("hpcc.eta", "hpcc.window_bytes", "dctcp.k_bytes", "buffer_bytes",
	// "cc"; netcfg.Config.Set), Values its values as JSON ("0.9",
	// `"hpcc"`).
	Param  string
	Values []string
	// Estimators are asked at every value (DefaultEstimators if nil);
	// EstimatorOptions holds options JSON by estimator name.
	Estimators       []string
	EstimatorOptions map[string]string
	// Baseline is the estimator the others are compared with
	// ("packetsim" if empty); it must model every value.
	Baseline string
	// Seeds is the number of seeds per value (1 if 0): the spec's seed
	// and the next Seeds-1.
	Seeds int
	// MaxSeeds, when above Seeds, lets Run choose the seeds: while no
	// change of the baseline is larger than its interval, it runs the
	// seeds the clearest change would need (Result.SeedsNeeded), up to
	// MaxSeeds; the runs already done are reused.
	MaxSeeds int
	// Bins are the flow-size classes (metrics.DefaultBins if zero),
	// Percentile the slowdown percentile (99 if 0), Level the confidence
	// level of the intervals (0.95 if 0).
	Bins       metrics.Bins
	Percentile float64
	Level      float64
	// Dir holds the runs' record frames and journal: a sweep run again
	// reuses what is done (experiment.Sweep).
	Dir string
	// Executor runs the runs (experiment.Local{} if nil: one at a time,
	// so the journal's CPU time of a run is its own).
	Executor experiment.Executor
	// Progress gets a report per run done (may be nil).
	Progress progress.Reporter
}

// Point is one estimator's answer for one flow-size class at one value.
type Point struct {
	Value     string  // the swept value, JSON
	X         float64 // the value as a number; NaN if it is not one
	Estimator string
	Class     string // a size bin's label, or All
	// P99 is the mean over seeds of the Percentile-th slowdown, Half the
	// half-width of its confidence interval (NaN with one seed).
	P99, Half float64
	// Error is the mean over seeds of the relative error of P99 against
	// the baseline's at the same value and seed, ErrorHalf its interval.
	Error, ErrorHalf float64
	Flows            int // flows in the class (the baseline's, first seed)
	// PerSeed is the Percentile-th slowdown at each seed.
	PerSeed []float64
}

// Cost is what one estimator's runs at one value cost, summed over seeds
// (from the sweep's journal: NaN for runs done before CPU time was
// recorded).
type Cost struct {
	Value                   string
	Estimator               string
	Runs                    int
	CPUSeconds, WallSeconds float64
}

// Refusal is an estimator that does not model a value's configuration.
type Refusal struct {
	Value, Estimator, Reason string
}

// Extrapolation is an estimator that answered a value with a model whose
// training data did not reach it: Paths of the Of model inputs it drew
// over the seeds (m3's simulated paths) lay outside the training ranges,
// in the inputs Entries.
type Extrapolation struct {
	Value, Estimator string
	Paths, Of        int
	Entries          []string
}

// Result is a what-if sweep's outcome.
type Result struct {
	Param              string
	Values, Estimators []string
	Baseline           string
	// Seeds is the number of seeds run, SeedsAsked the number asked
	// (fewer when Run chose more: Options.MaxSeeds).
	Seeds, SeedsAsked int
	Percentile, Level float64
	Classes           []string // the size bins' labels, then All
	// WorkloadID names the flows every value ran (scenario.Spec).
	WorkloadID     string
	Points         []Point
	Costs          []Cost
	Refusals       []Refusal
	Extrapolations []Extrapolation
	// Effects are the changes from the first value to the others, per
	// estimator and class, with their intervals (EffectLines).
	Effects []Effect
	// Unmeasured holds, per estimator run with options the accuracy
	// atlas did not measure (estimator.AtlasLabel), why: the atlas's
	// direction scores are not its.
	Unmeasured map[string]string
	// MeasuredAs holds, per estimator run with the options of a variant
	// the atlas measures under a label of its own (estimator.AtlasRun),
	// that label: its direction scores are the label's.
	MeasuredAs map[string]string
}

// atlasLabel is the label of the atlas's direction scores for estimator
// e in r: e, the variant's label it was run as, or "" when the atlas did
// not measure it so.
func (r *Result) atlasLabel(e string) string {
	switch {
	case r.Unmeasured[e] != "":
		return ""
	case r.MeasuredAs[e] != "":
		return r.MeasuredAs[e]
	}
	return e
}

// Run runs the sweep o describes and collects its result, with more
// seeds than o.Seeds when o.MaxSeeds allows and the result needs them
// (Options.MaxSeeds).
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	asked := o.Seeds
	for {
		res, err := runOnce(ctx, o)
		if err != nil {
			return nil, err
		}
		res.SeedsAsked = asked
		n := min(res.SeedsNeeded(), o.MaxSeeds)
		if res.Resolved() || n <= o.Seeds {
			return res, nil
		}
		o.Seeds = n
	}
}

// runOnce runs the sweep at o.Seeds seeds.
func runOnce(ctx context.Context, o Options) (*Result, error) {
	res := &Result{Param: o.Param, Values: o.Values, Estimators: o.Estimators, Baseline: o.Baseline, Seeds: o.Seeds,
		Percentile: o.Percentile, Level: o.Level, Classes: append(slices.Clone(o.Bins.Labels), All), WorkloadID: o.Spec.WorkloadID()}
	// asked[v] lists the estimators that model value v; tasks[v][k][e]
	// is estimator e's run at value v, seed k.
	asked := make([][]string, len(o.Values))
	runs := make([][][]experiment.Task, len(o.Values))
	var tasks []experiment.Task
	for v, val := range o.Values {
		cfg, err := o.Spec.Network.Set(o.Param, json.RawMessage(val))
		if err != nil {
			return nil, fmt.Errorf("whatif: %w", err)
		}
		atValue := o.Spec
		atValue.Network = cfg
		for _, e := range o.Estimators {
			// A configuration the estimator does not model, or one the
			// accuracy atlas says it answers badly, is a refusal.
			if err := estimator.Answers(e, o.EstimatorOptions[e], atValue); err != nil {
				if e == o.Baseline {
					return nil, fmt.Errorf("whatif: the baseline cannot answer %s = %s: %w", o.Param, val, err)
				}
				res.Refusals = append(res.Refusals, Refusal{Value: val, Estimator: e, Reason: err.Error()})
				continue
			}
			asked[v] = append(asked[v], e)
			label, why, err := estimator.AtlasLabel(e, o.EstimatorOptions[e], atValue)
			if err != nil {
				return nil, fmt.Errorf("whatif: %w", err)
			}
			if why != "" && res.Unmeasured[e] == "" {
				if res.Unmeasured == nil {
					res.Unmeasured = map[string]string{}
				}
				res.Unmeasured[e] = why
			}
			if label != "" && label != e && res.MeasuredAs[e] == "" {
				if res.MeasuredAs == nil {
					res.MeasuredAs = map[string]string{}
				}
				res.MeasuredAs[e] = label
			}
		}
		runs[v] = make([][]experiment.Task, o.Seeds)
		for k := range o.Seeds {
			s := o.Spec
			s.Network, s.Seed = cfg, o.Spec.Seed+uint64(k)
			for _, e := range asked[v] {
				t := experiment.Task{Spec: s, Estimator: e, Options: o.EstimatorOptions[e]}
				runs[v][k] = append(runs[v][k], t)
				tasks = append(tasks, t)
			}
		}
	}
	if _, err := experiment.Sweep(ctx, o.Dir, tasks, o.Executor, o.Progress); err != nil {
		return nil, fmt.Errorf("whatif: %w", err)
	}
	journal, err := experiment.ReadJournal(o.Dir)
	if err != nil {
		return nil, err
	}
	for v, val := range o.Values {
		x, err := strconv.ParseFloat(val, 64)
		if err != nil {
			x = math.NaN()
		}
		// per[e][k] is estimator e's comparison with the baseline at seed k.
		per := make([][]metrics.Comparison, len(asked[v]))
		for k := range o.Seeds {
			ts := runs[v][k]
			base, _, err := ts[slices.Index(asked[v], o.Baseline)].Records(o.Dir)
			if err != nil {
				return nil, err
			}
			for i, t := range ts {
				recs, meta, err := t.Records(o.Dir)
				if err != nil {
					return nil, err
				}
				per[i] = append(per[i], metrics.Compare(recs, base, o.Bins, o.Percentile))
				res.extrapolated(val, t.Estimator, meta)
			}
		}
		for i, e := range asked[v] {
			for c, class := range res.Classes {
				var p99s, errs []float64
				for _, cmp := range per[i] {
					if c < len(o.Bins.Labels) {
						p99s, errs = append(p99s, cmp.Est[c]), append(errs, cmp.Error[c])
					} else {
						p99s, errs = append(p99s, cmp.All), append(errs, cmp.ErrorAll)
					}
				}
				pt := Point{Value: val, X: x, Estimator: e, Class: class, Flows: flows(per[i][0], c), PerSeed: p99s}
				pt.P99, pt.Half = meanCI(p99s, o.Level)
				pt.Error, pt.ErrorHalf = meanCI(errs, o.Level)
				res.Points = append(res.Points, pt)
			}
			cost := Cost{Value: val, Estimator: e}
			for k := range o.Seeds {
				key, err := runs[v][k][i].Key()
				if err != nil {
					return nil, err
				}
				c, ok := journal[key]
				if !ok {
					c = experiment.Cost{CPUSeconds: math.NaN(), WallSeconds: math.NaN()}
				}
				cost.Runs++
				cost.CPUSeconds += c.CPUSeconds
				cost.WallSeconds += c.WallSeconds
			}
			res.Costs = append(res.Costs, cost)
		}
	}
	res.Extrapolations = slices.DeleteFunc(res.Extrapolations, func(x Extrapolation) bool { return x.Paths == 0 })
	res.effects()
	return res, nil
}

// extrapolated records what a run of estimator e at value val says in its
// frame's metadata about inputs outside its model's training ranges
// (estimator.Outside), summed over seeds; Run then drops the values where
// no seed's run had any.
func (r *Result) extrapolated(val, e string, meta frame.Meta) {
	out, of, entries, ok := estimator.Outside(meta.Extra)
	if !ok {
		return
	}
	i := slices.IndexFunc(r.Extrapolations, func(x Extrapolation) bool { return x.Value == val && x.Estimator == e })
	if i < 0 {
		r.Extrapolations = append(r.Extrapolations, Extrapolation{Value: val, Estimator: e})
		i = len(r.Extrapolations) - 1
	}
	x := &r.Extrapolations[i]
	x.Paths, x.Of = x.Paths+out, x.Of+of
	for _, n := range entries {
		if !slices.Contains(x.Entries, n) {
			x.Entries = append(x.Entries, n)
		}
	}
}

// defaults checks o and fills in its defaults.
func (o *Options) defaults() error {
	switch {
	case o.Param == "":
		return errors.New("whatif: no parameter to sweep (a JSON path in the network block, such as hpcc.eta)")
	case len(o.Values) == 0:
		return fmt.Errorf("whatif: no values for %s", o.Param)
	case o.Dir == "":
		return errors.New("whatif: no results directory")
	case o.Seeds < 0:
		return fmt.Errorf("whatif: %d seeds", o.Seeds)
	case o.MaxSeeds < 0:
		return fmt.Errorf("whatif: %d max seeds", o.MaxSeeds)
	}
	if len(o.Estimators) == 0 {
		o.Estimators = DefaultEstimators
	}
	if o.Baseline == "" {
		o.Baseline = "packetsim"
	}
	if !slices.Contains(o.Estimators, o.Baseline) {
		o.Estimators = append([]string{o.Baseline}, o.Estimators...)
	}
	if err := estimator.Check(o.Estimators...); err != nil {
		return fmt.Errorf("whatif: %w", err)
	}
	for e := range o.EstimatorOptions {
		if !slices.Contains(o.Estimators, e) {
			return fmt.Errorf("whatif: options for %s, which is not asked (%s)", e, strings.Join(o.Estimators, ", "))
		}
	}
	seen := map[string]bool{}
	for _, v := range o.Values {
		if seen[v] {
			return fmt.Errorf("whatif: value %s given twice", v)
		}
		seen[v] = true
	}
	if o.Seeds == 0 {
		o.Seeds = 1
	}
	if o.Bins.Len() <= 1 {
		o.Bins = metrics.DefaultBins()
	}
	if o.Percentile == 0 {
		o.Percentile = 99
	}
	if !(o.Percentile > 0 && o.Percentile <= 100) {
		return fmt.Errorf("whatif: percentile %g is not in (0, 100]", o.Percentile)
	}
	if o.Level == 0 {
		o.Level = 0.95
	}
	if !(o.Level > 0 && o.Level < 1) {
		return fmt.Errorf("whatif: confidence level %g is not in (0, 1)", o.Level)
	}
	if o.Executor == nil {
		o.Executor = experiment.Local{}
	}
	return nil
}

// flows is the baseline's flow count of class c (the last is All).
func flows(c metrics.Comparison, class int) int {
	if class < len(c.BaseCount) {
		return c.BaseCount[class]
	}
	n := 0
	for _, k := range c.BaseCount {
		n += k
	}
	return n
}

// meanCI is the mean of xs and the half-width of its confidence interval
// at level (NaN for fewer than two values, or any NaN among them).
func meanCI(xs []float64, level float64) (mean, half float64) {
	for _, x := range xs {
		mean += x / float64(len(xs))
	}
	if ci, err := metrics.MeanCI(xs, level); err == nil {
		return mean, ci.Half
	}
	return mean, math.NaN()
}
