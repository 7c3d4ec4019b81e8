// Package pfsstudy is the pfs decomposition study behind "tailscope pfs"
// and notebook 08: one decomposition of a flowsim run measured against the
// serial run (Run), and the paper's speedup and accuracy curves over
// temporal, spatial and spatio-temporal decompositions (Curves, Sweep).
// Like package validate it holds the whole recipe (the scenario presets,
// the runs, the report, the frames and the figures), so that the command
// and the notebook only call it, and it is where pfs's results become
// plot's plain data.
package pfsstudy

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/pfs"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
)

// Presets are the study's scenario presets, for Preset.
var Presets = []string{"dumbbell", "fabric"}

// Preset returns the named preset's spec: "dumbbell", the pfs paper's
// Fig. 2 dumbbell of eight pairs at max load load (0: 0.6), or "fabric",
// the 32-rack 2:1 fabric with matrix B and CacheFollower sizes at load
// (0: 0.5); flows flows from seed.
func Preset(name string, flows int, load float64, seed uint64) (scenario.Spec, error) {
	switch name {
	case "dumbbell":
		return scenario.PFSDumbbell(8, flows, orDefault(load, 0.6), seed), nil
	case "fabric":
		return scenario.PFSFabric(flows, orDefault(load, 0.5), seed), nil
	}
	return scenario.Spec{}, fmt.Errorf("pfsstudy: unknown preset %q (%s)", name, strings.Join(Presets, " or "))
}

func orDefault(x, def float64) float64 {
	if x == 0 {
		return def
	}
	return x
}

// Bins are the size bins of the study's slowdown comparisons
// (Parsimon's).
var Bins = metrics.ParsimonBins()

// Meta is the provenance of the frames of a study on sc.
func Meta(sc *scenario.Scenario) frame.Meta {
	return frame.Meta{ScenarioID: sc.ID, Network: sc.Net.Name, Spec: sc.Given().JSON(), Seed: sc.Spec.Seed}
}

// Comparison is one decomposition measured against the serial run.
type Comparison struct {
	Scenario *scenario.Scenario
	Options  pfs.Options
	Serial   *pfs.Result
	PFS      *pfs.Result
	Accuracy pfs.Accuracy
}

// Run runs sc serially and decomposed by o, the chunks in this process
// when exec is nil (o.Workers at once), else as experiment tasks through
// exec with their frames under dir (resumable; p gets their progress),
// and compares the two.
func Run(ctx context.Context, sc *scenario.Scenario, o pfs.Options, exec experiment.Executor, dir string, p progress.Reporter) (*Comparison, error) {
	base, err := pfs.Serial(sc.Net, sc.Flows, sc.Spec.Network, pfs.Options{})
	if err != nil {
		return nil, err
	}
	var res *pfs.Result
	if exec == nil {
		res, err = pfs.Run(ctx, sc.Net, sc.Flows, sc.Spec.Network, o)
	} else {
		res, err = experiment.RunPFS(ctx, dir, sc, o, exec, p)
	}
	if err != nil {
		return nil, err
	}
	acc, err := pfs.Compare(res, base, Bins)
	if err != nil {
		return nil, err
	}
	return &Comparison{Scenario: sc, Options: o, Serial: base, PFS: res, Accuracy: acc}, nil
}

// Report writes the run's times, speedups and errors; how names the way
// the chunks ran (an executor).
func (c *Comparison) Report(w io.Writer, how string) {
	sc, base, res, acc := c.Scenario, c.Serial, c.PFS, c.Accuracy
	fmt.Fprintf(w, "%s: %d flows, %d chunks (%d boundary flows injected)\n", sc.Net.Summary(), len(sc.Flows), res.Chunks, res.Injected)
	fmt.Fprintf(w, "serial %.3f s; pfs %.3f s with %s (pre-processing %.3f s, critical path %.3f s, one worker %.3f s): speedup %.2fx, critical-path speedup %.2fx\n",
		base.WallSeconds, res.WallSeconds, how, res.PrepSeconds, res.CriticalSeconds(), res.SumSeconds(),
		base.WallSeconds/res.WallSeconds, base.WallSeconds/res.CriticalSeconds())
	fmt.Fprintf(w, "received bytes/s: RMSE %.4g B/s (NRMSE %.2f%%), per destination %.4g B/s\n", acc.RMSE, 100*acc.NRMSE, acc.HostRMSE)
	fmt.Fprintf(w, "p50 slowdown:\n%sp99 slowdown:\n%s", acc.P50, acc.P99)
}

// Write stores under dir the serial and decomposed records (serial.parquet,
// pfs.parquet, the decomposition in the metadata) and both runs' received
// bytes per second (received.parquet).
func (c *Comparison) Write(dir string) error {
	meta := Meta(c.Scenario)
	for _, run := range []struct {
		name string
		r    *pfs.Result
	}{{"serial", c.Serial}, {"pfs", c.PFS}} {
		m := meta
		m.Estimator, m.WallSeconds = run.name, run.r.WallSeconds
		if run.name == "pfs" {
			m.Extra = map[string]string{"temporal": strconv.Itoa(c.Options.Temporal), "spatial": strconv.Itoa(c.Options.Spatial), "background": c.Options.Background}
		}
		if err := frame.WriteRecords(filepath.Join(dir, run.name+".parquet"), run.r.Records, m); err != nil {
			return err
		}
	}
	t, err := pfs.SeriesTable([]string{"serial", "pfs"}, []*pfs.Series{c.Serial.Received, c.PFS.Received}, meta)
	if err != nil {
		return err
	}
	return frame.WriteTable(filepath.Join(dir, "received.parquet"), t)
}

// Curve is one of the paper's decomposition sweeps: its name, the chunk
// count along its x axis ("temporal", "spatial" or "chunks") and its
// decompositions.
type Curve struct {
	Name    string
	X       string
	Configs []pfs.Options
}

// Curves are the paper's three sweeps: temporal chunk counts (Fig. 4),
// spatial chunk counts (Fig. 6) and temporal chunk counts with the largest
// spatial count (Fig. 7).
func Curves(temporal, spatial, spatioTemporal []int) []Curve {
	cs := []Curve{{Name: "temporal", X: "temporal"}, {Name: "spatial", X: "spatial"}, {Name: "spatio-temporal", X: "temporal"}}
	maxS := 1
	for _, s := range spatial {
		maxS = max(maxS, s)
	}
	for _, t := range temporal {
		cs[0].Configs = append(cs[0].Configs, pfs.Options{Temporal: t})
	}
	for _, s := range spatial {
		cs[1].Configs = append(cs[1].Configs, pfs.Options{Spatial: s})
	}
	for _, t := range spatioTemporal {
		cs[2].Configs = append(cs[2].Configs, pfs.Options{Temporal: t, Spatial: maxS})
	}
	return cs
}

// Sweep measures each decomposition of configs on sc against its serial
// run (pfs.Sweep with the study's bins), naming the points' scenario name;
// p gets every point.
func Sweep(ctx context.Context, name string, sc *scenario.Scenario, configs []pfs.Options, workers, repeats int, p progress.Reporter) ([]pfs.Point, *pfs.Result, error) {
	pts, base, err := pfs.Sweep(ctx, sc.Net, sc.Flows, sc.Spec.Network, configs, workers, repeats, Bins, p)
	if err != nil {
		return nil, nil, err
	}
	for i := range pts {
		pts[i].Scenario = name
	}
	return pts, base, nil
}

// CurveFigure draws the speedup and accuracy curves of sweep points
// against their chunk count x ("temporal", "spatial" or "chunks"; pfs
// Fig. 4, 6 and 7).
func CurveFigure(title, x string, pts []pfs.Point) (*plot.Figure, error) {
	label := map[string]string{"temporal": "temporal chunks", "spatial": "spatial chunks", "chunks": "chunks"}[x]
	if label == "" {
		return nil, fmt.Errorf("pfsstudy: CurveFigure: unknown x %q (want temporal, spatial or chunks)", x)
	}
	dp := make([]plot.DecompositionPoint, len(pts))
	for i, p := range pts {
		dp[i] = plot.DecompositionPoint{X: float64(map[string]int{"temporal": p.Temporal, "spatial": p.Spatial, "chunks": p.Chunks}[x]),
			Workers: p.Workers, SerialSeconds: p.SerialSeconds, PrepSeconds: p.PrepSeconds, WallSeconds: p.WallSeconds,
			CriticalSeconds: p.CriticalSeconds, SumSeconds: p.SumSeconds,
			NRMSE: p.Accuracy.NRMSE, P50Error: p.Accuracy.P50.ErrorAll, P99Error: p.Accuracy.P99.ErrorAll}
	}
	return plot.PFSCurves(title, label, dp)
}

// ReceivedFigure draws the bytes per second all destinations received
// over time, one line per named run (pfs Fig. 3 and 5).
func ReceivedFigure(title string, names []string, runs []*pfs.Series) (*plot.Figure, error) {
	if len(names) != len(runs) {
		return nil, fmt.Errorf("pfsstudy: ReceivedFigure needs one name per series (%d names, %d series)", len(names), len(runs))
	}
	rates := make([]plot.Rate, len(runs))
	for i, s := range runs {
		if s == nil {
			return nil, fmt.Errorf("pfsstudy: ReceivedFigure: no series for %s", names[i])
		}
		rates[i] = plot.Rate{BinNs: s.BinNs, BytesPerSec: s.Rate(s.Total())}
	}
	return plot.ReceivedSeries(title, names, rates)
}
