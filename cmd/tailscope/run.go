package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/summary"
	"github.com/tailscope/tailscope/lib/workload"
)

func init() {
	register("run", "run estimators on a scenario and write their FCT records", runRun)
}

func runRun(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	spec := fs.String("spec", "default", specUsage)
	names := fs.String("estimator", "packetsim", "comma-separated estimators: "+strings.Join(estimator.Names(), ", "))
	out := fs.String("out", "out", "directory; records go to <out>/<scenario>/<estimator>.parquet, or <estimator>@<options hash>.parquet with options, as tailscope sweep writes them (<scenario>: the scenario's name, topology, CC and load, then its ID)")
	options := fs.String("options", "", optionsUsage)
	flows := intFlag(fs, "flows", 0, 0, math.MaxInt, "override the spec's flow count (0: keep it)")
	anyway := fs.Bool("answer-anyway", false, "answer where the accuracy atlas says an estimator is off by more than its threshold (it refuses by default); the frame says so")
	executor := executorFlags(fs, "Parsimon variants' link simulations: inproc (goroutines), local (resumable tasks under <out>/<scenario>/links) or slurm (job arrays)", "inproc", "local", "slurm")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	est := split(*names)
	if err := estimator.Check(est...); err != nil {
		return err
	}
	opts, err := estimator.ParseOptions(*options, est)
	if err != nil {
		return suggestOptions("run", args, nil, err)
	}
	if *anyway {
		for _, name := range est {
			if opts[name], err = estimator.WithAnswerAnyway(opts[name]); err != nil {
				return fmt.Errorf("--options %s: %w", name, err)
			}
		}
	}
	ex, err := executor.build(runtime.NumCPU())
	if err != nil {
		return err
	}
	if ex != nil {
		for _, name := range est {
			if !strings.HasPrefix(name, "parsimon") {
				return suggestFlag("run", args, "executor", "inproc", fmt.Errorf("--executor %s: only the Parsimon variants split into tasks; %s runs in process", *executor.name, name))
			}
		}
	}
	s, err := loadSpec(*spec)
	if err != nil {
		return err
	}
	if *flows > 0 {
		s.Workload.Flows, s.Workload.DurationNs = *flows, 0
	}
	// Every estimator writes its records a row group at a time as it
	// produces them; those that stream also take the flows as they are
	// drawn: a run of millions of flows then holds neither.
	streaming := ex == nil
	for _, name := range est {
		streaming = streaming && estimator.Streams(name)
	}
	build := scenario.Build
	if streaming {
		build = scenario.BuildNet
	}
	sc, err := build(s)
	if err != nil {
		return err
	}
	if streaming {
		// The flows are drawn as the estimators take them: check the
		// workload now, so a bad one is refused before any work.
		if err := checkWorkload(sc); err != nil {
			return err
		}
	}
	ctx, stop := interruptible()
	defer stop()
	// The output directory is made when the first records are written, so
	// a run that fails first leaves none behind.
	dir := experiment.ScenarioDir(*out, s)
	nflows := fmt.Sprint(len(sc.Flows))
	if streaming {
		nflows = "streaming " + describeFlows(s.Workload)
	}
	// Every estimator's options and network are checked before the first
	// runs: a bad option of the last must not cost the others' runs.
	paths := make([]string, len(est))
	for i, name := range est {
		if err := estimator.Answers(name, opts[name], sc.Spec); err != nil {
			return suggestOptions("run", args, opts, err)
		}
		if err := estimator.InRange(name, opts[name], sc); err != nil {
			return suggestOptions("run", args, opts, err)
		}
		// The sweep's layout (experiment.Task.Key): <estimator>.parquet
		// for the defaults, and other options of one estimator in a file
		// of their own, so two configurations never overwrite each other.
		// A run always runs: it writes today's key, never an older
		// sweep's file it would find, in the scenario's directory (an
		// older run's, named by the ID alone, if that is the one there).
		key, err := (experiment.Task{Spec: s, Estimator: name, Options: opts[name]}).Key()
		if err != nil {
			return err
		}
		paths[i] = filepath.Join(dir, key[strings.LastIndexByte(key, '/')+1:]+".parquet")
	}
	fmt.Fprintf(os.Stderr, "scenario %s (%s): %s, %s flows\n", sc.ID, summary.ScenarioName(s), sc.Net.Summary(), nflows)
	for i, name := range est {
		t0 := time.Now()
		path := paths[i]
		fmt.Fprintf(os.Stderr, "%s: running...\n", name)
		var res *estimator.Result
		switch {
		case ex != nil && strings.HasPrefix(name, "parsimon"):
			links := experiment.ParsimonLinks(filepath.Join(dir, "links"), ex, progress.NewLine(os.Stderr, name+" links"))
			if err = mkdirOut(dir); err == nil {
				res, err = estimator.StreamParsimon(ctx, name, sc, opts[name], links, path)
			}
		default:
			if err = mkdirOut(dir); err == nil {
				res, err = estimator.Stream(ctx, name, sc, opts[name], path)
			}
		}
		if err == nil {
			err = writeRunSpec(dir, s)
		}
		if err != nil {
			return err
		}
		n := res.Streamed
		fmt.Printf("%s: %d records in %.2f s -> %s\n", name, n, time.Since(t0).Seconds(), path)
		for _, l := range estimator.ExpectationLines(res) {
			fmt.Println("  " + l)
		}
	}
	return nil
}

// describeFlows says how many flows a workload has, before drawing them.
func describeFlows(w workload.Spec) string {
	if w.Flows > 0 {
		return fmt.Sprint(w.Flows)
	}
	return fmt.Sprintf("%d ns of", w.DurationNs)
}

// optionsUsage is the help of every --options flag: one shape everywhere.
const optionsUsage = `estimator options, a JSON object keyed by estimator name, e.g. {"m3":{"model":"table4-pfc"},"parsimon":{"bucket_size":50}}; with one estimator its options alone ({"model":"table4-pfc"}) are accepted too`

// checkWorkload refuses a scenario whose workload cannot be drawn (a load
// outside (0, 1), an unknown size distribution, a rack matrix on a
// network without racks...) by drawing its first flow: the checks of the
// whole draw, at the cost of one flow.
func checkWorkload(sc *scenario.Scenario) error {
	probe := *sc
	if probe.Spec.Workload.Flows > 1 {
		probe.Spec.Workload.Flows = 1
	}
	src, err := probe.Source()
	if err != nil {
		return err
	}
	src.Next()
	return src.Err()
}

// writeRunSpec writes the spec as given to spec.json in a run's
// directory (experiment.ScenarioDir) once records are there: the
// directory's name says the key parameters, its spec all of them
// ("tailscope run --spec <dir>/spec.json" runs it again).
func writeRunSpec(dir string, s scenario.Spec) error {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(s.JSON()), "", "  "); err != nil {
		return err
	}
	b.WriteByte('\n')
	path := filepath.Join(dir, "spec.json")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
