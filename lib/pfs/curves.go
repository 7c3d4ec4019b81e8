package pfs

import (
	"context"
	"fmt"
	"math"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Point is one decomposition measured against the serial run: a point of
// the pfs paper's speedup and accuracy curves (Fig. 4, 6, 7).
type Point struct {
	Scenario          string // a name the caller gives the scenario
	Temporal, Spatial int
	Background        string
	Chunks, Injected  int
	// SerialSeconds is the serial flowsim run. PrepSeconds, MergeSeconds,
	// SumSeconds and CriticalSeconds come from a run on one worker (chunk
	// times free of contention): Sum is the whole run on one worker,
	// Critical the run on as many workers as chunks. WallSeconds is
	// measured with Workers real workers. Each is the minimum over the
	// repeats.
	SerialSeconds, PrepSeconds, MergeSeconds float64
	SumSeconds, CriticalSeconds, WallSeconds float64
	Workers                                  int
	Accuracy                                 Accuracy
}

// Speedup is the serial time over the measured parallel wall time.
func (p Point) Speedup() float64 { return p.SerialSeconds / p.WallSeconds }

// CriticalSpeedup is the serial time over the critical path: what enough
// workers would give.
func (p Point) CriticalSpeedup() float64 { return p.SerialSeconds / p.CriticalSeconds }

// Sweep measures each decomposition of configs against the serial run of
// flows: accuracy, and speed with one worker and with workers (0:
// runtime.NumCPU()), each timing the minimum over repeats (at least 1)
// runs. It returns the points and the serial run. p, when not nil, gets
// every point measured.
func Sweep(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, configs []Options, workers, repeats int, bins metrics.Bins, p progress.Reporter) ([]Point, *Result, error) {
	repeats = max(repeats, 1)
	var base *Result
	serialSec := math.Inf(1)
	for r := 0; r < repeats; r++ {
		s, err := Serial(net, flows, cfg, Options{})
		if err != nil {
			return nil, nil, err
		}
		base, serialSec = s, min(serialSec, s.WallSeconds)
	}
	var pts []Point
	for _, o := range configs {
		if o.BinNs != 0 {
			return nil, nil, fmt.Errorf("pfs: sweep configs must leave bin_ns to the serial run's bins")
		}
		pt := Point{SerialSeconds: serialSec, Workers: workers, PrepSeconds: math.Inf(1), MergeSeconds: math.Inf(1),
			SumSeconds: math.Inf(1), CriticalSeconds: math.Inf(1), WallSeconds: math.Inf(1)}
		var last *Result
		for r := 0; r < repeats; r++ {
			o.Workers = 1
			one, err := Run(ctx, net, flows, cfg, o)
			if err != nil {
				return nil, nil, err
			}
			pt.PrepSeconds, pt.MergeSeconds = min(pt.PrepSeconds, one.PrepSeconds), min(pt.MergeSeconds, one.MergeSeconds)
			pt.SumSeconds, pt.CriticalSeconds = min(pt.SumSeconds, one.SumSeconds()), min(pt.CriticalSeconds, one.CriticalSeconds())
			o.Workers = workers
			par, err := Run(ctx, net, flows, cfg, o)
			if err != nil {
				return nil, nil, err
			}
			pt.WallSeconds, pt.Workers = min(pt.WallSeconds, par.WallSeconds), par.Workers
			last = par
		}
		d := o.withDefaults()
		pt.Temporal, pt.Spatial, pt.Background = d.Temporal, d.Spatial, d.Background
		pt.Chunks, pt.Injected = last.Chunks, last.Injected
		acc, err := Compare(last, base, bins)
		if err != nil {
			return nil, nil, err
		}
		pt.Accuracy = acc
		pts = append(pts, pt)
		progress.Report(p, len(pts), len(configs), fmt.Sprintf("T=%d S=%d %s: %d chunks; serial %.3f s, prep %.3f s, wall %.3f s on %d workers, critical %.3f s, one worker %.3f s: speedup %.2fx (critical path %.2fx); NRMSE %.4f, p50 error %+.1f%%, p99 error %+.1f%%",
			pt.Temporal, pt.Spatial, pt.Background, pt.Chunks, pt.SerialSeconds, pt.PrepSeconds, pt.WallSeconds, pt.Workers, pt.CriticalSeconds, pt.SumSeconds,
			pt.Speedup(), pt.CriticalSpeedup(), acc.NRMSE, 100*acc.P50.ErrorAll, 100*acc.P99.ErrorAll))
	}
	return pts, base, nil
}

// PointsTable is the frame of sweep points: one row per point with its
// scenario name, chunk counts, timings, speedups, received-bytes errors
// and the p50 and p99 slowdown errors over all flows and per size bin
// ("p99_err[<=1KB]", ...).
func PointsTable(pts []Point, meta frame.Meta) *frame.Table {
	n := len(pts)
	ints := func(f func(Point) int) []int64 {
		v := make([]int64, n)
		for i, p := range pts {
			v[i] = int64(f(p))
		}
		return v
	}
	floats := func(f func(Point) float64) []float64 {
		v := make([]float64, n)
		for i, p := range pts {
			v[i] = f(p)
		}
		return v
	}
	strs := func(f func(Point) string) []string {
		v := make([]string, n)
		for i, p := range pts {
			v[i] = f(p)
		}
		return v
	}
	cols := []frame.Column{
		frame.StringColumn("scenario", strs(func(p Point) string { return p.Scenario })),
		frame.Int64Column("temporal", ints(func(p Point) int { return p.Temporal })),
		frame.Int64Column("spatial", ints(func(p Point) int { return p.Spatial })),
		frame.StringColumn("background", strs(func(p Point) string { return p.Background })),
		frame.Int64Column("chunks", ints(func(p Point) int { return p.Chunks })),
		frame.Int64Column("injected", ints(func(p Point) int { return p.Injected })),
		frame.Int64Column("workers", ints(func(p Point) int { return p.Workers })),
		frame.Float64Column("serial_s", floats(func(p Point) float64 { return p.SerialSeconds })),
		frame.Float64Column("prep_s", floats(func(p Point) float64 { return p.PrepSeconds })),
		frame.Float64Column("merge_s", floats(func(p Point) float64 { return p.MergeSeconds })),
		frame.Float64Column("sum_s", floats(func(p Point) float64 { return p.SumSeconds })),
		frame.Float64Column("critical_s", floats(func(p Point) float64 { return p.CriticalSeconds })),
		frame.Float64Column("wall_s", floats(func(p Point) float64 { return p.WallSeconds })),
		frame.Float64Column("speedup", floats(Point.Speedup)),
		frame.Float64Column("speedup_critical", floats(Point.CriticalSpeedup)),
		frame.Float64Column("rmse_Bps", floats(func(p Point) float64 { return p.Accuracy.RMSE })),
		frame.Float64Column("nrmse", floats(func(p Point) float64 { return p.Accuracy.NRMSE })),
		frame.Float64Column("host_rmse_Bps", floats(func(p Point) float64 { return p.Accuracy.HostRMSE })),
		frame.Float64Column("p50_err", floats(func(p Point) float64 { return p.Accuracy.P50.ErrorAll })),
		frame.Float64Column("p99_err", floats(func(p Point) float64 { return p.Accuracy.P99.ErrorAll })),
	}
	if n > 0 {
		for b, label := range pts[0].Accuracy.P99.Labels {
			cols = append(cols,
				frame.Float64Column("p50_err["+label+"]", floats(func(p Point) float64 { return p.Accuracy.P50.Error[b] })),
				frame.Float64Column("p99_err["+label+"]", floats(func(p Point) float64 { return p.Accuracy.P99.Error[b] })))
		}
	}
	return &frame.Table{Columns: cols, Meta: meta}
}

// SeriesTable is the frame of received-bytes series: one row per bin with
// its start (ns) and, per named run, the bytes per second all destinations
// received.
func SeriesTable(names []string, runs []*Series, meta frame.Meta) (*frame.Table, error) {
	if len(names) != len(runs) || len(runs) == 0 {
		return nil, fmt.Errorf("pfs: SeriesTable needs one name per series (%d names, %d series)", len(names), len(runs))
	}
	n := 0
	for _, s := range runs {
		if s.BinNs != runs[0].BinNs {
			return nil, fmt.Errorf("pfs: series with %d ns and %d ns bins", runs[0].BinNs, s.BinNs)
		}
		n = max(n, s.Bins())
	}
	t0 := make([]int64, n)
	for i := range t0 {
		t0[i] = int64(i) * runs[0].BinNs
	}
	cols := []frame.Column{frame.Int64Column("bin_start_ns", t0)}
	for k, s := range runs {
		v := make([]float64, n)
		copy(v, s.Rate(s.Total()))
		cols = append(cols, frame.Float64Column(names[k]+"_Bps", v))
	}
	return &frame.Table{Columns: cols, Meta: meta}, nil
}
