// Package pfs decomposes a flow-level simulation into independent chunks
// that run in parallel and merges their results, after pfs (Gupta et al.,
// "pfs: Parallelized, Flow-based Network Simulation"), on top of
// tailscope's max-min fair flow simulator (lib/flowsim).
//
// Temporal decomposition splits the flows into Temporal chunks by start
// time (equal windows over the span of starts). Spatial decomposition
// groups the source-destination pairs into Spatial chunks, each simulated
// on the sub-topology its flows use. Spatio-temporal decomposition does
// both: chunk (w, g) holds the flows of pair group g starting in window w.
// Every flow belongs to exactly one chunk, which reports its FCT record.
//
// Pre-processing (NewPlan) routes every flow and estimates when it is
// active without simulating: a flow of w wire bits on a path whose
// channels carry offered loads rho_l (over the span of starts) is taken
// to send for w / min_l(C_l (1 - rho_l)) after its start, the mean
// sojourn of an M/G/1 processor-sharing queue, which max-min sharing on a
// single bottleneck is. Two things follow from these estimated intervals:
//
//   - Boundary flows. A flow of the chunk's pair group that started in an
//     earlier window and is estimated to be active at the window's start
//     is injected there with its estimated remaining bytes, once per
//     window it reaches into. Injected flows load the chunk but report
//     nothing; the flow's record comes from its own chunk, which runs
//     until all its flows finish.
//   - Load from other spatial chunks. A chunk does not see the flows of
//     other pair groups, so on every channel it shares with them its
//     capacity is reduced by their offered load (Background "offered",
//     the default): C' = C (1 - rho_other), or C rho_own/rho when the
//     channel is overloaded (rho >= 1), at least MinShare C, with the
//     loads taken over the whole span of starts. For processor sharing
//     this keeps the mean sojourn time of the chunk's flows exact: with
//     background load rho_b removed and capacity scaled by (1 - rho_b),
//     the chunk's own load becomes rho_c/(1 - rho_b) and its mean sojourn
//     s/(C'(1 - rho_c/(1 - rho_b))) = s/(C(1 - rho_b - rho_c)), what it is
//     with the background present. An iterative fixed point on
//     time-averaged load would return the same numbers (a stable link
//     carries what is offered), so pfs uses the offered load directly, at
//     no simulation cost. What a constant reduction cannot capture is the
//     background's burstiness: the median slows a little and the tail
//     shrinks. Background "windowed" takes the others' load per temporal
//     window instead, from the estimated activity intervals: it follows
//     the load over time and brings the tail closer with enough flows per
//     window, but windows with few flows of bursty traffic overshoot (see
//     BENCHMARKS.md). Background "none" runs chunks on full capacities, as
//     a spatial chunk of the pfs paper does when it shares no links.
//
// Accuracy follows the paper: the root mean square error of the bytes all
// destinations receive per time bin against the serial run (flowsim.Meter
// measures both exactly), plus the errors of the p50 and p99 FCT slowdown
// per size bin. Speed is reported as measured wall time with real
// parallel workers and, since few cores may be at hand, as the critical
// path (pre-processing plus the longest chunk) and the sum over chunks.
//
// Chunks are plain data (Chunk, JSON-serializable): RunChunk runs one
// anywhere, and lib/experiment's pfs-chunk task kind makes each an
// experiment task for the local pool or Slurm arrays.
package pfs

import (
	"context"
	"fmt"
	"runtime"
	"time"

	"github.com/tailscope/tailscope/lib/flowsim"
	"github.com/tailscope/tailscope/lib/internal/pool"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Name is the estimator name pfs records carry.
const Name = "pfs"

// Background modes: how a spatial chunk accounts for the load other
// chunks put on the channels it shares with them.
const (
	BackgroundOffered  = "offered"  // capacity reduced by the others' offered load over the run (default)
	BackgroundWindowed = "windowed" // ... by their estimated offered load in the chunk's window
	BackgroundNone     = "none"     // full capacity, as if the others were absent
)

// Options choose the decomposition.
type Options struct {
	// Temporal is the number of windows of start time (0 or 1: none).
	Temporal int `json:"temporal,omitempty"`
	// Spatial is the number of source-destination pair groups (0 or 1:
	// none); at most the number of pairs is used.
	Spatial int `json:"spatial,omitempty"`
	// Background is BackgroundOffered (default when empty),
	// BackgroundWindowed or BackgroundNone.
	Background string `json:"background,omitempty"`
	// MinShare is the smallest fraction of a channel's capacity a
	// background reduction leaves (default 0.05).
	MinShare float64 `json:"min_share,omitempty"`
	// BinNs is the width of the received-bytes bins; 0 chooses the span
	// of starts / 200, rounded up to a microsecond.
	BinNs int64 `json:"bin_ns,omitempty"`
	// Workers is the number of chunks simulated at once (0:
	// runtime.NumCPU()).
	Workers int `json:"workers,omitempty"`
	// HostRateBps, when positive, caps every flow (flowsim.Options).
	HostRateBps int64 `json:"host_rate_bps,omitempty"`
}

func (o Options) withDefaults() Options {
	o.Temporal, o.Spatial = max(o.Temporal, 1), max(o.Spatial, 1)
	if o.Background == "" {
		o.Background = BackgroundOffered
	}
	if o.MinShare == 0 {
		o.MinShare = 0.05
	}
	return o
}

func (o Options) check() error {
	switch {
	case o.Temporal < 0 || o.Spatial < 0:
		return fmt.Errorf("pfs: chunk counts must not be negative, got temporal %d, spatial %d", o.Temporal, o.Spatial)
	case o.Background != "" && o.Background != BackgroundOffered && o.Background != BackgroundWindowed && o.Background != BackgroundNone:
		return fmt.Errorf("pfs: unknown background mode %q (known: %s, %s, %s)", o.Background, BackgroundOffered, BackgroundWindowed, BackgroundNone)
	case o.MinShare < 0 || o.MinShare > 1:
		return fmt.Errorf("pfs: min_share must be in [0, 1], got %g", o.MinShare)
	case o.BinNs < 0 || o.Workers < 0 || o.HostRateBps < 0:
		return fmt.Errorf("pfs: bin_ns, workers and host_rate_bps must not be negative")
	}
	return nil
}

// Result is a decomposed run merged.
type Result struct {
	// Records holds one record per flow, in the order of the flows.
	Records []metrics.Record
	// Received is the bytes each destination received per bin.
	Received *Series
	// Chunks is the number of chunks; Injected the boundary flows
	// injected over all of them.
	Chunks, Injected int
	// PrepSeconds is the pre-processing time (routing, estimates,
	// chunking); ChunkSeconds each chunk's simulation time;
	// MergeSeconds the merge.
	PrepSeconds  float64
	ChunkSeconds []float64
	MergeSeconds float64
	// WallSeconds is the whole run with Workers parallel workers,
	// pre-processing and merge included.
	WallSeconds float64
	Workers     int
}

// SumSeconds is pre-processing plus every chunk plus the merge: the run
// on one worker.
func (r *Result) SumSeconds() float64 {
	s := r.PrepSeconds + r.MergeSeconds
	for _, c := range r.ChunkSeconds {
		s += c
	}
	return s
}

// CriticalSeconds is pre-processing plus the longest chunk plus the
// merge: the run with at least as many workers as chunks.
func (r *Result) CriticalSeconds() float64 {
	var m float64
	for _, c := range r.ChunkSeconds {
		m = max(m, c)
	}
	return r.PrepSeconds + m + r.MergeSeconds
}

// Run decomposes flows on net as opts says, simulates the chunks on
// opts.Workers goroutines and merges them. Flows must pass workload.Check.
func Run(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, opts Options) (*Result, error) {
	t0 := time.Now()
	plan, err := NewPlan(net, flows, cfg, opts)
	if err != nil {
		return nil, err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	results := make([]*ChunkResult, len(plan.Chunks))
	err = pool.Run(ctx, len(plan.Chunks), pool.Options{Workers: workers, Order: plan.Order()}, func(_ context.Context, i int) error {
		var err error
		results[i], err = RunChunk(&plan.Chunks[i])
		return err
	})
	if err != nil {
		return nil, err
	}
	t1 := time.Now()
	res, err := plan.Merge(results)
	if err != nil {
		return nil, err
	}
	res.MergeSeconds = time.Since(t1).Seconds()
	res.WallSeconds = time.Since(t0).Seconds()
	res.Workers = workers
	return res, nil
}

// Serial runs flows on net with flowsim.Run, metering the same
// destination channels a plan with these options would: the baseline pfs
// is measured against. Its WallSeconds is flowsim's whole run.
func Serial(net *topo.Network, flows []workload.Flow, cfg netcfg.Config, opts Options) (*Result, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	if err := workload.Check(net, flows); err != nil {
		return nil, fmt.Errorf("pfs: %w", err)
	}
	t0 := time.Now()
	sinks, hosts := sinkChannels(net, nil)
	m := &flowsim.Meter{BinNs: binWidth(flows, opts.BinNs), Links: sinks}
	// The baseline runs to its end, as pfs.Run's chunks do.
	recs, err := flowsim.Run(context.Background(), net, flows, cfg, flowsim.Options{HostRateBps: opts.HostRateBps, Meter: m})
	if err != nil {
		return nil, err
	}
	wall := time.Since(t0).Seconds()
	s := newSeries(m.BinNs, hosts)
	if err := s.add(hosts, m.Bits); err != nil {
		return nil, fmt.Errorf("pfs: %w", err)
	}
	return &Result{Records: recs, Received: s, Chunks: 1, ChunkSeconds: []float64{wall}, WallSeconds: wall, Workers: 1}, nil
}
