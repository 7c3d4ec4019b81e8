package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
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
	switch *s.name {
	case "dumbbell":
		return scenario.PFSDumbbell(8, *s.flows, orDefault(*s.load, 0.6), *s.seed), nil
	case "fabric":
		return scenario.PFSFabric(*s.flows, orDefault(*s.load, 0.5), *s.seed), nil
	}
	return scenario.Spec{}, fmt.Errorf("unknown pfs scenario %q (dumbbell or fabric)", *s.name)
}

// parse parses args into fs, builds the scenario and makes the output
// directory *out; it returns the scenario with the frame metadata of its
// outputs.
func (s pfsScenario) parse(fs *flag.FlagSet, args []string, out *string) (*scenario.Scenario, frame.Meta, error) {
	if err := parseFlags(fs, args); err != nil {
		return nil, frame.Meta{}, err
	}
	spec, err := s.get()
	if err != nil {
		return nil, frame.Meta{}, err
	}
	sc, err := scenario.Build(spec)
	if err != nil {
		return nil, frame.Meta{}, err
	}
	meta := frame.Meta{ScenarioID: sc.ID, Network: sc.Net.Name, Spec: sc.Spec.JSON(), Seed: sc.Spec.Seed}
	return sc, meta, mkdirOut(*out)
}

func orDefault(x, def float64) float64 {
	if x == 0 {
		return def
	}
	return x
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
	sc, meta, err := sf.parse(fs, args, out)
	if err != nil {
		return err
	}
	spec := sc.Spec
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	base, err := pfs.Serial(sc.Net, sc.Flows, spec.Network, pfs.Options{})
	if err != nil {
		return err
	}
	ex, err := executor.build(o.Workers)
	if err != nil {
		return err
	}
	var res *pfs.Result
	if ex == nil {
		res, err = pfs.Run(ctx, sc.Net, sc.Flows, spec.Network, o)
	} else {
		res, err = experiment.RunPFS(ctx, filepath.Join(*out, "chunks"), sc, o, ex, progress.NewLine(os.Stderr, "pfs chunks"))
	}
	if err != nil {
		return err
	}
	acc, err := pfs.Compare(res, base, metrics.ParsimonBins())
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d flows, %d chunks (%d boundary flows injected)\n", sc.Net.Summary(), len(sc.Flows), res.Chunks, res.Injected)
	fmt.Printf("serial %.3f s; pfs %.3f s with %s (pre-processing %.3f s, critical path %.3f s, one worker %.3f s): speedup %.2fx, critical-path speedup %.2fx\n",
		base.WallSeconds, res.WallSeconds, *executor.name, res.PrepSeconds, res.CriticalSeconds(), res.SumSeconds(),
		base.WallSeconds/res.WallSeconds, base.WallSeconds/res.CriticalSeconds())
	fmt.Printf("received bytes/s: RMSE %.4g B/s (NRMSE %.2f%%), per destination %.4g B/s\n", acc.RMSE, 100*acc.NRMSE, acc.HostRMSE)
	fmt.Printf("p50 slowdown:\n%sp99 slowdown:\n%s", acc.P50, acc.P99)
	for name, r := range map[string]*pfs.Result{"serial": base, "pfs": res} {
		m := meta
		m.Estimator, m.WallSeconds = name, r.WallSeconds
		if name == "pfs" {
			m.Extra = map[string]string{"temporal": strconv.Itoa(o.Temporal), "spatial": strconv.Itoa(o.Spatial), "background": o.Background}
		}
		if err := frame.WriteRecords(filepath.Join(*out, name+".parquet"), r.Records, m); err != nil {
			return err
		}
	}
	t, err := pfs.SeriesTable([]string{"serial", "pfs"}, []*pfs.Series{base.Received, res.Received}, meta)
	if err != nil {
		return err
	}
	return frame.WriteTable(filepath.Join(*out, "received.parquet"), t)
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
	sc, meta, err := sf.parse(fs, args, out)
	if err != nil {
		return err
	}
	spec := sc.Spec
	parse := func(s string) ([]int, error) {
		var v []int
		for _, f := range split(s) {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("bad chunk count %q: want an integer >= 1", f)
			}
			v = append(v, n)
		}
		return v, nil
	}
	ts, err := parse(*temporal)
	if err != nil {
		return err
	}
	ss, err := parse(*spatial)
	if err != nil {
		return err
	}
	sts, err := parse(*st)
	if err != nil {
		return err
	}
	maxS := 1
	for _, s := range ss {
		maxS = max(maxS, s)
	}
	sets := []struct {
		name, x string
		opts    []pfs.Options
	}{{"temporal", "temporal", nil}, {"spatial", "spatial", nil}, {"spatio-temporal", "temporal", nil}}
	for _, t := range ts {
		sets[0].opts = append(sets[0].opts, pfs.Options{Temporal: t})
	}
	for _, s := range ss {
		sets[1].opts = append(sets[1].opts, pfs.Options{Spatial: s})
	}
	for _, t := range sts {
		sets[2].opts = append(sets[2].opts, pfs.Options{Temporal: t, Spatial: maxS})
	}
	var all []pfs.Point
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for _, set := range sets {
		lines := progress.NewLine(os.Stdout, "pfs "+set.name)
		lines.Interval = 0 // a line per point: they are the sweep's report
		pts, _, err := pfs.Sweep(ctx, sc.Net, sc.Flows, spec.Network, set.opts, *workers, *repeats, metrics.ParsimonBins(), lines)
		if err != nil {
			return err
		}
		for i := range pts {
			pts[i].Scenario = spec.Name
		}
		all = append(all, pts...)
		fig, err := plot.PFSCurves(fmt.Sprintf("%s: %s decomposition", spec.Name, set.name), set.x, pts)
		if err != nil {
			return err
		}
		if err := plot.Save(fig, filepath.Join(*out, set.name+".png")); err != nil {
			return err
		}
	}
	path := filepath.Join(*out, "points.parquet")
	fmt.Println("->", path)
	return frame.WriteTable(path, pfs.PointsTable(all, meta))
}
