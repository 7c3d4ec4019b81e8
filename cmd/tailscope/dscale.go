package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/tailscope/tailscope/lib/dscalestudy"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
)

func init() {
	register("dscale", "DSCALE downscaling: run a network and its DSCALEd/DSCALEs replicas, compare queues, FCTs and speed", runDSCALE)
}

func runDSCALE(args []string) error {
	fs := flag.NewFlagSet("dscale", flag.ContinueOnError)
	name := fs.String("scenario", "cenic", "cenic (DSCALE's CENIC-like backbone) or fabric (32-rack fabric with hot hosts)")
	specFile := fs.String("spec", "", "scenario spec file or preset instead of --scenario")
	flows := intFlag(fs, "flows", 20_000, 1, math.MaxInt, "cenic: flows")
	load := floatFlag(fs, "load", 0, span{lo: 0, hi: 1, loOpen: true, hiOpen: true, zeroDefault: true}, "cenic: load of the busiest channel (default 0.85); fabric: load of the hot hosts' downlinks (default 0.7)")
	durationMs := floatFlag(fs, "duration-ms", 40, positive, "fabric: arrival window in ms")
	seed := fs.Uint64("seed", 1, "scenario and sampling seed")
	alphas := fs.String("alphas", "0.5,0.2", "DSCALEs sampling factors (comma-separated; empty for none)")
	minQueue := floatFlag(fs, "min-queue-ns", 0, nonNegative, "queueing floor of the congested-link test (0: 100 us for cenic, 10 us for fabric, one packet for --spec)")
	out := fs.String("out", "out/dscale", "output directory")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	var spec scenario.Spec
	floor := 0.0
	var err error
	if *specFile != "" {
		spec, err = loadSpec(*specFile)
	} else {
		spec, floor, err = dscalestudy.Preset(*name, *flows, *load, int64(*durationMs*1e6), *seed)
	}
	if err != nil {
		return err
	}
	if *minQueue > 0 {
		floor = *minQueue
	}
	as, err := floats(*alphas, span{lo: 0, hi: 1, loOpen: true})
	if err != nil {
		return fmt.Errorf("--alphas: %w", err)
	}
	sc, err := scenario.Build(spec)
	if err != nil {
		return err
	}
	lines := progress.NewLine(os.Stderr, "dscale")
	lines.Interval = 0 // a line per simulation: there are few
	st, err := dscalestudy.Run(context.Background(), sc, dscalestudy.Options{Alphas: as, MinQueueNs: floor, Progress: lines})
	if err != nil {
		return err
	}
	if err := mkdirOut(*out); err != nil {
		return err
	}
	st.Report(os.Stdout)
	if err := st.Write(*out); err != nil {
		return err
	}
	qf, err := st.QueueFigure(4)
	if err != nil {
		return err
	}
	if err := plot.Save(qf, filepath.Join(*out, "queues.png")); err != nil {
		return err
	}
	ff, err := st.FCTFigure(metrics.AllSizes(), 0)
	if err != nil {
		return err
	}
	return plot.Save(ff, filepath.Join(*out, "fct.png"))
}
