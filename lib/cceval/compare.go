package cceval

import (
	"context"
	"errors"
	"time"

	"github.com/tailscope/tailscope/lib/metrics"
)

// TailComparison is the experiment of Fig. 14: one quantile of the
// response times of one model estimated three ways to the same relative
// margin and confidence level. Model-free estimation (Eq. 1-3) averages
// each cycle's own quantile; the renewal-reward estimator (Plain) and
// importance sampling (IS) take the quantile of the flows pooled over
// cycles. The two quantities differ for short cycles (a cycle's own p99
// of a few flows sits below the pooled p99), so the comparison is, as in
// the paper, of the cycles each needs for an interval of the same
// relative width.
type TailComparison struct {
	P      float64
	Metric string
	// ModelFree is the model-free result of the metric MetricName(Metric,
	// 100·P, ""); its Trials (or, unconverged, the trials run) are cycles.
	ModelFree      MetricResult
	ModelFreeCount int // cycles run
	ModelFreeFlows int // flows simulated in them
	Plain, IS      *TailResult
	// Wall-clock seconds of each estimation: cycles differ in cost (a
	// tilted cycle carries larger flows, a switched one runs twice).
	ModelFreeSeconds, PlainSeconds, ISSeconds float64
}

// CompareTail runs the three estimators of Fig. 14 on m through run with
// cfg (Metric must be MetricFCT or MetricSlowdown, which RecordMetrics
// summarizes). Model-free estimation stops at MaxBatches·BatchCycles
// trials.
func CompareTail(ctx context.Context, m *Model, run Runner, cfg TailConfig) (*TailComparison, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if cfg.Metric != MetricFCT && cfg.Metric != MetricSlowdown {
		return nil, errors.New("cceval: CompareTail needs the fct or slowdown metric")
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	cfg.sizeFor(m.MeanFlows())
	c := &TailComparison{P: cfg.P, Metric: cfg.Metric}
	name := MetricName(cfg.Metric, 100*cfg.P, "")
	t0 := time.Now()
	mf, err := Estimate(ctx, ModelTrial(m, run, metrics.AllSizes(), []float64{100 * cfg.P}), Config{Level: cfg.Level, Margin: cfg.Margin,
		Exploratory: cfg.Exploratory, MaxTrials: cfg.MaxBatches * cfg.BatchCycles, Workers: cfg.Workers, Seed: cfg.Seed, Targets: []string{name}})
	if err != nil {
		return nil, err
	}
	c.ModelFreeSeconds = time.Since(t0).Seconds()
	c.ModelFree, c.ModelFreeCount = mf.Metrics[0], len(mf.Trials)
	for _, t := range mf.Trials {
		c.ModelFreeFlows += int(t[ColFlows])
	}
	plain := cfg
	plain.Plain, plain.IS = true, nil
	t0 = time.Now()
	if c.Plain, err = TailQuantile(ctx, m, run, plain); err != nil {
		return nil, err
	}
	c.PlainSeconds = time.Since(t0).Seconds()
	is := cfg
	is.Plain = false
	t0 = time.Now()
	if c.IS, err = TailQuantile(ctx, m, run, is); err != nil {
		return nil, err
	}
	c.ISSeconds = time.Since(t0).Seconds()
	return c, nil
}

// Reduction is the share of model-free cycles importance sampling saved
// (the paper reports 75-80%): 1 - IS cycles / model-free cycles, search
// included, each counted at convergence.
func (c *TailComparison) Reduction() float64 {
	return 1 - float64(c.IS.Cycles)/float64(c.ModelFreeCount)
}
