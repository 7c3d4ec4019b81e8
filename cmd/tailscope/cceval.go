package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/cceval"
	"github.com/tailscope/tailscope/lib/ccstudy"
	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
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

// scenario builds the spec the flags name and checks it.
func (f ccevalFlags) scenario() (scenario.Spec, error) {
	s := ccstudy.Dumbbell()
	if *f.spec != "dumbbell" {
		var err error
		if s, err = loadSpec(*f.spec); err != nil {
			return s, err
		}
	}
	s = ccstudy.Override(s, *f.sizes, *f.load, *f.flows)
	// Checked before the first trial: a bad network or workload is
	// refused before any work.
	sc, err := scenario.BuildNet(s)
	if err != nil {
		return s, err
	}
	return s, checkWorkload(sc)
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
	options := fs.String("options", "", optionsUsage)
	mets := fs.String("metrics", "fct_p50,fct_p99", "target metrics (MetricName: fct_p99, slowdown_p99.9[<=1KB], fct_mean, ...)")
	bins := fs.String("bins", "all", metrics.BinsUsage)
	expl := intFlag(fs, "exploratory", 20, 2, math.MaxInt, "trials of the exploratory stage")
	maxTrials := intFlag(fs, "max-trials", 10000, 1, math.MaxInt, "stop here even if not converged")
	executor := executorFlags(fs, `run trials as sweep tasks, "local" or "slurm" (record frames under <out>/<estimator>/: a rerun resumes), in waves the forecast sizes`, "local", "slurm")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := estimator.Check(split(*names)...); err != nil {
		return err
	}
	opts, err := estimator.ParseOptions(*options, split(*names))
	if err != nil {
		return suggestOptions("cceval estimate", args, nil, err)
	}
	spec, err := cf.scenario()
	if err != nil {
		return err
	}
	b, err := metrics.ParseBins(*bins)
	if err != nil {
		return err
	}
	workers := *cf.workers
	if workers == 0 {
		workers = runtime.NumCPU()
	}
	exec, ctx, stop, err := executor.prepare(workers, *cf.out)
	if err != nil {
		return fmt.Errorf("cceval estimate: %w", err)
	}
	defer stop()
	var cases []ccstudy.Case
	for _, name := range split(*names) {
		cases = append(cases, ccstudy.Case{Label: name, Spec: spec, Estimator: name, Options: opts[name]})
	}
	cfg := cceval.Config{Level: *cf.level, Margin: *cf.margin, Exploratory: *expl, MaxTrials: *maxTrials,
		Workers: *cf.workers, Seed: *cf.seed, Targets: split(*mets), Progress: progress.NewLine(os.Stderr, "cceval")}
	e, err := ccstudy.Estimate(ctx, cases, b, cfg, exec, *cf.out)
	if err != nil {
		return err
	}
	e.Report(os.Stdout)
	return e.Write(*cf.out)
}

func ccevalTail(args []string) error {
	fs := flag.NewFlagSet("cceval tail", flag.ContinueOnError)
	cf := newCCEvalFlags(fs, 0.05)
	name := fs.String("estimator", "packetsim", "estimator running the cycles (must be causal: packetsim, flowsim)")
	options := fs.String("options", "", optionsUsage)
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
	opts, err := estimator.ParseOptions(*options, []string{*name})
	if err != nil {
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
	tail, err := ccstudy.NewTail(spec, *name, opts[*name], *dur)
	if err != nil {
		return err
	}
	tail.Describe(os.Stderr)
	cfg := cceval.TailConfig{P: *p, Metric: *metric, Level: *cf.level, Margin: *cf.margin, TiltArrivals: *tiltArr,
		Epochs: *epochs, CECycles: *ceCycles, BatchCycles: *batch, MaxBatches: *maxBatches,
		Workers: *cf.workers, Seed: *cf.seed, Progress: progress.NewLine(os.Stderr, "cceval")}
	fits, err := tail.SizeFitFigure()
	if err != nil {
		return err
	}
	if err := cf.write("size_fits", nil, fits); err != nil {
		return err
	}
	switch *method {
	case "compare":
		c, err := tail.Compare(context.Background(), cfg)
		if err != nil {
			return err
		}
		ccstudy.ReportComparison(os.Stdout, c)
		fig, err := ccstudy.ComparisonFigure(c)
		if err != nil {
			return err
		}
		return cf.write("tail", c.Table(), fig)
	case "is", "plain":
		cfg.Plain = *method == "plain"
		res, err := tail.Quantile(context.Background(), cfg)
		if err != nil {
			return err
		}
		fmt.Printf("p%g %s: %v in %d cycles (%d in the search), %d runs, tilt %v\n", 100*res.P, res.Metric, res.Interval, res.Cycles, res.SearchCycles, res.Runs, res.Tilt)
	}
	return nil
}

func ccevalDurations(args []string) error {
	fs := flag.NewFlagSet("cceval durations", flag.ContinueOnError)
	cf := newCCEvalFlags(fs, 0.05)
	name := fs.String("estimator", "packetsim", "estimator")
	options := fs.String("options", "", "estimator options as a JSON object")
	countList := fs.String("counts", "10,30,100,300,1000", "flows per trial to study")
	metric := fs.String("metric", "fct_p99", "metric (an overall percentile)")
	maxTrials := intFlag(fs, "max-trials", 2000, 1, math.MaxInt, "trials per length at most")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := estimator.Check(*name); err != nil {
		return err
	}
	opts, err := estimator.ParseOptions(*options, []string{*name})
	if err != nil {
		return err
	}
	spec, err := cf.scenario()
	if err != nil {
		return err
	}
	ns, err := counts(*countList)
	if err != nil {
		return fmt.Errorf("cceval durations: --counts: %w", err)
	}
	pts, err := cceval.DurationStudy(context.Background(), spec, *name, opts[*name], ns, *metric, cceval.Config{Level: *cf.level, Margin: *cf.margin,
		MaxTrials: *maxTrials, Workers: *cf.workers, Seed: *cf.seed, Progress: progress.NewLine(os.Stderr, "cceval")})
	if err != nil {
		return err
	}
	ccstudy.ReportDurations(os.Stdout, pts, *metric)
	fig, err := ccstudy.DurationFigure(pts, *metric)
	if err != nil {
		return err
	}
	return cf.write("durations", cceval.DurationTable(pts), fig)
}
