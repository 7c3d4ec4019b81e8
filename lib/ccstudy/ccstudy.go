// Package ccstudy is the CCEval study behind "tailscope cceval" and
// notebook 07: model-free confidence intervals over trials for labelled
// estimator runs (Estimate; the paper's Fig. 7 and 9), the model-based
// tail quantile against the model-free one (NewTail; Fig. 14), and the
// trial-length analysis (Durations; Fig. 13). Like package validate it
// holds the whole recipe (the scenario preset, the runs, the reports,
// the frames and the figures), so that the command and the notebook only
// call it, and it is where cceval's results become plot's plain data.
package ccstudy

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscope/tailscope/lib/cceval"
	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

// Dumbbell is the study's preset: CCEval's 10x10 DCTCP dumbbell with
// Poisson arrivals of webserver sizes at max load 0.3, 400 flows a trial.
func Dumbbell() scenario.Spec { return scenario.CCEvalDumbbell(400, 0.3, "webserver") }

// Override returns spec with every workload component's sizes set to
// sizes and max load to load, and the flows per trial set to flows (each
// left as it is when "" or 0).
func Override(spec scenario.Spec, sizes string, load float64, flows int) scenario.Spec {
	cs := append([]workload.Component(nil), spec.Workload.Components...)
	for i := range cs {
		if sizes != "" {
			cs[i].Sizes = workload.SizeSpec{Dist: sizes}
		}
		if load > 0 {
			cs[i].MaxLoad = load
		}
	}
	spec.Workload.Components = cs
	if flows > 0 {
		spec.Workload.Flows, spec.Workload.DurationNs = flows, 0
	}
	return spec
}

// Case is one labelled model-free estimation: trials of Spec (seeded
// Config.Seed + i) run by the named estimator with its options.
type Case struct {
	Label     string
	Spec      scenario.Spec
	Estimator string
	Options   string
}

// Estimation is the outcome of Estimate: one result per case.
type Estimation struct {
	Cases   []Case
	Results []*cceval.Result
	Targets []string
}

// Estimate runs model-free estimation of cfg.Targets (MetricNames, which
// must be set) for every case, the metrics per size bin of bins. With exec
// nil the trials run in this process (cfg.Workers at once) and nothing is
// kept; otherwise they run as sweep tasks through exec with their record
// frames under dir/<label> (cceval.EstimateSweep), so that an interrupted
// estimation resumes, and cfg.Progress gets each wave.
//
// Trial journals of older versions (<label>.trials.jsonl under dir) are
// refused rather than silently run again from scratch.
func Estimate(ctx context.Context, cases []Case, bins metrics.Bins, cfg cceval.Config, exec experiment.Executor, dir string) (*Estimation, error) {
	if len(cases) == 0 || len(cfg.Targets) == 0 {
		return nil, fmt.Errorf("ccstudy: an estimation needs cases and targets (%d cases, targets %v)", len(cases), cfg.Targets)
	}
	pcts, err := cceval.TargetPercentiles(cfg.Targets)
	if err != nil {
		return nil, err
	}
	if err := cceval.CheckTargets(cfg.Targets, bins, pcts); err != nil {
		return nil, err
	}
	if exec != nil {
		for _, c := range cases {
			old := filepath.Join(dir, c.Label+".trials.jsonl")
			if _, err := os.Stat(old); err == nil {
				return nil, fmt.Errorf("ccstudy: %s is a trial journal of an older tailscope; trials now resume from sweep results under %s: move the journal away (its trials run again) or write into another directory",
					old, filepath.Join(dir, c.Label))
			}
		}
	}
	e := &Estimation{Cases: cases, Targets: cfg.Targets}
	for _, c := range cases {
		var res *cceval.Result
		if exec != nil {
			res, err = cceval.EstimateSweep(ctx, c.Spec, c.Estimator, c.Options, bins, pcts, cfg, exec, filepath.Join(dir, c.Label), cfg.Progress)
		} else {
			res, err = cceval.Estimate(ctx, cceval.ScenarioTrial(c.Spec, c.Estimator, c.Options, bins, pcts), cfg)
		}
		if err != nil {
			return nil, fmt.Errorf("ccstudy: %s: %w", c.Label, err)
		}
		e.Results = append(e.Results, res)
	}
	return e, nil
}

// Labels are the cases' labels, in order.
func (e *Estimation) Labels() []string {
	ls := make([]string, len(e.Cases))
	for i, c := range e.Cases {
		ls[i] = c.Label
	}
	return ls
}

// Report writes every case's intervals with their real trial counts and
// forecasts.
func (e *Estimation) Report(w io.Writer) {
	for i, r := range e.Results {
		for _, m := range r.Metrics {
			fmt.Fprintf(w, "%-24s %-8s %v: real trials %d, forecast %d\n", e.Cases[i].Label, m.Name, m.Interval, m.Trials, m.Forecast)
		}
	}
}

// Table is Fig. 9's data (cceval.ResultsTable).
func (e *Estimation) Table() *frame.Table { return cceval.ResultsTable(e.Labels(), e.Results) }

// TraceFigure draws Fig. 7 for the i-th case's named metrics (all when
// names is empty).
func (e *Estimation) TraceFigure(i int, names []string) (*plot.Figure, error) {
	if i < 0 || i >= len(e.Results) {
		return nil, fmt.Errorf("ccstudy: no case %d of %d", i, len(e.Results))
	}
	r := e.Results[i]
	ms := make([]plot.CIMetric, len(r.Metrics))
	for k, m := range r.Metrics {
		ms[k] = plot.CIMetric{Name: m.Name, Title: fmt.Sprintf("%s: %s", m.Name, m.Interval), Trials: m.Trials, Forecast: m.Forecast}
		for _, iv := range m.Trace {
			ms[k].N, ms[k].Relative = append(ms[k].N, iv.N), append(ms[k].Relative, iv.Relative())
		}
	}
	return plot.CITrace(ms, r.Margin, names)
}

// trialsRun is the real trial count of m, or the trials run when it never
// converged.
func trialsRun(m cceval.MetricResult) int {
	if m.Trials == 0 {
		return m.Interval.N
	}
	return m.Trials
}

// MetricFigure draws Fig. 9 for one metric across the cases.
func (e *Estimation) MetricFigure(metric string) (*plot.Figure, error) {
	rows := make([]plot.CIRow, len(e.Results))
	for i, r := range e.Results {
		m, ok := r.Metric(metric)
		if !ok {
			return nil, fmt.Errorf("ccstudy: %s has no metric %q", e.Cases[i].Label, metric)
		}
		rows[i] = plot.CIRow{Label: e.Cases[i].Label, Mean: m.Interval.Mean, Half: m.Interval.Half, Trials: trialsRun(m), Forecast: m.Forecast}
	}
	return plot.CIByLabel(metric, e.Results[0].Level, rows)
}

// Write stores under dir every case's trials and trace frames
// (<label>.trials.parquet, <label>.trace.parquet) and trace figure
// (<label>.trace.png), the results frame (results.parquet), and a figure
// per target across the cases (by_estimator_<target>.png, the target's
// brackets and comparisons spelt out).
func (e *Estimation) Write(dir string) error {
	for i, c := range e.Cases {
		r := e.Results[i]
		if err := frame.WriteTable(filepath.Join(dir, c.Label+".trials.parquet"), r.TrialsTable()); err != nil {
			return err
		}
		if err := frame.WriteTable(filepath.Join(dir, c.Label+".trace.parquet"), r.TraceTable()); err != nil {
			return err
		}
		fig, err := e.TraceFigure(i, nil)
		if err != nil {
			return err
		}
		if err := plot.Save(fig, filepath.Join(dir, c.Label+".trace.png")); err != nil {
			return err
		}
	}
	if err := frame.WriteTable(filepath.Join(dir, "results.parquet"), e.Table()); err != nil {
		return err
	}
	for _, m := range e.Targets {
		fig, err := e.MetricFigure(m)
		if err != nil {
			return err
		}
		name := "by_estimator_" + strings.NewReplacer("[", "_", "]", "", "<", "le", ">", "gt", "=", "").Replace(m) + ".png"
		if err := plot.Save(fig, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// Tail is the model-based tail study of one spec: its cycle model and the
// estimator that runs the cycles.
type Tail struct {
	Spec  scenario.Spec
	Model *cceval.Model
	Run   cceval.Runner
}

// NewTail fits spec's cycle model with cycles of durationNs of arrivals
// (cceval.NewModel) and the runner of the named estimator (a causal one:
// packetsim, flowsim) with its options.
func NewTail(spec scenario.Spec, estimator, options string, durationNs int64) (*Tail, error) {
	m, err := cceval.NewModel(spec, durationNs)
	if err != nil {
		return nil, err
	}
	run, err := cceval.EstimatorRunner(spec, estimator, options)
	if err != nil {
		return nil, err
	}
	return &Tail{Spec: spec, Model: m, Run: run}, nil
}

// Describe writes the fitted model.
func (t *Tail) Describe(w io.Writer) {
	m := t.Model
	fmt.Fprintf(w, "model: arrivals %v, sizes %v (least-squares fit to %s, CDF rmse %.3f), %.1f flows per cycle\n",
		m.Arrival, m.Size, m.SizeFit.Of, m.SizeFit.RMSE, m.MeanFlows())
}

// SizeFitFigure draws Fig. 14b: the spec's size CDF with its
// least-squares log-normal, normal and exponential fits.
func (t *Tail) SizeFitFigure() (*plot.Figure, error) {
	d, err := workload.NewSizeDist(t.Spec.Workload.Components[0].Sizes)
	if err != nil {
		return nil, err
	}
	dists := []workload.SizeDist{d}
	for _, fam := range []string{cceval.LogNormal, cceval.Normal, cceval.Exponential} {
		f, err := cceval.FitSizes(d, fam)
		if err != nil {
			return nil, err
		}
		dists = append(dists, f)
	}
	return plot.SizeCDFs(dists)
}

// Compare runs model-free estimation, the renewal-reward estimator and
// importance sampling of the tail quantile (cceval.CompareTail).
func (t *Tail) Compare(ctx context.Context, cfg cceval.TailConfig) (*cceval.TailComparison, error) {
	return cceval.CompareTail(ctx, t.Model, t.Run, cfg)
}

// Quantile runs one model-based estimator of the tail quantile
// (cceval.TailQuantile: importance sampling, or renewal-reward with
// cfg.Plain).
func (t *Tail) Quantile(ctx context.Context, cfg cceval.TailConfig) (*cceval.TailResult, error) {
	return cceval.TailQuantile(ctx, t.Model, t.Run, cfg)
}

// ReportComparison writes the three methods' intervals, cycles and times,
// importance sampling's tilt, and the cycles it saved.
func ReportComparison(w io.Writer, c *cceval.TailComparison) {
	fmt.Fprintf(w, "model-free %v: %d cycles, %.1f s\nrenewal-reward %v: %d cycles, %.1f s\nimportance sampling %v: %d cycles (%d in the search), %d runs, %.1f s\n",
		c.ModelFree.Interval, c.ModelFreeCount, c.ModelFreeSeconds, c.Plain.Interval, c.Plain.Cycles, c.PlainSeconds,
		c.IS.Interval, c.IS.Cycles, c.IS.SearchCycles, c.IS.Runs, c.ISSeconds)
	if c.IS.Tilt != nil {
		fmt.Fprintf(w, "tilted sizes %v for %.1f%% of flows; flows above the p%g under IS: %.1f%%\n",
			c.IS.Tilt.Size, 100*(1-c.IS.Tilt.Defensive), 100*c.P, 100*c.IS.TailShare)
	}
	fmt.Fprintf(w, "reduction against model-free: %.1f%%, against renewal-reward: %.1f%%\n",
		100*c.Reduction(), 100*(1-float64(c.IS.Cycles)/float64(c.Plain.Cycles)))
}

// ComparisonFigure draws Fig. 14a: the cycles each method needed for the
// same relative margin and the estimates with their intervals.
func ComparisonFigure(c *cceval.TailComparison) (*plot.Figure, error) {
	if c == nil || c.Plain == nil || c.IS == nil {
		return nil, fmt.Errorf("ccstudy: ComparisonFigure: incomplete comparison")
	}
	return plot.TailComparison(c.P, c.Metric, []plot.TailMethod{
		{Label: "model-free", Mean: c.ModelFree.Interval.Mean, Half: c.ModelFree.Interval.Half, Cycles: c.ModelFreeCount},
		{Label: "renewal-reward", Mean: c.Plain.Interval.Mean, Half: c.Plain.Interval.Half, Cycles: c.Plain.Cycles},
		{Label: "importance sampling", Mean: c.IS.Interval.Mean, Half: c.IS.Interval.Half, Cycles: c.IS.Cycles, SearchCycles: c.IS.SearchCycles},
	})
}

// ReportDurations writes a duration study's points (cceval.DurationStudy).
func ReportDurations(w io.Writer, pts []cceval.DurationPoint, metric string) {
	for _, p := range pts {
		fmt.Fprintf(w, "%5d flows per trial (%7.3f ms): %s %v, stable flows only %.4g, RTC %d; flows warm-up %.1f%%, stable %.1f%%, cool-down %.1f%%\n",
			p.Flows, p.DurationNs/1e6, metric, p.Result.Interval, p.StableMean, p.Result.Trials, 100*p.WarmUp, 100*p.Stable, 100*p.CoolDown)
	}
}

// DurationFigure draws Fig. 13 from a duration study of metric.
func DurationFigure(pts []cceval.DurationPoint, metric string) (*plot.Figure, error) {
	dp := make([]plot.DurationPoint, len(pts))
	for i, p := range pts {
		dp[i] = plot.DurationPoint{Flows: p.Flows, Mean: p.Result.Interval.Mean, Half: p.Result.Interval.Half, StableMean: p.StableMean,
			WarmUp: p.WarmUp, Stable: p.Stable, CoolDown: p.CoolDown, Trials: trialsRun(p.Result), TotalFlows: p.TotalFlows}
	}
	return plot.Durations(dp, metric)
}
