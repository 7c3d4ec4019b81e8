package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/lib/dscale"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/summary"
	"github.com/tailscope/tailscope/lib/topo"
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
	switch {
	case *specFile != "":
		s, err := loadSpec(*specFile)
		if err != nil {
			return err
		}
		spec = s
	case *name == "cenic":
		spec, floor = scenario.CENIC(*flows, orDefault(*load, 0.85), *seed), 100_000
	case *name == "fabric":
		spec, floor = scenario.HotFabric(2, 0.2, orDefault(*load, 0.7), int64(*durationMs*1e6), *seed), 10_000
	default:
		return fmt.Errorf("unknown dscale scenario %q (cenic or fabric)", *name)
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
	ev, err := dscale.Evaluate(context.Background(), sc.Net, sc.Flows, spec.Network, dscale.EvalOptions{Alphas: as, Seed: spec.Seed,
		Detect: dscale.DetectOptions{MinQueueNs: floor}, Progress: lines})
	if err != nil {
		return err
	}
	if err := mkdirOut(*out); err != nil {
		return err
	}
	label := nodeLabels(sc.Net)
	fmt.Printf("%s: %d flows; %d congested channels:\n", sc.Net.Summary(), len(sc.Flows), len(ev.Congested))
	for _, s := range ev.Stats {
		if s.Congested {
			ch := sc.Net.Channels[s.Channel]
			fmt.Printf("  %4d %s -> %s: utilisation %.2f, mean queueing %.1f us (%.0f%% of the least queued crossing path), %d drops\n",
				s.Channel, label(ch.Src), label(ch.Dst), s.Utilisation, s.MeanQueueNs/1e3, 100*s.MeanQueueNs/s.PathQueueNs, s.Drops)
		}
	}
	meta := frame.Meta{ScenarioID: sc.ID, Network: sc.Net.Name, Spec: spec.JSON(), Seed: spec.Seed}
	tbl := ev.ComparisonTable(spec.Name, metrics.AllSizes(), meta)
	fmt.Print(summary.Markdown(tbl))
	for path, t := range map[string]*frame.Table{"comparison": tbl, "queues": ev.QueueTable(meta), "links": ev.LinkTable(sc.Net, meta)} {
		if err := frame.WriteTable(filepath.Join(*out, path+".parquet"), t); err != nil {
			return err
		}
	}
	var names []string
	var sets [][]metrics.Record
	for _, s := range ev.Systems {
		m := meta
		m.Estimator, m.WallSeconds = s.Name, s.WallSeconds
		file := strings.NewReplacer(" ", "-", "=", "").Replace(strings.ToLower(s.Name)) + ".parquet"
		if err := frame.WriteRecords(filepath.Join(*out, file), s.Records, m); err != nil {
			return err
		}
		names, sets = append(names, s.Name), append(sets, s.Records)
	}
	qf, err := plot.DSCALEQueues(ev, sc.Net, 4, label)
	if err != nil {
		return err
	}
	if err := plot.Save(qf, filepath.Join(*out, "queues.png")); err != nil {
		return err
	}
	ff, err := plot.SlowdownCDF(names, sets, metrics.AllSizes(), 0)
	if err != nil {
		return err
	}
	return plot.Save(ff, filepath.Join(*out, "fct.png"))
}

// nodeLabels names CENIC routers and hosts; other networks get node ids.
func nodeLabels(net *topo.Network) func(int) string {
	if net.Name == "cenic-like" {
		return topo.CENICNodeName
	}
	return strconv.Itoa
}
