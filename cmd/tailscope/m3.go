package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/m3study"
	"github.com/tailscope/tailscope/lib/progress"
)

func init() {
	register("m3", "m3 estimator: 'm3 gendata' simulates training parking lots, 'm3 train' fits the model, 'm3 testset' runs m3 §5.2's Table-4 test set", runM3)
}

func runM3(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: tailscope m3 gendata|train|testset [flags]")
	}
	switch args[0] {
	case "gendata":
		return runM3Gendata(args[1:])
	case "train":
		return runM3Train(args[1:])
	case "testset":
		return runM3TestSet(args[1:])
	}
	return fmt.Errorf("unknown m3 subcommand %q (known: gendata, train, testset)", args[0])
}

func runM3Gendata(args []string) error {
	fs := flag.NewFlagSet("m3 gendata", flag.ContinueOnError)
	out := fs.String("out", "out/m3data", "data directory: the manifest, and one task frame per task under <out>/"+m3.TaskKind+" (a rerun resumes)")
	tasks := intFlag(fs, "tasks", 1000, 1, math.MaxInt, "number of tasks in the data set")
	flows := intFlag(fs, "flows", 4000, 1, math.MaxInt, "flows per parking lot (foreground and background)")
	seed := fs.Uint64("seed", 1, "data-set seed; task i depends only on (seed, i)")
	space := fs.String("space", "dctcp", "configuration space: dctcp (the papers' DCTCP, infinite buffers), table4 (m3 Table 4's CCs, windows, per-port buffers, and stock ns-3's window DCTCP) table4-pfc (table4 with shared switch buffers and PFC on/off, as the papers' ns-3 fork) or table4-fork (table4-pfc with DCQCN, TIMELY and HPCC under the fork's rules, as the fork-* presets), presets (table4-pfc with parameter ranges that hold the dcqcn, hpcc and timely presets), presets-fork (presets under the fork's rules, as the fork-* presets); "+m3study.NetworkSpace+" ("+m3study.ForkNetworkSpace+", "+m3study.PresetsNetworkSpace+", "+m3study.PresetsForkNetworkSpace+"): whole 32-rack networks drawn as the Table-4 test set's (its -space table4-fork's, presets', presets-fork's) with this seed (not 1, the test set's), run by packetsim, whose paths training draws (-tasks scenarios of -flows flows); "+m3study.PresetsTlowNetworkSpace+" ("+m3study.PresetsForkTlowNetworkSpace+"): the windowless TIMELY networks of those draws, each run at TIMELY's Tlow of 20, 40 and 60 us (-tasks a multiple of 3)")
	minShare := floatFlag(fs, "min-share", 0, nonNegative, "when positive, foreground shares log-uniform from this (a fabric path's are 1e-4 or less) to -max-share instead of 20-50%")
	maxShare := floatFlag(fs, "max-share", 0.2, positive, "with -min-share: the largest foreground share")
	fgFlows := intFlag(fs, "fg-flows", 100, 1, math.MaxInt, "with -min-share: foreground flows a task aims at (its flows: this over its share, at least -flows, at most -max-flows)")
	maxFlows := intFlag(fs, "max-flows", 100000, 1, math.MaxInt, "with -min-share: most flows per task")
	inner := intFlag(fs, "inner-weight", 0, 0, math.MaxInt, "with -min-share: above 1, every other task weights the inner (fabric) segments 2..this times the others (m3.Task.InnerWeight)")
	workers := intFlag(fs, "workers", runtime.NumCPU(), 1, math.MaxInt, "local: tasks run in parallel")
	executor := executorFlags(fs, "local (goroutines) or slurm (job arrays)", "local", "slurm")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o := m3.GenOptions{Tasks: *tasks, Flows: *flows, Seed: *seed, Space: *space}
	if *minShare > 0 {
		o.LowShare = &m3.LowShare{MinShare: *minShare, MaxShare: *maxShare, FGFlows: *fgFlows, MaxFlows: *maxFlows, InnerWeight: *inner}
	}
	exec, ctx, stop, err := executor.prepare(*workers, *out)
	if err != nil {
		return err
	}
	defer stop()
	t0 := time.Now()
	rep, err := m3study.Gendata(ctx, *out, o, exec, progress.NewLine(os.Stderr, "m3 gendata"))
	fmt.Fprintf(os.Stderr, "m3 gendata: %d tasks simulated, %d already done, %d failed, %d running elsewhere in %.1f s into %s\n", rep.Ran, rep.Skipped, rep.Failed, rep.Elsewhere, time.Since(t0).Seconds(), *out)
	return err
}

func runM3Train(args []string) error {
	fs := flag.NewFlagSet("m3 train", flag.ContinueOnError)
	data := fs.String("data", "out/m3data", "data directory from 'm3 gendata', or several, comma-separated")
	out := fs.String("out", "datasets/models/m3.model", "model file to write; provenance goes to <out>.json")
	report := fs.String("report", "out/m3eval", "directory for the held-out ablation frames and figure")
	seed := fs.Uint64("seed", 1, "training seed (initialisation, shuffling, thinning)")
	epochs := intFlag(fs, "epochs", 60, 1, math.MaxInt, "training epochs (the best validation epoch is kept)")
	hidden := fs.String("hidden", "96,96", "hidden layer widths")
	members := intFlag(fs, "members", 3, 1, 64, "ensemble members (trained in parallel, corrections averaged)")
	lr := floatFlag(fs, "lr", 1e-3, positive, "Adam step size at the start (cosine decay to a tenth)")
	encoder := fs.String("encoder", m3.EncoderPool, "how the per-hop background maps reach the MLP: "+m3.EncoderPool+" (their fixed mean and maximum) or "+m3.EncoderHops+" (a learned per-hop encoder, m3's background context) or "+m3.EncoderPoolHops+" (both)")
	encHidden := fs.String("encoder-hidden", "64", "hidden layer widths of the per-hop encoder (-encoder hops)")
	context := intFlag(fs, "context", 32, 1, 1<<16, "width of the per-hop encoder's output (-encoder hops)")
	specNames := fs.String("spec-names", "", "spec entries the model reads, comma-separated (default all: "+strings.Join(m3.SpecNames, ",")+")")
	paths := intFlag(fs, "paths", m3study.DefaultNetworkPaths, 1, math.MaxInt, "paths drawn per scenario of a data set of space "+m3study.NetworkSpace)
	windowCap := fs.Bool("window-cap", false, "correct a flowSim that caps each flow at its cc's window per base RTT (its samples re-simulated so at load) instead of the plain max-min fluid")
	target := fs.String("network-target", "network", "what a "+m3study.NetworkSpace+" data set's drawn paths learn: network (their predictions pooled as m3 pools them, against the whole network's packet-level slowdowns per size bucket and overall) or paths (each path's prediction against its own one or two flows)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	widths, err := parseWidths("hidden", *hidden)
	if err != nil {
		return err
	}
	if *target != "network" && *target != "paths" {
		return fmt.Errorf("bad -network-target %q: want network or paths", *target)
	}
	opts := m3.TrainOptions{Hidden: widths, Members: *members, Epochs: *epochs, LR: *lr, Seed: *seed, Progress: progress.NewLine(os.Stderr, "m3 train")}
	if *specNames != "" {
		for _, n := range strings.Split(*specNames, ",") {
			opts.SpecNames = append(opts.SpecNames, strings.TrimSpace(n))
		}
	}
	switch *encoder {
	case m3.EncoderHops, m3.EncoderPoolHops:
		opts.Encoder, opts.Context = *encoder, *context
		if opts.EncoderHidden, err = parseWidths("encoder-hidden", *encHidden); err != nil {
			return err
		}
	case m3.EncoderPool:
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if set["context"] || set["encoder-hidden"] {
			return fmt.Errorf("-context and -encoder-hidden need -encoder %s or %s", m3.EncoderHops, m3.EncoderPoolHops)
		}
	default:
		return fmt.Errorf("bad -encoder %q: want %s, %s or %s", *encoder, m3.EncoderPool, m3.EncoderHops, m3.EncoderPoolHops)
	}
	if err := mkdirOut(filepath.Dir(*out)); err != nil {
		return err
	}
	_, abls, err := m3study.Train(m3study.TrainConfig{Data: *data, Model: *out, Command: "tailscope m3 train " + strings.Join(args, " "), Log: os.Stderr,
		NetworkPaths: *paths, NetworkPooled: *target == "network", WindowCap: *windowCap, Options: opts})
	if err != nil {
		return err
	}
	if err := mkdirOut(*report); err != nil {
		return err
	}
	for _, a := range abls {
		if err := a.Write(*report); err != nil {
			return err
		}
		a.Report(os.Stderr)
	}
	return nil
}

// parseWidths reads the comma-separated layer widths of flag name.
func parseWidths(name, v string) ([]int, error) {
	var widths []int
	for _, w := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || n < 1 || n > 1<<16 {
			return nil, fmt.Errorf("bad -%s %q: want widths from 1 to 65536", name, v)
		}
		widths = append(widths, n)
	}
	return widths, nil
}

// printTestSetSpec writes scenario k of the test set (n scenarios of flows
// flows, networks of space, drawn from seed) to w as JSON, and to log
// where a run under out keeps its results.
func printTestSetSpec(w, log io.Writer, k int, space string, n, flows int, seed uint64, out string) error {
	if k >= n {
		return fmt.Errorf("-print-spec %d: the test set has scenarios 0..%d", k, n-1)
	}
	specs, err := m3study.TestSetSpecs(space, n, flows, seed)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "m3 testset: scenario %d has its results under %s\n", k, experiment.ScenarioDir(out, specs[k]))
	_, err = fmt.Fprintln(w, specs[k].JSON())
	return err
}

func runM3TestSet(args []string) error {
	fs := flag.NewFlagSet("m3 testset", flag.ContinueOnError)
	out := fs.String("out", "out/m3testset", "results directory: one directory per scenario, the journal, and testset.parquet (a rerun resumes)")
	scenarios := intFlag(fs, "scenarios", m3study.TestSetScenarios, 1, math.MaxInt, "scenarios drawn (the first k of n are a k-scenario set's)")
	flows := intFlag(fs, "flows", m3study.TestSetFlows, 1, math.MaxInt, "flows per scenario")
	seed := fs.Uint64("seed", 1, "test-set seed (workloads and networks)")
	space := fs.String("space", "table4-pfc", "the networks' space: table4-pfc (the CCs as their papers define them), table4-fork (DCQCN, TIMELY and HPCC under the HPCC ns-3 fork's rules, m3's own ground truth), presets (table4-pfc with ranges that hold the presets) or presets-fork (presets under the fork's rules)")
	var models []string
	fs.Func("model", "an m3 model file asked beside the embedded model (repeatable)", func(s string) error {
		models = append(models, s)
		return nil
	})
	others := fs.String("others", "flowsim,parsimon", "estimators asked beside packetsim and m3, comma-separated (may be empty)")
	workers := intFlag(fs, "workers", 1, 1, math.MaxInt, "local: runs in parallel (1 keeps each run's CPU time its own)")
	printSpec := intFlag(fs, "print-spec", -1, -1, math.MaxInt, "print scenario k's spec as JSON and its results directory, and exit (-1: run the set)")
	executor := executorFlags(fs, "local (goroutines) or slurm (job arrays)", "local", "slurm")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *printSpec >= 0 {
		return printTestSetSpec(os.Stdout, os.Stderr, *printSpec, *space, *scenarios, *flows, *seed, *out)
	}
	exec, ctx, stop, err := executor.prepare(*workers, *out)
	if err != nil {
		return err
	}
	defer stop()
	oth := []string{}
	for _, e := range strings.Split(*others, ",") {
		if e = strings.TrimSpace(e); e != "" {
			oth = append(oth, e)
		}
	}
	res, err := m3study.RunTestSet(ctx, m3study.TestSetOptions{Scenarios: *scenarios, Flows: *flows, Seed: *seed, Space: *space, Models: models, Others: oth,
		Dir: *out, Executor: exec, Progress: progress.NewLine(os.Stderr, "m3 testset")})
	if err != nil {
		return err
	}
	if err := frame.WriteTable(filepath.Join(*out, "testset.parquet"), res.Table()); err != nil {
		return err
	}
	res.Report(os.Stdout)
	return nil
}
