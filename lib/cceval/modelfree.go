package cceval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"

	"github.com/tailscope/tailscope/lib/internal/pool"
	"github.com/tailscope/tailscope/lib/progress"
)

// Metrics are the named values one trial produced, such as "fct_p99".
type Metrics map[string]float64

// Trial runs one trial: a workload drawn with seed through an estimator,
// stopping with ctx's error once ctx is cancelled. It must be safe to call
// from several goroutines at once.
type Trial func(ctx context.Context, seed uint64) (Metrics, error)

// Config sets up model-free estimation. Zero fields take the paper's
// defaults (§6.1).
type Config struct {
	Level       float64  // confidence level 1-rho; default 0.95
	Margin      float64  // relative margin of error epsilon; default 0.01
	Exploratory int      // trials of the exploratory stage; default 20
	MaxTrials   int      // stop here even if not converged; default 10000
	Workers     int      // trials run at once; default GOMAXPROCS
	Targets     []string // metrics that must converge; default every metric of the first trial
	Seed        uint64   // trial i (from 0) runs with seed Seed+i
	// Progress, when set, gets every trial counted toward the result, with
	// the widest target's relative half-width.
	Progress progress.Reporter
}

func (c Config) withDefaults() (Config, error) {
	if c.Level == 0 {
		c.Level = 0.95
	}
	if c.Margin == 0 {
		c.Margin = 0.01
	}
	if c.Exploratory == 0 {
		c.Exploratory = 20
	}
	if c.MaxTrials == 0 {
		c.MaxTrials = 10000
	}
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if err := checkLevel(c.Level); err != nil {
		return c, err
	}
	switch {
	case !(c.Margin > 0):
		return c, fmt.Errorf("cceval: relative margin %v must be positive, e.g. 0.01", c.Margin)
	case c.Exploratory < 2:
		return c, fmt.Errorf("cceval: the exploratory stage needs at least 2 trials, got %d", c.Exploratory)
	case c.MaxTrials < c.Exploratory:
		return c, fmt.Errorf("cceval: max trials %d is below the exploratory stage's %d", c.MaxTrials, c.Exploratory)
	case c.Workers < 1:
		return c, fmt.Errorf("cceval: workers %d must be positive", c.Workers)
	}
	return c, nil
}

// MetricResult is the outcome for one metric.
type MetricResult struct {
	Name string
	// Forecast is Eq. 3's trial count from the exploratory stage (never
	// below the stage itself, since that many trials run anyway).
	Forecast int
	// Trials is the real trial count: the first N at which Eq. 2 held, or
	// 0 if it never did.
	Trials int
	// Interval is the interval at Trials, or after the last trial if the
	// metric did not converge.
	Interval Interval
	// Trace is the interval after each trial count N = 2, 3, ... up to the
	// last trial run (Fig. 7).
	Trace []Interval
}

// Converged reports whether the metric met the margin.
func (m MetricResult) Converged() bool { return m.Trials > 0 }

// Result is the outcome of Estimate.
type Result struct {
	Level, Margin float64
	Exploratory   int
	// Trials holds every trial's metrics in seed order: trial i ran with
	// seed Seed+i. Estimation stops at the first N at which every target
	// has converged; later trials that were already running are dropped.
	Trials  []Metrics
	Metrics []MetricResult // one per target, in Targets order
}

// Converged reports whether every target met the margin.
func (r *Result) Converged() bool {
	for _, m := range r.Metrics {
		if !m.Converged() {
			return false
		}
	}
	return true
}

// Metric returns the result of the named metric.
func (r *Result) Metric(name string) (MetricResult, bool) {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return MetricResult{}, false
}

// Estimate is the model-free algorithm (§4.2): it runs the exploratory
// stage, forecasts each target's trial count, then runs production trials
// until every target meets the convergence condition (Eq. 2) or MaxTrials
// is reached. Trials run on cfg.Workers goroutines, but the result depends
// only on cfg: convergence is checked on the prefix of trials in seed
// order, so the stopping point is the same for any worker count.
// Cancelling ctx stops the trials under way and returns ctx's error.
func Estimate(ctx context.Context, trial Trial, cfg Config) (*Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if trial == nil {
		return nil, errors.New("cceval: nil trial")
	}
	res := &Result{Level: cfg.Level, Margin: cfg.Margin, Exploratory: cfg.Exploratory}
	col := &collector{cfg: cfg, names: append([]string(nil), cfg.Targets...)}
	trials := make([]Metrics, cfg.MaxTrials)
	// The pool hands finished trials to inOrder in seed order; it stops
	// the run at the first prefix that converged.
	inOrder := func(i int) (bool, error) {
		m := trials[i]
		trials[i] = nil
		res.Trials = append(res.Trials, m)
		if err := col.add(m); err != nil {
			return false, fmt.Errorf("cceval: trial %d (seed %d): %w", i, cfg.Seed+uint64(i), err)
		}
		stop := col.allConverged() || len(res.Trials) == cfg.MaxTrials
		total := 0 // not known until the intervals converge
		if stop {
			total = len(res.Trials)
		}
		progress.Report(cfg.Progress, len(res.Trials), total, "cceval trials, "+col.widest())
		return stop, nil
	}
	err = pool.Run(ctx, cfg.MaxTrials, pool.Options{Workers: cfg.Workers, InOrder: inOrder}, func(ctx context.Context, i int) error {
		m, err := trial(ctx, cfg.Seed+uint64(i))
		if err != nil {
			return fmt.Errorf("cceval: trial %d (seed %d): %w", i, cfg.Seed+uint64(i), err)
		}
		trials[i] = m
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Metrics = col.out
	return res, nil
}

// collector keeps the running samples and intervals of every target.
type collector struct {
	cfg     Config
	names   []string
	samples [][]float64 // kept for the forecast at the end of the exploratory stage
	acc     []running
	out     []MetricResult
}

func (c *collector) add(m Metrics) error {
	if c.names == nil {
		for k := range m {
			c.names = append(c.names, k)
		}
		sort.Strings(c.names)
		if len(c.names) == 0 {
			return errors.New("the trial returned no metrics")
		}
	}
	if c.out == nil {
		c.samples = make([][]float64, len(c.names))
		c.acc = make([]running, len(c.names))
		c.out = make([]MetricResult, len(c.names))
		for i, n := range c.names {
			c.out[i].Name = n
		}
	}
	for i, name := range c.names {
		v, ok := m[name]
		if !ok {
			return fmt.Errorf("metric %q missing (the trial returned %d metrics)", name, len(m))
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("metric %q is %v", name, v)
		}
		if len(c.samples[i]) < c.cfg.Exploratory {
			c.samples[i] = append(c.samples[i], v)
		}
		c.acc[i].add(v)
	}
	n := c.acc[0].n
	if n < 2 {
		return nil
	}
	for i := range c.out {
		o := &c.out[i]
		iv := c.acc[i].interval(c.cfg.Level)
		o.Trace = append(o.Trace, iv)
		if n == c.cfg.Exploratory {
			f, err := Forecast(c.samples[i], c.cfg.Level, c.cfg.Margin)
			if err != nil {
				return fmt.Errorf("metric %q: %w", o.Name, err)
			}
			o.Forecast = max(f, c.cfg.Exploratory)
		}
		if o.Trials == 0 {
			o.Interval = iv
			if n >= c.cfg.Exploratory && iv.Converged(c.cfg.Margin) {
				o.Trials = n
			}
		}
	}
	return nil
}

// widest describes the unconverged target with the widest interval
// relative to its margin (or says all have converged).
func (c *collector) widest() string {
	w := -1
	for i, o := range c.out {
		if len(o.Trace) > 0 && o.Trials == 0 && (w < 0 || o.Interval.Relative() > c.out[w].Interval.Relative()) {
			w = i
		}
	}
	if w < 0 {
		return "every target converged"
	}
	o := c.out[w]
	s := fmt.Sprintf("widest %s at %.3g%% (margin %g%%)", o.Name, 100*o.Interval.Relative(), 100*c.cfg.Margin)
	if o.Forecast > 0 {
		s += fmt.Sprintf(", forecast %d trials", o.Forecast)
	}
	return s
}

func (c *collector) allConverged() bool {
	for _, o := range c.out {
		if o.Trials == 0 {
			return false
		}
	}
	return len(c.out) > 0
}
