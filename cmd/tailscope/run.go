package main

import (
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
	"github.com/tailscope/tailscope/lib/workload"
)

func init() {
	register("run", "run estimators on a scenario and write their FCT records", runRun)
}

func runRun(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	spec := fs.String("spec", "default", specUsage)
	names := fs.String("estimator", "packetsim", "comma-separated estimators: "+strings.Join(estimator.Names(), ", "))
	out := fs.String("out", "out", "directory; records go to <out>/<scenario id>/<estimator>[@<options hash>].parquet, as tailscope sweep writes them")
	options := fs.String("options", "", "estimator options as a JSON object (applied to every estimator named)")
	flows := intFlag(fs, "flows", 0, 0, math.MaxInt, "override the spec's flow count (0: keep it)")
	executor := executorFlags(fs, "Parsimon variants' link simulations: inproc (goroutines), local (resumable tasks under <out>/<scenario id>/links) or slurm (job arrays)", "inproc", "local", "slurm")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	est := split(*names)
	if err := estimator.Check(est...); err != nil {
		return err
	}
	ex, err := executor.build(runtime.NumCPU())
	if err != nil {
		return err
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
	ctx, stop := interruptible()
	defer stop()
	// The output directory is made when the first records are written, so
	// a run that fails first leaves none behind.
	dir := filepath.Join(*out, sc.ID)
	nflows := fmt.Sprint(len(sc.Flows))
	if streaming {
		nflows = "streaming " + describeFlows(s.Workload)
	}
	// Every estimator's options and network are checked before the first
	// runs: a bad option of the last must not cost the others' runs.
	paths := make([]string, len(est))
	for i, name := range est {
		if err := estimator.Models(name, *options, sc.Spec.Network); err != nil {
			return err
		}
		// The sweep's layout: other options of one estimator get a file of
		// their own, so two configurations never overwrite each other.
		if paths[i], err = (experiment.Task{Spec: s, Estimator: name, Options: *options}).ResultPath(*out); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "scenario %s: %s, %s flows\n", sc.ID, sc.Net.Summary(), nflows)
	for i, name := range est {
		t0 := time.Now()
		path := paths[i]
		fmt.Fprintf(os.Stderr, "%s: running...\n", name)
		var res *estimator.Result
		switch {
		case ex != nil && strings.HasPrefix(name, "parsimon"):
			links := experiment.ParsimonLinks(filepath.Join(dir, "links"), ex, progress.NewLine(os.Stderr, name+" links"))
			if res, err = estimator.RunParsimon(ctx, name, sc, *options, links); err == nil {
				if err = mkdirOut(dir); err == nil {
					err = res.Write(path, sc)
				}
				res.Streamed = len(res.Records)
			}
		case ex != nil:
			err = fmt.Errorf("--executor %s: only the Parsimon variants split into tasks; %s runs in process (--executor inproc)", *executor.name, name)
		default:
			if err = mkdirOut(dir); err == nil {
				res, err = estimator.Stream(ctx, name, sc, *options, path)
			}
		}
		if err != nil {
			return err
		}
		n := res.Streamed
		fmt.Printf("%s: %d records in %.2f s -> %s\n", name, n, time.Since(t0).Seconds(), path)
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
