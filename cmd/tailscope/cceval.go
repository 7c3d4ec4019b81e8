package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/tailscope/tailscope/lib/cceval"
	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

func init() {
	register("cceval", "confidence intervals over trials (estimate), model-based tail quantiles (tail), trial-length analysis (durations)", runCCEval)
}

var ccevalKinds = map[string]func(args []string) error{
	"estimate": ccevalEstimate, "tail": ccevalTail, "durations": ccevalDurations,
}

func runCCEval(args []string) error {
	if len(args) == 0 || ccevalKinds[args[0]] == nil {
		return errors.New(`usage: tailscope cceval <estimate|tail|durations> [flags] ("tailscope cceval tail -h" for flags)`)
	}
	return ccevalKinds[args[0]](args[1:])
}

// ccevalFlags are the flags every cceval command shares.
type ccevalFlags struct {
	spec, sizes, out *string
	flows            *int
	load             *float64
	level, margin    *float64
	workers          *int
	seed             *uint64
}

func newCCEvalFlags(fs *flag.FlagSet, margin float64) ccevalFlags {
	return ccevalFlags{
		spec:    fs.String("spec", "dumbbell", `"dumbbell" (the cceval-dumbbell preset: 10x10 DCTCP dumbbell, Poisson arrivals) or `+specUsage),
		sizes:   fs.String("sizes", "", "override the size distribution (e.g. websearch)"),
		flows:   intFlag(fs, "flows", 0, 0, math.MaxInt, "override the flows per trial (0: the spec's)"),
		load:    floatFlag(fs, "load", 0, span{lo: 0, hi: 1, loOpen: true, hiOpen: true, zeroDefault: true}, "override the max load (dumbbell default 0.3)"),
		out:     fs.String("out", "out/cceval", "directory for frames and figures"),
		level:   floatFlag(fs, "level", 0.95, unitOpen, "confidence level"),
		margin:  floatFlag(fs, "margin", margin, unitOpen, "relative margin of error"),
		workers: intFlag(fs, "workers", 0, 0, math.MaxInt, "trials run at once (0: all cores)"),
		seed:    fs.Uint64("seed", 1, "seed of the first trial"),
	}
}

// scenario builds the spec the flags name.
func (f ccevalFlags) scenario() (scenario.Spec, error) {
	var s scenario.Spec
	if *f.spec == "dumbbell" {
		s = scenario.CCEvalDumbbell(400, 0.3, "webserver")
	} else {
		var err error
		if s, err = loadSpec(*f.spec); err != nil {
			return s, err
		}
	}
	for i := range s.Workload.Components {
		if *f.sizes != "" {
			s.Workload.Components[i].Sizes = workload.SizeSpec{Dist: *f.sizes}
		}
		if *f.load > 0 {
			s.Workload.Components[i].MaxLoad = *f.load
		}
	}
	if *f.flows > 0 {
		s.Workload.Flows, s.Workload.DurationNs = *f.flows, 0
	}
	return s, nil
}

// write stores a frame and a figure under the output directory, which it
// makes if need be (commands make it only once they have output, so that a
// failed run leaves no empty directory).
func (f ccevalFlags) write(name string, t *frame.Table, fig *plot.Figure) error {
	if err := mkdirOut(*f.out); err != nil {
		return err
	}
	if t != nil {
		p := filepath.Join(*f.out, name+".parquet")
		if err := frame.WriteTable(p, t); err != nil {
			return err
		}
		fmt.Println("wrote", p)
	}
	if fig != nil {
		return save(fig, filepath.Join(*f.out, name+".png"))
	}
	return nil
}

func ccevalEstimate(args []string) error {
	fs := flag.NewFlagSet("cceval estimate", flag.ContinueOnError)
	cf := newCCEvalFlags(fs, 0.01)
	names := fs.String("estimators", "packetsim", "comma-separated estimators: "+strings.Join(estimator.Names(), ", "))
	options := fs.String("options", "", "estimator options as a JSON object (applied to every estimator named)")
	mets := fs.String("metrics", "fct_p50,fct_p99", "target metrics (MetricName: fct_p99, slowdown_p99.9[<=1KB], fct_mean, ...)")
	bins := fs.String("bins", "all", "size bins of per-bin metrics: parsimon, ns3, m3, m3out, all")
	expl := intFlag(fs, "exploratory", 20, 2, math.MaxInt, "trials of the exploratory stage")
	maxTrials := intFlag(fs, "max-trials", 10000, 1, math.MaxInt, "stop here even if not converged")
	executor := executorFlags(fs, `run trials as sweep tasks ("local" or "slurm"; frames under <out>/<estimator>/), in waves the forecast sizes; default: in this process, journalled`, "", "local", "slurm")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := estimator.Check(split(*names)...); err != nil {
		return err
	}
	spec, err := cf.scenario()
	if err != nil {
		return err
	}
	b, err := metrics.BinsByName(*bins)
	if err != nil {
		return err
	}
	targets := split(*mets)
	pcts := map[float64]bool{}
	for _, m := range targets {
		if i := strings.Index(m, "_p"); i >= 0 {
			end := strings.IndexByte(m, '[')
			if end < 0 {
				end = len(m)
			}
			if p, err := strconv.ParseFloat(m[i+2:end], 64); err == nil {
				pcts[p] = true
			}
		}
	}
	var pl []float64
	for p := range pcts {
		if pct := (span{lo: 0, hi: 100, loOpen: true}); !pct.contains(p) {
			return fmt.Errorf("--metrics: percentile %g: want %s", p, pct)
		}
		pl = append(pl, p)
	}
	sort.Float64s(pl)
	if err := cceval.CheckTargets(targets, b, pl); err != nil {
		return err
	}
	exec, err := executor.build(*cf.workers)
	if err != nil {
		return fmt.Errorf("cceval estimate: %w", err)
	}
	var labels []string
	var results []*cceval.Result
	cfg := cceval.Config{Level: *cf.level, Margin: *cf.margin, Exploratory: *expl, MaxTrials: *maxTrials,
		Workers: *cf.workers, Seed: *cf.seed, Targets: targets, Progress: progress.NewLine(os.Stderr, "cceval")}
	for _, name := range split(*names) {
		var res *cceval.Result
		if exec == nil {
			if err := mkdirOut(*cf.out); err != nil {
				return err
			}
			journal := filepath.Join(*cf.out, name+".trials.jsonl")
			trial, err := cceval.JournalTrial(cceval.ScenarioTrial(spec, name, *options, b, pl), journal)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "%s: trials journalled in %s (a rerun resumes)\n", name, journal)
			if res, err = cceval.Estimate(context.Background(), trial, cfg); err != nil {
				return err
			}
		} else {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			res, err = cceval.EstimateSweep(ctx, spec, name, *options, b, pl, cfg, exec, filepath.Join(*cf.out, name), progress.NewLine(os.Stderr, name))
			stop()
			if err != nil {
				return err
			}
		}
		for _, m := range res.Metrics {
			fmt.Printf("%s %s: %v, real trials %d, forecast %d\n", name, m.Name, m.Interval, m.Trials, m.Forecast)
		}
		fig, err := plot.CITrace(res, nil)
		if err != nil {
			return err
		}
		if err := cf.write(name+".trials", res.TrialsTable(), nil); err != nil {
			return err
		}
		if err := cf.write(name+".trace", res.TraceTable(), fig); err != nil {
			return err
		}
		labels, results = append(labels, name), append(results, res)
	}
	if err := cf.write("results", cceval.ResultsTable(labels, results), nil); err != nil {
		return err
	}
	for _, m := range targets {
		fig, err := plot.CIByLabel(labels, results, m)
		if err != nil {
			return err
		}
		if err := cf.write("by_estimator_"+strings.NewReplacer("[", "_", "]", "", "<", "le", ">", "gt", "=", "").Replace(m), nil, fig); err != nil {
			return err
		}
	}
	return nil
}

func ccevalTail(args []string) error {
	fs := flag.NewFlagSet("cceval tail", flag.ContinueOnError)
	cf := newCCEvalFlags(fs, 0.05)
	name := fs.String("estimator", "packetsim", "estimator running the cycles (must be causal: packetsim, flowsim)")
	options := fs.String("options", "", "estimator options as a JSON object")
	dur := int64Flag(fs, "duration-ns", 250_000, 1, math.MaxInt64, "a cycle's (trial's) arrival span in ns")
	p := floatFlag(fs, "p", 0.99, unitOpen, "quantile")
	metric := fs.String("metric", cceval.MetricFCT, "response: fct or slowdown")
	method := fs.String("method", "compare", "compare (model-free, renewal-reward and importance sampling: Fig. 14), is, or plain")
	tiltArr := fs.Bool("tilt-arrivals", false, "let the cross-entropy search tilt Poisson arrivals too")
	epochs := intFlag(fs, "epochs", 10, 1, math.MaxInt, "cross-entropy epochs (Alg. 1's E)")
	ceCycles := intFlag(fs, "ce-cycles", 0, 0, math.MaxInt, "cycles per epoch (m_ce; 0: 10 or enough for 5 expected tail flows)")
	batch := intFlag(fs, "batch-cycles", 0, 0, math.MaxInt, "cycles per batch (K; 0: 40 or enough for 20 expected tail flows)")
	maxBatches := intFlag(fs, "max-batches", 1000, 1, math.MaxInt, "batches at most")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := estimator.Check(*name); err != nil {
		return err
	}
	if err := cceval.CheckMetric(*metric); err != nil {
		return err
	}
	if !slices.Contains([]string{"compare", "is", "plain"}, *method) {
		return fmt.Errorf("cceval tail: unknown method %q (compare, is or plain)", *method)
	}
	spec, err := cf.scenario()
	if err != nil {
		return err
	}
	m, err := cceval.NewModel(spec, *dur)
	if err != nil {
		return err
	}
	run, err := cceval.EstimatorRunner(spec, *name, *options)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "model: arrivals %v, sizes %v (least-squares fit to %s, CDF rmse %.3f), %.1f flows per cycle\n",
		m.Arrival, m.Size, m.SizeFit.Of, m.SizeFit.RMSE, m.MeanFlows())
	cfg := cceval.TailConfig{P: *p, Metric: *metric, Level: *cf.level, Margin: *cf.margin, TiltArrivals: *tiltArr,
		Epochs: *epochs, CECycles: *ceCycles, BatchCycles: *batch, MaxBatches: *maxBatches,
		Workers: *cf.workers, Seed: *cf.seed, Progress: progress.NewLine(os.Stderr, "cceval")}
	if err := ccevalSizeFits(cf, spec); err != nil {
		return err
	}
	switch *method {
	case "compare":
		c, err := cceval.CompareTail(context.Background(), m, run, cfg)
		if err != nil {
			return err
		}
		fmt.Printf("model-free %v: %d cycles, %.1f s\nrenewal-reward %v: %d cycles, %.1f s\nimportance sampling %v: %d cycles (%d in the search), %d runs, %.1f s\nreduction against model-free: %.1f%%, against renewal-reward: %.1f%%\n",
			c.ModelFree.Interval, c.ModelFreeCount, c.ModelFreeSeconds, c.Plain.Interval, c.Plain.Cycles, c.PlainSeconds,
			c.IS.Interval, c.IS.Cycles, c.IS.SearchCycles, c.IS.Runs, c.ISSeconds, 100*c.Reduction(), 100*(1-float64(c.IS.Cycles)/float64(c.Plain.Cycles)))
		fig, err := plot.TailComparison(c)
		if err != nil {
			return err
		}
		return cf.write("tail", c.Table(), fig)
	case "is", "plain":
		cfg.Plain = *method == "plain"
		res, err := cceval.TailQuantile(context.Background(), m, run, cfg)
		if err != nil {
			return err
		}
		fmt.Printf("p%g %s: %v in %d cycles (%d in the search), %d runs, tilt %v\n", 100*res.P, res.Metric, res.Interval, res.Cycles, res.SearchCycles, res.Runs, res.Tilt)
	}
	return nil
}

// ccevalSizeFits draws Fig. 14b: the spec's size CDF with its
// least-squares fits.
func ccevalSizeFits(cf ccevalFlags, spec scenario.Spec) error {
	d, err := workload.NewSizeDist(spec.Workload.Components[0].Sizes)
	if err != nil {
		return err
	}
	dists := []workload.SizeDist{d}
	for _, fam := range []string{cceval.LogNormal, cceval.Normal, cceval.Exponential} {
		f, err := cceval.FitSizes(d, fam)
		if err != nil {
			return err
		}
		dists = append(dists, f)
	}
	fig, err := plot.SizeCDFs(dists)
	if err != nil {
		return err
	}
	return cf.write("size_fits", nil, fig)
}

func ccevalDurations(args []string) error {
	fs := flag.NewFlagSet("cceval durations", flag.ContinueOnError)
	cf := newCCEvalFlags(fs, 0.05)
	name := fs.String("estimator", "packetsim", "estimator")
	options := fs.String("options", "", "estimator options as a JSON object")
	counts := fs.String("counts", "10,30,100,300,1000", "flows per trial to study")
	metric := fs.String("metric", "fct_p99", "metric (an overall percentile)")
	maxTrials := intFlag(fs, "max-trials", 2000, 1, math.MaxInt, "trials per length at most")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := estimator.Check(*name); err != nil {
		return err
	}
	spec, err := cf.scenario()
	if err != nil {
		return err
	}
	var ns []int
	for _, s := range split(*counts) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return fmt.Errorf("cceval durations: --counts: %q: want an integer >= 1", s)
		}
		ns = append(ns, n)
	}
	pts, err := cceval.DurationStudy(context.Background(), spec, *name, *options, ns, *metric, cceval.Config{Level: *cf.level, Margin: *cf.margin,
		MaxTrials: *maxTrials, Workers: *cf.workers, Seed: *cf.seed, Progress: progress.NewLine(os.Stderr, "cceval")})
	if err != nil {
		return err
	}
	for _, p := range pts {
		fmt.Printf("%d flows per trial (%.3g ms): %v, stable flows only %.4g, RTC %d; flows warm-up %.1f%% stable %.1f%% cool-down %.1f%%\n",
			p.Flows, p.DurationNs/1e6, p.Result.Interval, p.StableMean, p.Result.Trials, 100*p.WarmUp, 100*p.Stable, 100*p.CoolDown)
	}
	fig, err := plot.Durations(pts, *metric)
	if err != nil {
		return err
	}
	return cf.write("durations", cceval.DurationTable(pts), fig)
}
