package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/progress"
)

func init() {
	register("sweep", "sample scenarios from a space and run estimators on each, resuming where a previous run stopped", runSweep)
}

func runSweep(args []string) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	space := fs.String("space", "default", "sample space (JSON file) or \"default\" (Parsimon Table 3 on the 32-rack fabrics)")
	n := intFlag(fs, "n", 192, 1, math.MaxInt, "scenarios to sample")
	seed := fs.Uint64("seed", 1, "sampling seed")
	flows := intFlag(fs, "flows", 0, 0, math.MaxInt, "override the space's flow counts (0: keep them)")
	seeds := intFlag(fs, "seeds", 1, 1, math.MaxInt, "run every scenario with this many seeds (its seed, seed+1, ...); \"plot summary\" then reports each error with its confidence interval")
	names := fs.String("estimators", "packetsim", "comma-separated estimators: "+strings.Join(estimator.Names(), ", "))
	options := fs.String("options", "", optionsUsage)
	out := fs.String("out", "out", "results directory: <out>/<scenario>/<estimator>[@<options hash>].parquet (<scenario>: the scenario's name, topology, CC and load, then its ID)")
	executor := executorFlags(fs, "local or slurm", "local", "slurm")
	workers := intFlag(fs, "workers", 1, 1, math.MaxInt, "local: tasks run at once")
	printSpace := fs.Bool("print-space", false, "print the space as JSON and exit (a template for your own)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	sp, err := experiment.LoadSpace(*space)
	if err != nil {
		return err
	}
	if *flows > 0 {
		sp.Flows = []int{*flows}
	}
	if *printSpace {
		b, err := json.MarshalIndent(sp, "", "  ")
		if err != nil {
			return err
		}
		fmt.Println(string(b))
		return nil
	}
	sampled, err := experiment.Sample(sp, *n, *seed)
	if err != nil {
		return err
	}
	specs, err := experiment.Replicate(sampled, *seeds)
	if err != nil {
		return err
	}
	optStrings, err := estimator.ParseOptions(*options, split(*names))
	if err != nil {
		return suggestOptions("sweep", args, nil, err)
	}
	opts := map[string]json.RawMessage{}
	for k, v := range optStrings {
		if v != "" {
			opts[k] = json.RawMessage(v)
		}
	}
	tasks, err := experiment.Tasks(specs, split(*names), optStrings)
	if err != nil {
		return err
	}
	exec, ctx, stop, err := executor.prepare(*workers, *out)
	if err != nil {
		return err
	}
	defer stop()
	// The sweep's definition beside its results, for provenance.
	manifest, err := json.MarshalIndent(map[string]any{"space": sp, "n": *n, "seed": *seed, "seeds": *seeds, "estimators": split(*names), "options": opts}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(*out, "sweep.json"), append(manifest, '\n'), 0o644); err != nil {
		return err
	}
	t0 := time.Now()
	rep, err := experiment.Sweep(ctx, *out, tasks, exec, progress.NewLine(os.Stderr, "sweep"))
	fmt.Printf("sweep: %d tasks (%d scenarios x %d seeds x %d estimators): %d already done, %d run, %d failed, %d running elsewhere in %s -> %s\n",
		rep.Total, len(sampled), *seeds, len(split(*names)), rep.Skipped, rep.Ran, rep.Failed, rep.Elsewhere, time.Since(t0).Round(time.Millisecond), *out)
	return err
}

// executorChoice is where a command's tasks run, as its flags say.
type executorChoice struct {
	names     []string
	name      *string
	partition *string
	timeLimit *time.Duration
	cpus      *int
}

// executorFlags adds to fs the one set of flags that choose where a
// command's tasks run: --executor, one of names (the first is the
// default; "inproc" and "" mean the command's own goroutines), described
// by usage, and Slurm's --partition, --time-limit and --cpus-per-task.
func executorFlags(fs *flag.FlagSet, usage string, names ...string) executorChoice {
	return executorChoice{
		names:     names,
		name:      fs.String("executor", names[0], usage),
		partition: fs.String("partition", "", "slurm: partition"),
		timeLimit: fs.Duration("time-limit", 0, "slurm: time limit of each task (0: the partition's) [a duration >= 0]"),
		cpus:      intFlag(fs, "cpus-per-task", 0, 0, math.MaxInt, "slurm: CPUs per task"),
	}
}

// prepare is the common start of a command that runs tasks: it builds the
// chosen executor (build), makes the output directory out (mkdirOut) and
// returns the command's interruptible context, to be stopped when the
// command ends.
func (c executorChoice) prepare(workers int, out string) (experiment.Executor, context.Context, context.CancelFunc, error) {
	exec, err := c.build(workers)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := mkdirOut(out); err != nil {
		return nil, nil, nil, err
	}
	ctx, stop := interruptible()
	return exec, ctx, stop, nil
}

// build makes the chosen executor once the flags are parsed, running
// workers tasks at once on the local pool; nil means in-process.
func (c executorChoice) build(workers int) (experiment.Executor, error) {
	if !slices.Contains(c.names, *c.name) {
		return nil, fmt.Errorf("unknown executor %q (%s)", *c.name, strings.Join(c.names, ", "))
	}
	switch *c.name {
	case "local":
		return experiment.Local{Workers: max(workers, 1)}, nil
	case "slurm":
		if *c.timeLimit < 0 {
			return nil, fmt.Errorf("--time-limit %v: want a duration >= 0", *c.timeLimit)
		}
		return experiment.Slurm{Partition: *c.partition, TimeLimit: *c.timeLimit, CPUsPerTask: *c.cpus}, nil
	}
	return nil, nil
}
