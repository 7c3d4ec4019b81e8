package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/whatif"
)

func init() {
	register("whatif", "sweep one network parameter over values on one scenario and ask every estimator (m3 §5.4)", runWhatIf)
}

func runWhatIf(args []string) error {
	fs := flag.NewFlagSet("whatif", flag.ContinueOnError)
	spec := fs.String("spec", "whatif-hpcc", specUsage)
	network := fs.String("network", "", "replace the spec's network block with a preset: "+strings.Join(netcfg.Presets(), ", "))
	param := fs.String("param", "hpcc.eta", "the swept field's JSON path in the network block (hpcc.eta, hpcc.window_bytes, dctcp.g, buffer_bytes, cc, ...)")
	values := fs.String("values", "0.7,0.8,0.9,0.95", `comma-separated values (JSON; a bare word is a string: cc values dctcp,hpcc)`)
	names := fs.String("estimators", strings.Join(whatif.DefaultEstimators, ","), "comma-separated estimators: "+strings.Join(estimator.Names(), ", "))
	options := fs.String("options", "", optionsUsage)
	baseline := fs.String("baseline", "packetsim", "the estimator the others are compared with")
	bins := fs.String("bins", "parsimon", metrics.BinsUsage)
	seeds := intFlag(fs, "seeds", 1, 1, math.MaxInt, "seeds per value (the spec's and the next); 2 or more give the table confidence intervals, 5 or more the figure")
	maxSeeds := intFlag(fs, "max-seeds", 0, 0, math.MaxInt, "let whatif choose the seeds: while no change of the baseline is larger than its interval, run the seeds the clearest change would need, up to this many (0: off)")
	flows := intFlag(fs, "flows", 0, 0, math.MaxInt, "override the spec's flow count (0: keep it)")
	out := fs.String("out", "out/whatif", "directory: runs (resumed when run again), whatif.parquet, whatif.png and whatif.svg")
	executor := executorFlags(fs, "local or slurm", "local", "slurm")
	workers := intFlag(fs, "workers", 1, 1, math.MaxInt, "local: runs at once (1 keeps each run's CPU time its own)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	s, err := loadSpec(*spec)
	if err != nil {
		return err
	}
	if *network != "" {
		if s.Network, err = netcfg.Preset(*network); err != nil {
			return err
		}
	}
	if *flows > 0 {
		s.Workload.Flows, s.Workload.DurationNs = *flows, 0
	}
	b, err := metrics.ParseBins(*bins)
	if err != nil {
		return err
	}
	if b.Len() < 2 {
		return fmt.Errorf("--bins %s: a what-if reports each bin and all flows; give two or more bins", *bins)
	}
	var vals []string
	for _, v := range split(*values) {
		if !json.Valid([]byte(v)) {
			b, _ := json.Marshal(v) // a bare word: a JSON string
			v = string(b)
		}
		vals = append(vals, v)
	}
	optStrings, err := estimator.ParseOptions(*options, split(*names))
	if err != nil {
		return suggestOptions("whatif", args, nil, err)
	}
	// The scenario's network and workload are checked before any run.
	sc, err := scenario.BuildNet(s)
	if err != nil {
		return err
	}
	if err := checkWorkload(sc); err != nil {
		return err
	}
	exec, ctx, stop, err := executor.prepare(*workers, *out)
	if err != nil {
		return err
	}
	defer stop()
	t0 := time.Now()
	res, err := whatif.Run(ctx, whatif.Options{Spec: s, Param: *param, Values: vals, Estimators: split(*names),
		EstimatorOptions: optStrings, Baseline: *baseline, Seeds: *seeds, MaxSeeds: *maxSeeds, Bins: b, Dir: *out, Executor: exec,
		Progress: progress.NewLine(os.Stderr, "whatif")})
	if err != nil {
		return err
	}
	fmt.Print(res)
	if err := frame.WriteTable(filepath.Join(*out, "whatif.parquet"), res.Table()); err != nil {
		return err
	}
	fig, err := res.Figure()
	if err != nil {
		return err
	}
	for _, ext := range []string{".png", ".svg"} {
		if err := plot.Save(fig, filepath.Join(*out, "whatif"+ext)); err != nil {
			return err
		}
	}
	fmt.Printf("\nwhatif: %s in %s; frame %s, figure %s\n", *param, time.Since(t0).Round(time.Millisecond),
		filepath.Join(*out, "whatif.parquet"), filepath.Join(*out, "whatif.png"))
	return nil
}
