package largescale

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/plot"
)

// Percentiles are the slowdown percentiles kept per size bin.
var Percentiles = []float64{50, 99}

// Bins are the size bins of the comparison: Parsimon's Fig. 7 bins.
func Bins() metrics.Bins { return metrics.ParsimonBins() }

// SampleFlows bounds the records an estimate keeps for its figure: every
// k-th flow by id, the same flows for every estimator, so that a 31M-flow
// run draws from about a million (10,000 above its 99th percentile).
const SampleFlows = 1 << 20

// Estimate is one estimator's result on one case, reduced to what the
// tables and the figure need.
type Estimate struct {
	Estimator string
	Flows     int
	// P[i][b] is the Percentiles[i]-th slowdown percentile of size bin b
	// of Bins(), All[i] over every flow.
	P   [][]float64
	All []float64
	// Counts are the flows per size bin.
	Counts []int
	// Wall and CPU seconds of the task (experiment.ReadJournal; CPU is
	// NaN when the journal does not have it).
	WallSeconds, CPUSeconds float64
	// Extra and Timings are the frame's estimator figures (packetsim's
	// events and packet_hops, Parsimon's link_sims and link_sims_pruned,
	// its inf_s, ...).
	Extra   map[string]string
	Timings map[string]float64
	// Sample holds the records of every k-th flow (SampleFlows).
	Sample []metrics.Record
}

// Outcome is one case's estimates, by estimator; estimators whose task is
// not done are missing.
type Outcome struct {
	Case      Case
	Estimates map[string]*Estimate
}

// Load reads the finished results of cases under dir (written by Run):
// an outcome per case whose baseline is done, with every finished
// estimate. Records are reduced one frame at a time, so only one frame's
// records are held at once.
func Load(dir string, cases []Case) ([]Outcome, error) {
	sub := filepath.Join(dir, CasesDir)
	costs, err := experiment.ReadJournal(sub)
	if err != nil {
		return nil, err
	}
	var outs []Outcome
	for _, c := range cases {
		o := Outcome{Case: c, Estimates: map[string]*Estimate{}}
		for _, t := range Tasks([]Case{c}) {
			done, err := t.Done(sub)
			if err != nil {
				return nil, err
			}
			if !done {
				continue
			}
			path, err := t.ResultPath(sub)
			if err != nil {
				return nil, err
			}
			key, _ := t.Key()
			e, err := reduce(path, costs[key])
			if err != nil {
				return nil, fmt.Errorf("largescale: %s: %w", c.Name(), err)
			}
			o.Estimates[t.Estimator] = e
		}
		if o.Estimates[Baseline] != nil {
			outs = append(outs, o)
		}
	}
	return outs, nil
}

// reduce reads one records frame into an Estimate.
func reduce(path string, cost experiment.Cost) (*Estimate, error) {
	recs, meta, err := frame.ReadRecords(path)
	if err != nil {
		return nil, err
	}
	b := Bins()
	e := &Estimate{Estimator: meta.Estimator, Flows: len(recs), Extra: meta.Extra, Timings: meta.Timings,
		WallSeconds: cost.WallSeconds, CPUSeconds: cost.CPUSeconds, Counts: make([]int, b.Len())}
	if cost.WallSeconds == 0 {
		e.WallSeconds, e.CPUSeconds = meta.WallSeconds, math.NaN()
	}
	by := metrics.SlowdownsByBin(recs, b)
	for i, s := range by {
		e.Counts[i] = len(s)
	}
	all := metrics.Slowdowns(recs)
	for _, p := range Percentiles {
		e.P = append(e.P, make([]float64, b.Len()))
		for i, s := range by {
			e.P[len(e.P)-1][i] = metrics.Percentile(s, p)
		}
		e.All = append(e.All, metrics.Percentile(all, p))
	}
	stride := (len(recs) + SampleFlows - 1) / SampleFlows
	for _, r := range recs {
		if r.FlowID%max(stride, 1) == 0 {
			e.Sample = append(e.Sample, r)
		}
	}
	return e, nil
}

// p99 is the index of the 99th percentile in Percentiles.
const p99 = 1

// P99Error is the estimate's relative error of p99 slowdown over all flows
// against the baseline's, NaN if either is missing.
func (o Outcome) P99Error(est string) float64 {
	e, b := o.Estimates[est], o.Estimates[Baseline]
	if e == nil || b == nil {
		return math.NaN()
	}
	return metrics.P99Error(e.All[p99], b.All[p99])
}

// NS3 converts packetsim's packet-hops into an estimate of ns-3's CPU time
// on the same run: ns-3 schedules EventsPerPacketHop events per packetsim
// packet-hop and runs EventsPerCPUSecond of them.
type NS3 struct {
	EventsPerPacketHop float64
	EventsPerCPUSecond float64
}

// DefaultNS3 is measured on this machine (BENCHMARKS.md, ns-3 3.37): 2000
// WebServer flows (matrix B, sigma 2, 30%) on meta32-2:1 took ns-3 4.48M
// events and 13.3 CPU seconds (glibc malloc; 337k events per CPU second),
// and packetsim 1.348M packet-hops on the same flows (3.32 events per
// packet-hop). It is Debian's ns-3 with window-based TCP, not the papers'
// RDMA fork: an order of magnitude, not a measurement.
var DefaultNS3 = NS3{EventsPerPacketHop: 4.48e6 / 1.348008e6, EventsPerCPUSecond: 4.48e6 / 13.3}

// CPUSeconds is ns-3's estimated CPU time for a run of packetHops packet-hops.
func (n NS3) CPUSeconds(packetHops float64) float64 {
	return packetHops * n.EventsPerPacketHop / n.EventsPerCPUSecond
}

// extra is a numeric figure from an estimate's metadata, NaN if absent.
func (e *Estimate) extra(key string) float64 {
	v, err := strconv.ParseFloat(e.Extra[key], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// PrunedShare is the share of the link simulations a Parsimon run pruned
// by clustering, NaN for other estimators.
func (e *Estimate) PrunedShare() float64 {
	sims, pruned := e.extra("link_sims"), e.extra("link_sims_pruned")
	return pruned / (sims + pruned)
}

// Table is the Table 2 analogue as a frame: one row per case and
// estimator, with p50 and p99 slowdown over all flows and per size bin,
// the p99 error against the baseline, wall and CPU seconds, CPU speed-up
// over packetsim, ns-3's estimated CPU seconds (from the baseline's
// packet-hops, DefaultNS3) and the estimator's speed-up over it,
// Parsimon's link simulations, share pruned and Parsimon/inf seconds.
func Table(outs []Outcome) *frame.Table {
	var (
		cases, ests                              []string
		loads, p50, p99s, errs, wall, cpu, speed []float64
		ns3cpu, ns3speed, pruned, infs, linkSims []float64
		flows                                    []int64
		binP99                                   = make([][]float64, Bins().Len())
		binErr                                   = make([][]float64, Bins().Len())
	)
	for _, o := range outs {
		base := o.Estimates[Baseline]
		ns3 := DefaultNS3.CPUSeconds(base.extra("packet_hops"))
		for _, name := range o.Case.Estimators {
			e := o.Estimates[name]
			if e == nil {
				continue
			}
			cases, ests, loads = append(cases, o.Case.Name()), append(ests, name), append(loads, o.Case.Load)
			flows = append(flows, int64(e.Flows))
			p50, p99s = append(p50, e.All[0]), append(p99s, e.All[p99])
			errs = append(errs, o.P99Error(name))
			wall, cpu = append(wall, e.WallSeconds), append(cpu, e.CPUSeconds)
			speed = append(speed, base.CPUSeconds/e.CPUSeconds)
			ns3cpu, ns3speed = append(ns3cpu, ns3), append(ns3speed, ns3/e.CPUSeconds)
			linkSims, pruned = append(linkSims, e.extra("link_sims")), append(pruned, e.PrunedShare())
			inf, ok := e.Timings["inf_s"]
			if !ok {
				inf = math.NaN()
			}
			infs = append(infs, inf)
			for b := range binP99 {
				binP99[b] = append(binP99[b], e.P[p99][b])
				binErr[b] = append(binErr[b], metrics.P99Error(e.P[p99][b], base.P[p99][b]))
			}
		}
	}
	t := &frame.Table{Columns: []frame.Column{
		frame.StringColumn("case", cases),
		frame.StringColumn("estimator", ests),
		frame.Float64Column("target_load", loads),
		frame.Int64Column("flows", flows),
		frame.Float64Column("p50", p50),
		frame.Float64Column("p99", p99s),
		frame.Float64Column("p99_error", errs),
		frame.Float64Column("wall_s", wall),
		frame.Float64Column("cpu_s", cpu),
		frame.Float64Column("cpu_speedup", speed),
		frame.Float64Column("ns3_cpu_s_est", ns3cpu),
		frame.Float64Column("ns3_speedup_est", ns3speed),
		frame.Float64Column("link_sims", linkSims),
		frame.Float64Column("pruned_share", pruned),
		frame.Float64Column("inf_s", infs),
	}}
	for b, l := range Bins().Labels {
		t.Columns = append(t.Columns,
			frame.Float64Column("p99["+l+"]", binP99[b]),
			frame.Float64Column("p99_error["+l+"]", binErr[b]))
	}
	return t
}

// Fig7 draws the Fig. 7 analogue of one outcome: per size bin, the CDFs of
// slowdown of every estimate (from their samples), zoomed on the tail
// above the 90th percentile.
func Fig7(o Outcome) (*plot.Figure, error) {
	var names []string
	var sets [][]metrics.Record
	for _, name := range o.Case.Estimators {
		if e := o.Estimates[name]; e != nil {
			names, sets = append(names, name), append(sets, e.Sample)
		}
	}
	return plot.SlowdownCDF(names, sets, Bins(), 0.9)
}
