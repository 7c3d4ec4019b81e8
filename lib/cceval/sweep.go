package cceval

import (
	"context"
	"fmt"
	"math"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
)

// EstimateSweep is Estimate with the trials run as sweep tasks through an
// experiment executor (a local pool or Slurm job arrays): trial i is the
// task of spec with seed cfg.Seed+i on the named estimator, whose record
// frame lands under dir like any sweep result. Trials go out in waves: the
// exploratory stage first, then as many trials as the latest forecast
// (Eq. 3) asks for, 10% more, until every target converges or MaxTrials
// is reached. Finished trials are never rerun, so an interrupted
// estimation resumes, and the result is Estimate's: convergence is judged
// on the prefix of trials in seed order (trials of a wave beyond that
// point are left unused). cfg.Workers is ignored; exec sets the
// parallelism. p (which may be nil) reports each wave.
func EstimateSweep(ctx context.Context, spec scenario.Spec, name, options string, bins metrics.Bins, pcts []float64,
	cfg Config, exec experiment.Executor, dir string, p progress.Reporter) (*Result, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	task := func(i int) experiment.Task {
		s := spec
		s.Seed = cfg.Seed + uint64(i)
		return experiment.Task{Spec: s, Estimator: name, Options: options}
	}
	// read summarizes trial i from its record frame.
	read := func(_ context.Context, seed uint64) (Metrics, error) {
		path, err := task(int(seed - cfg.Seed)).ResultPath(dir)
		if err != nil {
			return nil, err
		}
		recs, _, err := frame.ReadRecords(path)
		if err != nil {
			return nil, err
		}
		return RecordMetrics(recs, bins, pcts)
	}
	want := cfg.Exploratory
	for {
		tasks := make([]experiment.Task, want)
		for i := range tasks {
			tasks[i] = task(i)
		}
		if _, err := experiment.Sweep(ctx, dir, tasks, exec, p); err != nil {
			return nil, fmt.Errorf("cceval: trials: %w", err)
		}
		c := cfg
		c.MaxTrials, c.Workers, c.Exploratory = want, 1, min(cfg.Exploratory, want)
		res, err := Estimate(ctx, read, c)
		if err != nil {
			return nil, err
		}
		if res.Converged() || want == cfg.MaxTrials {
			return res, nil
		}
		next := want + 1
		for _, m := range res.Metrics {
			xs := make([]float64, len(res.Trials))
			for i, t := range res.Trials {
				xs[i] = t[m.Name]
			}
			if f, err := Forecast(xs, cfg.Level, cfg.Margin); err == nil {
				next = max(next, int(math.Ceil(1.1*float64(f))))
			}
		}
		want = min(next, cfg.MaxTrials)
	}
}
