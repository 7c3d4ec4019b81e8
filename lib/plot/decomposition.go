package plot

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// addCurve adds a named line with point markers in the i-th style.
func addCurve(p *plot.Plot, name string, i int, xs, ys []float64) error {
	pts := make(plotter.XYs, 0, len(xs))
	for k := range xs {
		if !math.IsNaN(ys[k]) && !math.IsInf(ys[k], 0) {
			pts = append(pts, plotter.XY{X: xs[k], Y: ys[k]})
		}
	}
	if len(pts) == 0 {
		return nil
	}
	l, s, err := plotter.NewLinePoints(pts)
	if err != nil {
		return fmt.Errorf("plot: %s: %w", name, err)
	}
	l.LineStyle = lineStyle(i)
	s.Color = l.LineStyle.Color
	s.Radius = vg.Points(2.5)
	p.Add(l, s)
	p.Legend.Add(name, l, s)
	return nil
}

// DecompositionPoint is one decomposition of a pfs sweep for PFSCurves:
// its chunk count along the x axis, its times (seconds) and its errors
// against the serial run (fractions).
type DecompositionPoint struct {
	X                                       float64 // temporal chunks, spatial chunks or chunks, as the axis says
	Workers                                 int     // workers of the measured run
	SerialSeconds, PrepSeconds, WallSeconds float64
	CriticalSeconds, SumSeconds             float64 // on as many workers as chunks; on one worker
	NRMSE                                   float64 // of the received bytes per second
	P50Error, P99Error                      float64 // of the p50 and p99 slowdown over all flows
}

// PFSCurves draws the pfs paper's speedup and accuracy curves (Fig. 4, 6
// and 7) for sweep points against their X, labelled xlabel: the times
// (serial run, pre-processing, measured wall time with the points'
// workers, critical path), the speedups (measured, critical path, one
// worker), and the accuracy (NRMSE of the received bytes per second and
// the p50 and p99 slowdown errors over all flows, in percent).
func PFSCurves(title, xlabel string, pts []DecompositionPoint) (*Figure, error) {
	if len(pts) == 0 {
		return nil, fmt.Errorf("plot: PFSCurves: no points")
	}
	xs := make([]float64, len(pts))
	label := xlabel
	col := func(f func(DecompositionPoint) float64) []float64 {
		v := make([]float64, len(pts))
		for i, p := range pts {
			v[i] = f(p)
		}
		return v
	}
	for i, p := range pts {
		xs[i] = p.X
	}
	workers := pts[0].Workers
	times := newPlot("time", label, "seconds")
	speed := newPlot("speedup incl. pre-processing", label, "serial / pfs")
	acc := newPlot("accuracy vs serial", label, "error (%)")
	curves := []struct {
		p    *plot.Plot
		name string
		ys   []float64
	}{
		{times, "serial", col(func(p DecompositionPoint) float64 { return p.SerialSeconds })},
		{times, "pre-processing", col(func(p DecompositionPoint) float64 { return p.PrepSeconds })},
		{times, fmt.Sprintf("pfs, %d workers", workers), col(func(p DecompositionPoint) float64 { return p.WallSeconds })},
		{times, "pfs, critical path", col(func(p DecompositionPoint) float64 { return p.CriticalSeconds })},
		{speed, fmt.Sprintf("measured, %d workers", workers), col(func(p DecompositionPoint) float64 { return p.SerialSeconds / p.WallSeconds })},
		{speed, "critical path (>= chunks workers)", col(func(p DecompositionPoint) float64 { return p.SerialSeconds / p.CriticalSeconds })},
		{speed, "one worker", col(func(p DecompositionPoint) float64 { return p.SerialSeconds / p.SumSeconds })},
		{acc, "NRMSE received bytes/s", col(func(p DecompositionPoint) float64 { return 100 * p.NRMSE })},
		{acc, "p50 slowdown error", col(func(p DecompositionPoint) float64 { return 100 * p.P50Error })},
		{acc, "p99 slowdown error", col(func(p DecompositionPoint) float64 { return 100 * p.P99Error })},
	}
	n := map[*plot.Plot]int{}
	for _, c := range curves {
		if err := addCurve(c.p, c.name, n[c.p], xs, c.ys); err != nil {
			return nil, err
		}
		n[c.p]++
	}
	lo, hi := xs[0], xs[0]
	for _, v := range xs {
		lo, hi = min(lo, v), max(hi, v)
	}
	refLine(speed, lo, 1, hi, 1)
	refLine(acc, lo, 0, hi, 0)
	times.Y.Min = 0
	speed.Y.Min = 0
	for _, p := range []*plot.Plot{times, speed, acc} {
		p.X.Tick.Marker = linearTicks{}
		p.Legend.Top = true
	}
	return &Figure{Title: title, Panels: [][]*plot.Plot{{times, speed, acc}}}, nil
}

// Rate is a time series of bytes per second in bins of BinNs.
type Rate struct {
	BinNs       int64
	BytesPerSec []float64
}

// ReceivedSeries draws the bytes per second all destinations received
// over time, one line per named run (pfs Fig. 3 and 5).
func ReceivedSeries(title string, names []string, runs []Rate) (*Figure, error) {
	if len(names) != len(runs) || len(runs) == 0 {
		return nil, fmt.Errorf("plot: ReceivedSeries needs one name per series (%d names, %d series)", len(names), len(runs))
	}
	p := newPlot(title, "time (ms)", "received (Gbit/s)")
	for i, s := range runs {
		xs, ys := make([]float64, len(s.BytesPerSec)), make([]float64, len(s.BytesPerSec))
		for b, v := range s.BytesPerSec {
			xs[b] = (float64(b) + 0.5) * float64(s.BinNs) / 1e6
			ys[b] = v * 8 / 1e9
		}
		l, err := plotter.NewLine(xyOf(xs, ys))
		if err != nil {
			return nil, fmt.Errorf("plot: ReceivedSeries: %s: %w", names[i], err)
		}
		l.LineStyle = lineStyle(i)
		l.LineStyle.Width = vg.Points(1.2)
		p.Add(l)
		p.Legend.Add(names[i], l)
	}
	p.Y.Min = 0
	p.X.Tick.Marker, p.Y.Tick.Marker = linearTicks{}, linearTicks{}
	p.Legend.Top = true
	f := Single(p)
	f.Width, f.Height = 9*vg.Inch, 3.5*vg.Inch
	return f, nil
}

func xyOf(xs, ys []float64) plotter.XYs {
	pts := make(plotter.XYs, len(xs))
	for i := range xs {
		pts[i] = plotter.XY{X: xs[i], Y: ys[i]}
	}
	return pts
}
