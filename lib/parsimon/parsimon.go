// Package parsimon estimates flow-completion-time distributions with the
// link-level decomposition of Parsimon (Zhao et al., NSDI 2023, §3-4 and
// App. D; constants in REFERENCE.md).
//
// Run decomposes a workload over the directed channels of its flows' ECMP
// paths (Decompose), builds for every busy channel a small link-level
// topology that keeps round-trip times, with un-inflated first hops,
// inflated downstream links and ACK-corrected bandwidths (Decomposition.Task),
// optionally clusters channels with similar workloads so that only one
// representative per cluster is simulated (Cluster), runs the link-level
// simulations on a worker pool (RunTasks; each Task is plain data, so it
// could equally run elsewhere) with a Backend, by default the dedicated
// link-level simulator of lib/linksim (Parsimon §4.1), buckets each
// channel's packet-normalized delays by flow size (NewBuckets) and answers
// FCT queries by Monte-Carlo convolution over a flow's path (DelayNet).
//
// The approximations are the paper's and bias estimates upwards: no
// upstream fan-in or cross-traffic smoothing, independent hops, and delays
// of simultaneous bottlenecks added up. Two defaults depart from the
// published method, each chosen on a tuning half of the accuracy atlas
// and measured on the other: a sparse channel (fewer flows than B) is
// bucketed with a smaller B (Options.SparseBucketSize), and the delay a
// window adds to a lone flow is charged once per path rather than at
// every hop (Options.WindowOnce). {"sparse_bucket_size":100,
// "window_once":false} is the published method.
package parsimon

import (
	"context"
	"fmt"
	"time"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/internal/pool"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Options configure Run. Zero fields take the defaults.
type Options struct {
	// BackendName names the link-level backend (Backends); Backend, when
	// set, takes precedence, and with neither the default is LinkSim.
	// It is the estimator's "backend" option.
	BackendName string `json:"backend,omitempty"`
	// Workers is the size of the pools that route the flows and run the
	// link simulations (default runtime.NumCPU()).
	Workers int `json:"workers,omitempty"`
	// Seed seeds the Monte-Carlo convolution.
	Seed uint64 `json:"seed,omitempty"`
	// Cluster turns on clustering and pruning (Parsimon/C) with the
	// thresholds ClusterOptions; the estimator parsimon-c sets it and
	// takes the thresholds' JSON fields inline beside these.
	Cluster        bool           `json:"-"`
	ClusterOptions ClusterOptions `json:"-"`
	// BucketSize and BucketRatio are B and x of the bucketing (100, 2).
	BucketSize  int     `json:"bucket_size,omitempty"`
	BucketRatio float64 `json:"bucket_ratio,omitempty"`
	// SparseBucketSize is the B of a sparse channel's bucketing, one that
	// carries fewer than BucketSize flows (DefaultSparseBucketSize; x
	// stays BucketRatio). With B itself, as published, such a channel's
	// delays form one bucket for all sizes, and a long flow drawing a
	// short flow's packet-normalized delay multiplies it by its own
	// packet count: Parsimon's large-flow p99 was 4-8 times packetsim's
	// at 10k-20k flows on 32-rack fabrics. A value >= BucketSize gives
	// the published bucketing. A bucket still spans a factor x of sizes
	// at least, so a long flow draws from flows of its own size range.
	SparseBucketSize int `json:"sparse_bucket_size,omitempty"`
	// Inflation is the speed-up of inflated downstream links (10).
	Inflation float64 `json:"inflation,omitempty"`
	// WindowOnce charges the delay a congestion control's window adds to
	// a lone flow (LoneWindowDelay) once per path, not once per link:
	// each link simulation keeps the round trip, so a window below the
	// path's bandwidth-delay product, or stock TCP's slow start, delays
	// the flow again at every hop (TestWindowDelayPerHop). nil takes
	// DefaultWindowOnce; false is the method as published. Where the
	// window does not hold a lone flow below line rate it changes
	// nothing.
	WindowOnce *bool `json:"window_once,omitempty"`
	// Backend runs the link-level simulations (default: BackendName's).
	Backend Backend `json:"-"`
	// Progress, when set, gets how many link simulations are done (and a
	// warning when links are sparse, see Result.Sparse).
	Progress progress.Reporter `json:"-"`
	// Links, when set, runs the link simulations instead of the in-process
	// pool (RunTasks with Backend, Workers and Progress): lib/experiment's
	// ParsimonLinks sends them as tasks to the local pool or Slurm.
	Links LinkRunner `json:"-"`
	// Emit, when set, receives every flow's record in flow order as the
	// convolution draws it, and Result.Records stays nil: a run of
	// millions of flows need not hold them.
	Emit func(metrics.Record) error `json:"-"`
}

// Links is the set of link-level simulations of a run. Their tasks are
// built on demand (Task), so that a run holds only the tasks in flight:
// built all at once they took about 0.8 KB per flow, most of a run's
// memory.
type Links struct {
	D         *Decomposition
	Channels  []int // the channels to simulate, each crossed by flows
	Inflation float64
	// WindowOnce marks every task so (Options.WindowOnce, resolved).
	WindowOnce bool
	// Backend names the run's link-level backend (Backends), so that a
	// runner in another process can run the tasks with it; "" when the
	// run was given a Backend function of its own, which only the
	// in-process pool can run.
	Backend string
}

// Task builds the link-level simulation of Channels[i].
func (l Links) Task(i int) (*Task, error) {
	t, err := l.D.Task(l.Channels[i], l.Inflation)
	if err == nil && t == nil {
		err = fmt.Errorf("parsimon: channel %d carries no flow to simulate", l.Channels[i])
	}
	if t != nil {
		t.WindowOnce = l.WindowOnce
	}
	return t, err
}

// Packets is the work of Channels[i]'s simulation: its flows' packets.
func (l Links) Packets(i int) int64 { return l.D.packets[l.Channels[i]] }

// LinkRunner runs the link-level simulations of links and hands every
// result to done, one call at a time, in any order; an error from done
// ends the run with that error.
type LinkRunner func(ctx context.Context, links Links, done func(i int, r *TaskResult) error) error

func (o Options) withDefaults() Options {
	if o.BucketSize == 0 {
		o.BucketSize = DefaultBucketSize
	}
	if o.BucketRatio == 0 {
		o.BucketRatio = DefaultBucketRatio
	}
	if o.SparseBucketSize == 0 {
		o.SparseBucketSize = DefaultSparseBucketSize
	}
	if o.WindowOnce == nil {
		once := DefaultWindowOnce
		o.WindowOnce = &once
	}
	if o.Inflation == 0 {
		o.Inflation = DefaultInflation
	}
	if o.Backend == nil {
		o.Backend, o.BackendName = LinkSim, Backends[0]
	}
	o.ClusterOptions = o.ClusterOptions.withDefaults()
	if o.Links == nil {
		o.Links = func(ctx context.Context, links Links, done func(int, *TaskResult) error) error {
			return RunTasks(ctx, links, o.Backend, o.Workers, o.Progress, done)
		}
	}
	return o
}

// bucketSize is the B of a channel whose simulation has n records:
// SparseBucketSize on a sparse channel (fewer than BucketSize), else
// BucketSize.
func (o Options) bucketSize(n int) int {
	if n < o.BucketSize {
		return min(o.SparseBucketSize, o.BucketSize)
	}
	return o.BucketSize
}

// named sets o.Backend from o.BackendName when only the name is given.
func (o Options) named() (Options, error) {
	if o.Backend != nil || o.BackendName == "" {
		return o, nil
	}
	b, err := BackendByName(o.BackendName)
	o.Backend = b
	return o, err
}

// ChannelStat describes one channel of a run.
type ChannelStat struct {
	Channel   int
	Kind      Kind
	Bandwidth int64   // bps
	AckBps    float64 // ACK rate subtracted from the bandwidth
	Load      float64 // payload load over the span of all flow starts
	Flows     int
	// Representative is the channel whose simulation stands for this one:
	// itself when simulated, -1 when no flow crosses it.
	Representative int
	WallSeconds    float64 // its link simulation's wall time (0 if pruned)
}

// Result is the outcome of Run.
type Result struct {
	// Records holds one estimate per flow, in flow order (none when
	// Options.Emit took them).
	Records  []metrics.Record
	Net      *DelayNet
	Channels []ChannelStat
	// Simulated and Pruned count the busy channels that were simulated
	// and those that took a representative's delays instead.
	Simulated, Pruned int
	// Sparse counts the simulated channels that carry fewer flows than the
	// bucket size B. With the published bucketing all their flows share
	// one delay bucket, so a long flow draws short flows' per-packet
	// delays and Parsimon overestimates it (BENCHMARKS.md: 20k flows on
	// matrix A); by default they are bucketed with SparseBucketSize
	// instead. Run warns on Progress.
	Sparse int
	// Wall times in seconds: decomposition and clustering; the link
	// simulation pool (building each task, simulating it, bucketing its
	// delays); convolution; and the longest single link simulation.
	SetupSeconds, SimSeconds, ConvolveSeconds, LongestSimSeconds float64
}

// InfSeconds is the Parsimon/inf figure: the run time with unlimited cores,
// the longest link simulation plus the fixed costs of setup and
// convolution.
func (r *Result) InfSeconds() float64 {
	return r.SetupSeconds + r.LongestSimSeconds + r.ConvolveSeconds
}

// Run estimates the FCT of every flow on net under cfg with Parsimon.
func Run(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, opts Options) (*Result, error) {
	byName := opts.Backend == nil
	opts, err := opts.named()
	if err != nil {
		return nil, err
	}
	o := opts.withDefaults()
	if err := o.ClusterOptions.validate(); err != nil {
		return nil, err
	}
	if o.SparseBucketSize < 1 {
		return nil, fmt.Errorf("parsimon: sparse bucket size %d; it must be >= 1", o.SparseBucketSize)
	}
	t0 := time.Now()
	d, err := decompose(ctx, net, flows, cfg, o.Workers)
	if err != nil {
		return nil, err
	}
	loads, err := d.loads()
	if err != nil {
		return nil, fmt.Errorf("parsimon: %w", err)
	}
	res := &Result{Channels: make([]ChannelStat, len(net.Channels))}
	var busy []int
	for c, ch := range net.Channels {
		res.Channels[c] = ChannelStat{
			Channel: c, Kind: d.Kind(c), Bandwidth: ch.Bandwidth, AckBps: d.AckBps[c],
			Load: loads.Channel[c], Flows: len(d.On(c)), Representative: -1,
		}
		if len(d.On(c)) > 0 {
			busy = append(busy, c)
			res.Channels[c].Representative = c
		}
	}
	if o.Cluster {
		// The channels' features on the run's workers: serial, they were
		// most of Parsimon/C's setup at millions of flows.
		feats := make([]Features, len(busy))
		err := pool.Run(ctx, len(busy), pool.Options{Workers: o.Workers}, func(ctx context.Context, i int) error {
			c := busy[i]
			on := d.On(c)
			sizes, starts := make([]int64, len(on)), make([]int64, len(on))
			for j, fi := range on {
				sizes[j], starts[j] = flows[fi].Size, flows[fi].Start
			}
			feats[i] = NewFeatures(d.Kind(c), net.Channels[c].Bandwidth, loads.Channel[c], sizes, starts, o.ClusterOptions.Quantiles)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("parsimon: interrupted: %w", err)
		}
		rep, err := Cluster(ctx, feats, o.ClusterOptions)
		if err != nil {
			return nil, err
		}
		for i, c := range busy {
			res.Channels[c].Representative = busy[rep[i]]
		}
	}
	links := Links{D: d, Inflation: o.Inflation, WindowOnce: *o.WindowOnce}
	if byName {
		links.Backend = o.BackendName
	}
	for _, c := range busy {
		if res.Channels[c].Representative != c {
			res.Pruned++
			continue
		}
		links.Channels = append(links.Channels, c)
		if len(d.On(c)) < o.BucketSize {
			res.Sparse++
		}
	}
	res.Simulated = len(links.Channels)
	switch sb := o.bucketSize(0); {
	case res.Sparse > 0 && sb >= o.BucketSize:
		progress.Report(o.Progress, 0, res.Simulated, fmt.Sprintf("warning: %d of %d simulated links carry fewer than B = %d flows, so their delays form one bucket for all sizes and large flows are overestimated; use more flows or a smaller sparse_bucket_size",
			res.Sparse, res.Simulated, o.BucketSize))
	case res.Sparse > 0:
		progress.Report(o.Progress, 0, res.Simulated, fmt.Sprintf("warning: %d of %d simulated links carry fewer than B = %d flows; their delays are bucketed by size with B = %d (sparse_bucket_size), each bucket drawn from few flows; use more flows for a steadier tail",
			res.Sparse, res.Simulated, o.BucketSize, sb))
	}
	res.SetupSeconds = time.Since(t0).Seconds()

	// Each result is bucketed as it arrives and dropped, so the run never
	// holds every channel's raw delays either.
	t1 := time.Now()
	res.Net = NewDelayNet(net, cfg)
	res.Net.WindowOnce = *o.WindowOnce
	res.Net.Workers = o.Workers
	got := 0
	err = o.Links(ctx, links, func(i int, tr *TaskResult) error {
		c := links.Channels[i]
		if tr.Channel != c || len(tr.Delays) != len(d.On(c)) || len(tr.Sizes) != len(tr.Delays) {
			return fmt.Errorf("parsimon: link simulation result for channel %d holds %d delays; channel %d carries %d flows", tr.Channel, len(tr.Delays), c, len(d.On(c)))
		}
		if res.Net.Channel[c] != nil {
			return fmt.Errorf("parsimon: two link simulation results for channel %d", c)
		}
		res.Channels[c].WallSeconds = tr.WallSeconds
		res.LongestSimSeconds = max(res.LongestSimSeconds, tr.WallSeconds)
		pn := make([]float64, len(tr.Delays))
		for i, dl := range tr.Delays {
			pn[i] = float64(dl) / float64(cfg.Packets(tr.Sizes[i]))
		}
		b, err := NewBuckets(tr.Sizes, pn, o.bucketSize(len(tr.Sizes)), o.BucketRatio)
		if err != nil {
			return fmt.Errorf("parsimon: channel %d: %w", c, err)
		}
		res.Net.Channel[c] = b
		got++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if got != len(links.Channels) {
		return nil, fmt.Errorf("parsimon: %d link simulation results for %d channels", got, len(links.Channels))
	}
	res.SimSeconds = time.Since(t1).Seconds()

	t2 := time.Now()
	for _, c := range busy {
		res.Net.Channel[c] = res.Net.Channel[res.Channels[c].Representative]
	}
	if o.Emit != nil {
		err = res.Net.emitFlows(ctx, flows, d, o.Seed, o.Emit)
	} else {
		res.Records, err = res.Net.estimateFlows(ctx, flows, d, o.Seed)
	}
	if err != nil {
		return nil, err
	}
	res.ConvolveSeconds = time.Since(t2).Seconds()
	return res, nil
}

// ctxEvery is how many flows (or channels) the long loops of a run handle
// between two looks at its context: a few milliseconds of work at
// 400k flows, and no measurable cost.
const ctxEvery = 4096

// interrupted is ctx's error, if it is done, as Run reports it.
func interrupted(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("parsimon: interrupted: %w", err)
	}
	return nil
}

// ChannelsTable returns the per-channel frame of a run: channel id, its
// link-level shape, bandwidth, ACK rate, load, number of flows, cluster
// representative (-1 for idle channels) and link simulation wall time.
func (r *Result) ChannelsTable() *frame.Table {
	n := len(r.Channels)
	id, bw, flows, rep := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	ack, load, wall := make([]float64, n), make([]float64, n), make([]float64, n)
	kind := make([]string, n)
	for i, c := range r.Channels {
		id[i], bw[i], flows[i], rep[i] = int64(c.Channel), c.Bandwidth, int64(c.Flows), int64(c.Representative)
		ack[i], load[i], wall[i], kind[i] = c.AckBps, c.Load, c.WallSeconds, c.Kind.String()
	}
	return &frame.Table{Columns: []frame.Column{
		frame.Int64Column(frame.ColChannelID, id),
		frame.StringColumn(frame.ColKind, kind),
		frame.Int64Column(frame.ColBandwidth, bw),
		frame.Float64Column("ack_bps", ack),
		frame.Float64Column("load", load),
		frame.Int64Column("flows", flows),
		frame.Int64Column("representative", rep),
		frame.Float64Column("wall_seconds", wall),
	}}
}

// Bool returns a pointer to b, for Options.WindowOnce.
func Bool(b bool) *bool { return &b }
