package main

import (
	"flag"
	"fmt"
	"github.com/tailscope/tailscope/lib/pfsstudy"
	"math"
	"os"
	"path/filepath"
	"runtime"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/pfs"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
)

func init() {
	register("pfs", "pfs decomposition of flowsim runs: 'pfs run' one decomposition, 'pfs curves' the paper's speedup/accuracy sweeps", runPFS)
}

func runPFS(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: tailscope pfs run|curves [flags]")
	}
	switch args[0] {
	case "run":
		return runPFSRun(args[1:])
	case "curves":
		return runPFSCurves(args[1:])
	}
	return fmt.Errorf("unknown pfs subcommand %q (known: run, curves)", args[0])
}

// pfsScenario holds the flags that pick a pfs scenario.
type pfsScenario struct {
	name, spec *string
	flows      *int
	load       *float64
	seed       *uint64
}

func pfsScenarioFlags(fs *flag.FlagSet) pfsScenario {
	return pfsScenario{
		name:  fs.String("scenario", "dumbbell", "dumbbell (pfs Fig. 2, eight pairs) or fabric (32-rack 2:1, matrix B, CacheFollower)"),
		spec:  fs.String("spec", "", "scenario spec file or preset instead of --scenario"),
		flows: intFlag(fs, "flows", 50_000, 1, math.MaxInt, "flows (with --scenario)"),
		load:  floatFlag(fs, "load", 0, span{lo: 0, hi: 1, loOpen: true, hiOpen: true, zeroDefault: true}, "max link load (with --scenario; default 0.6 dumbbell, 0.5 fabric)"),
		seed:  fs.Uint64("seed", 1, "seed (with --scenario)"),
	}
}

func (s pfsScenario) get() (scenario.Spec, error) {
	if *s.spec != "" {
		return loadSpec(*s.spec)
	}
	return pfsstudy.Preset(*s.name, *s.flows, *s.load, *s.seed)
}

// parse parses args into fs, builds the scenario and makes the output
// directory *out.
func (s pfsScenario) parse(fs *flag.FlagSet, args []string, out *string) (*scenario.Scenario, error) {
	if err := parseFlags(fs, args); err != nil {
		return nil, err
	}
	spec, err := s.get()
	if err != nil {
		return nil, err
	}
	sc, err := scenario.Build(spec)
	if err != nil {
		return nil, err
	}
	return sc, mkdirOut(*out)
}

func runPFSRun(args []string) error {
	fs := flag.NewFlagSet("pfs run", flag.ContinueOnError)
	sf := pfsScenarioFlags(fs)
	var o pfs.Options
	fs.IntVar(&o.Temporal, "temporal", 1, "temporal chunks")
	fs.IntVar(&o.Spatial, "spatial", 1, "spatial chunks (source-destination pair groups)")
	fs.StringVar(&o.Background, "background", pfs.BackgroundOffered, "load of other spatial chunks on shared channels: offered, windowed or none")
	fs.IntVar(&o.Workers, "workers", runtime.NumCPU(), "inproc: chunks run at once; local: tasks run at once")
	executor := executorFlags(fs, "inproc (goroutines), local (experiment tasks, resumable) or slurm (job arrays)", "inproc", "local", "slurm")
	out := fs.String("out", "out/pfs", "output directory: serial.parquet, pfs.parquet, received.parquet (and chunks/ for task executors)")
	sc, err := sf.parse(fs, args, out)
	if err != nil {
		return err
	}
	ex, err := executor.build(o.Workers)
	if err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	c, err := pfsstudy.Run(ctx, sc, o, ex, filepath.Join(*out, "chunks"), progress.NewLine(os.Stderr, "pfs chunks"))
	if err != nil {
		return err
	}
	c.Report(os.Stdout, *executor.name)
	return c.Write(*out)
}

func runPFSCurves(args []string) error {
	fs := flag.NewFlagSet("pfs curves", flag.ContinueOnError)
	sf := pfsScenarioFlags(fs)
	workers := intFlag(fs, "workers", runtime.NumCPU(), 1, math.MaxInt, "workers of the measured parallel runs")
	repeats := intFlag(fs, "repeats", 3, 1, math.MaxInt, "runs per timing (the minimum is kept)")
	temporal := fs.String("temporal", "2,4,8,16,30,60", "temporal chunk counts (Fig. 4)")
	spatial := fs.String("spatial", "1,2,4,8", "spatial chunk counts (Fig. 6)")
	st := fs.String("spatio-temporal", "2,4,8", "temporal chunk counts with the largest spatial count (Fig. 7)")
	out := fs.String("out", "out/pfs-curves", "output directory: points.parquet and figures")
	sc, err := sf.parse(fs, args, out)
	if err != nil {
		return err
	}
	var sets [3][]int
	for i, v := range []*string{temporal, spatial, st} {
		if sets[i], err = counts(*v); err != nil {
			return fmt.Errorf("pfs curves: %w", err)
		}
	}
	var all []pfs.Point
	ctx, stop := interruptible()
	defer stop()
	for _, c := range pfsstudy.Curves(sets[0], sets[1], sets[2]) {
		lines := progress.NewLine(os.Stdout, "pfs "+c.Name)
		lines.Interval = 0 // a line per point: they are the sweep's report
		pts, _, err := pfsstudy.Sweep(ctx, sc.Spec.Name, sc, c.Configs, *workers, *repeats, lines)
		if err != nil {
			return err
		}
		all = append(all, pts...)
		fig, err := pfsstudy.CurveFigure(fmt.Sprintf("%s: %s decomposition", sc.Spec.Name, c.Name), c.X, pts)
		if err != nil {
			return err
		}
		if err := plot.Save(fig, filepath.Join(*out, c.Name+".png")); err != nil {
			return err
		}
	}
	path := filepath.Join(*out, "points.parquet")
	fmt.Println("->", path)
	return frame.WriteTable(path, pfs.PointsTable(all, pfsstudy.Meta(sc)))
}
