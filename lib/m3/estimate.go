package m3

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"time"

	"github.com/tailscope/tailscope/lib/flowsim"
	"github.com/tailscope/tailscope/lib/internal/pool"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Name is the estimator name m3 records carry.
const Name = "m3"

// DefaultSamples is the number of paths drawn (m3 §3.2: 500 bound the p99
// error to about 10%).
const DefaultSamples = 500

// Options tune Run.
type Options struct {
	Samples         int    `json:"samples,omitempty"`          // paths drawn with replacement (DefaultSamples if 0)
	Seed            uint64 `json:"seed,omitempty"`             // path sampling and record assignment
	BackgroundHosts int    `json:"background_hosts,omitempty"` // per attachment group of a parking-lot switch (DefaultBackgroundHosts if 0)
	// Workers is the number of goroutines routing flows, simulating paths
	// and writing records (GOMAXPROCS if 0); the estimate does not depend
	// on it.
	Workers int `json:"workers,omitempty"`
	// ModelName names the model in options JSON (the m3 estimator loads
	// it into Model): "" the default embedded model, a name of
	// EmbeddedModels another embedded model, "none" flowSim alone (m3's
	// ablation), else the path of a model file written by
	// 'tailscope m3 train'. ModelDigest is the digest of that model
	// (Model.Digest; empty for "none"), filled in as the estimator's
	// options resolve so that a result of another model, such as the
	// embedded one before a retraining, is never taken for this one's;
	// set by hand, it must match. Run itself reads neither.
	ModelName   string `json:"model,omitempty"`
	ModelDigest string `json:"model_digest,omitempty"`
	// WindowCap caps every flow of the path simulations at its CC's
	// window per base round trip (flowsim.Options.WindowCap). A Model
	// brings the base it was trained on (ModelInfo.WindowCap), which Run
	// then uses; WindowCap set for a model trained without it is an
	// error.
	WindowCap bool `json:"window_cap,omitempty"`
	// Model corrects flowSim; nil uses flowSim's own percentiles (the
	// "flowSim only" ablation).
	Model *Model `json:"-"`
	// Emit, when set, receives every flow's record in flow order, and
	// Estimate.Records stays nil: a run of millions of flows then holds
	// a batch of records at a time, not all of them.
	Emit func(metrics.Record) error `json:"-"`
}

// Estimate is the outcome of Run.
type Estimate struct {
	Dist *Distribution
	// Records holds one record per flow whose slowdown is drawn from the
	// estimated distribution of its output bucket: m3 estimates
	// distributions, not individual FCTs, so per-flow values carry no
	// meaning beyond their bucket's distribution (see Run). None when
	// Options.Emit took them.
	Records []metrics.Record
	// Paths is the number of distinct paths, Simulated how many distinct
	// ones were drawn and simulated.
	Paths, Simulated int
	// Outside counts the simulated paths whose model input lies outside
	// the model's training range (Model.Outside), OutsideEntries names
	// the spec entries that did, sorted.
	Outside        int
	OutsideEntries []string
	// Stats is where the time and memory went.
	Stats Stats
}

// Stats is what a run cost: wall time per phase and the largest Go heap
// in use (runtime.MemStats.HeapInuse) at the end of any phase. Records
// and the decomposition's index are both alive at the end of the last
// phase, the heaviest point of a run.
type Stats struct {
	DecomposeSeconds float64 // routing, grouping into paths, channel index
	SimulateSeconds  float64 // parking lots, flowSim, feature maps, model
	RecordsSeconds   float64 // aggregation and per-flow records
	HeapBytes        uint64
}

// phase records the heap in use at the end of a phase.
func (s *Stats) phase() {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.HeapBytes = max(s.HeapBytes, m.HeapInuse)
}

// Run estimates the network-wide slowdown distributions of flows on net:
// decompose into paths, draw opts.Samples paths in proportion to their
// foreground flows, run flowSim on each drawn path's parking lot, correct
// the foreground percentiles with the model and pool them (Aggregate).
// Routing, the path simulations and the records are spread over
// opts.Workers goroutines; ctx cancels the run. A model refuses a cfg
// outside the space it was trained on (Model.Space, Space.Covers); with
// no model (flowSim alone) every cfg is answered, by a fluid max-min
// simulation that has no congestion control, ECN or buffers at all.
//
// For the common record shape, flow i of output bucket b gets slowdown
// Q_b((r_i + 0.5) / n_b), where Q_b interpolates bucket b's estimated
// percentiles, n_b is the bucket's number of flows and r_i the flow's rank
// in a seeded shuffle of the bucket; its FCT is its ideal FCT times that.
// Per-bucket percentiles of the records thus reproduce the estimate.
func Run(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, o Options) (*Estimate, error) {
	if err := workload.Check(net, flows); err != nil {
		return nil, fmt.Errorf("m3: %w", err)
	}
	if o.Model != nil {
		// Outside its training space a model's correction is an
		// unchecked extrapolation: refuse rather than answer silently.
		if err := o.Model.Space().Covers(cfg); err != nil {
			return nil, err
		}
		// A model corrects the one base it was trained on.
		if o.WindowCap && !o.Model.Info.WindowCap {
			return nil, fmt.Errorf("m3: window_cap asks for a window-capped flowSim, and the model corrects the plain one it was trained on")
		}
	}
	o = o.withDefaults()
	var st Stats
	t0 := time.Now()
	d, draws, todo, samples, err := simulateDrawn(ctx, net, flows, cfg, o, &st)
	if err != nil {
		return nil, err
	}
	// One batched prediction: a matrix product over all paths is much
	// cheaper than one matrix-vector product per path.
	est := make([]PathEstimate, len(todo))
	var pred [][][]float64
	var outside []string
	nOutside := 0
	if o.Model != nil {
		pred = o.Model.Predict(samples)
		for _, s := range samples {
			if names := o.Model.Outside(s); names != nil {
				nOutside++
				for _, n := range names {
					if !slices.Contains(outside, n) {
						outside = append(outside, n)
					}
				}
			}
		}
		slices.Sort(outside)
	}
	for i, s := range samples {
		est[i] = PathEstimate{Draws: draws[todo[i]], Count: s.Count, Percentiles: s.Base}
		if pred != nil {
			est[i].Percentiles = pred[i]
		}
	}
	st.phase()
	t2 := time.Now()
	bucket, count := buckets(flows)
	dist, err := Aggregate(est, count)
	if err != nil {
		return nil, err
	}
	recs, err := d.records(ctx, net, flows, cfg, dist, bucket, o.Seed, o.Workers, o.Emit)
	if err != nil {
		return nil, err
	}
	st.phase()
	st.SimulateSeconds = t2.Sub(t0).Seconds() - st.DecomposeSeconds
	st.RecordsSeconds = time.Since(t2).Seconds()
	return &Estimate{Dist: dist, Records: recs, Paths: d.NumPaths(), Simulated: len(todo), Outside: nOutside, OutsideEntries: outside, Stats: st}, nil
}

// withDefaults is o with its zero Samples and Workers set to their
// defaults and its model's flowSim base.
func (o Options) withDefaults() Options {
	if o.Model != nil {
		o.WindowCap = o.Model.Info.WindowCap
	}
	if o.Samples == 0 {
		o.Samples = DefaultSamples
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// simulateDrawn decomposes flows on net into paths, draws o.Samples of
// them (o.Seed) in proportion to their foreground flows and simulates
// each drawn path's parking lot with flowSim on o.Workers goroutines. It
// returns the decomposition, every path's draws, the drawn paths and
// their samples (in that order), and sets st's decomposition time.
func simulateDrawn(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, o Options, st *Stats) (*Decomposition, []int, []int, []*Sample, error) {
	t0 := time.Now()
	d, err := decompose(ctx, net, flows, o.Workers)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	draws, err := d.Sample(o.Samples, o.Seed)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	st.phase()
	st.DecomposeSeconds = time.Since(t0).Seconds()
	var todo []int
	for p, n := range draws {
		if n > 0 {
			todo = append(todo, p)
		}
	}
	// Largest parking lots first, so that no worker is left with a big
	// one at the end; a path's flows on its channels measure its size.
	work := make([]int, len(todo))
	for i, p := range todo {
		for _, c := range d.Channels(p) {
			work[i] += d.chanOff[c+1] - d.chanOff[c]
		}
	}
	order := make([]int, len(todo))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return work[order[a]] > work[order[b]] })
	samples := make([]*Sample, len(todo))
	err = parallel(ctx, o.Workers, len(order), func(k int) error {
		i := order[k]
		var err error
		samples[i], err = d.simulatePath(ctx, net, flows, cfg, todo[i], o.BackgroundHosts, flowsim.Options{WindowCap: o.WindowCap})
		return err
	})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return d, draws, todo, samples, nil
}

// parallel runs job(0..n-1) on up to workers goroutines (lib/internal/pool)
// and returns the error of the lowest-numbered job that failed, or ctx's
// error if it was cancelled.
func parallel(ctx context.Context, workers, n int, job func(i int) error) error {
	return pool.Run(ctx, n, pool.Options{Workers: workers}, func(_ context.Context, i int) error { return job(i) })
}

// simulatePath simulates path p with flowSim (fo) and returns its model
// input.
func (d *Decomposition) simulatePath(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, p, bgHosts int, fo flowsim.Options) (*Sample, error) {
	sim, err := d.PathSim(net, flows, p, bgHosts)
	if err != nil {
		return nil, err
	}
	recs, err := flowsim.Run(ctx, sim.Net, sim.Flows, cfg, fo)
	if err != nil {
		return nil, fmt.Errorf("m3: path %d: %w", p, err)
	}
	s := NewSample(sim, cfg, metrics.Slowdowns(recs), nil)
	s.WindowCap = fo.WindowCap
	return s, nil
}

// buckets returns the output bucket (M3OutputBins) of every flow and the
// number of flows in each bucket.
func buckets(flows []workload.Flow) (bucket []uint8, count []int) {
	out := metrics.M3OutputBins()
	bucket = make([]uint8, len(flows))
	count = make([]int, out.Len())
	for i, f := range flows {
		b := out.Index(f.Size)
		bucket[i] = uint8(b)
		count[b]++
	}
	return bucket, count
}

// records assigns every flow a slowdown from its bucket's distribution
// (see Run); bucket is buckets'. The ranks come from shuffling each
// bucket's flows in ascending order, bucket after bucket, with one
// generator; then chunks of flows are filled in parallel, each in flow
// order. With emit, the records are filled a batch of chunks at a time
// and handed to emit in flow order; records then returns none.
func (d *Decomposition) records(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, dist *Distribution,
	bucket []uint8, seed uint64, workers int, emit func(metrics.Record) error) ([]metrics.Record, error) {
	// A counting sort lays out every bucket's flows, ascending, in one array.
	off := make([]int, len(dist.Flows)+1)
	for b, n := range dist.Flows {
		off[b+1] = off[b] + n
	}
	next := slices.Clone(off)
	order := make([]int32, len(flows))
	for i, b := range bucket {
		order[next[b]] = int32(i)
		next[b]++
	}
	r := rand.New(rand.NewPCG(seed, 0x7265)) // "re"
	rank := make([]int32, len(flows))
	for b := range dist.Flows {
		idx := order[off[b]:off[b+1]]
		r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for k, i := range idx {
			rank[i] = int32(k)
		}
	}
	size := chunk(len(flows), workers)
	// fill fills recs with the records of flows lo, lo+1, ...
	fill := func(recs []metrics.Record, lo int) error {
		return parallel(ctx, workers, (len(recs)+size-1)/size, func(k int) error {
			var route []int
			for j := k * size; j < min((k+1)*size, len(recs)); j++ {
				recs[j] = d.record(net, flows, cfg, dist, bucket, rank, lo+j, &route)
			}
			return nil
		})
	}
	if emit == nil {
		recs := make([]metrics.Record, len(flows))
		if err := fill(recs, 0); err != nil {
			return nil, err
		}
		return recs, nil
	}
	batch := make([]metrics.Record, min(len(flows), 4*workers*size))
	for lo := 0; lo < len(flows); lo += len(batch) {
		recs := batch[:min(len(batch), len(flows)-lo)]
		if err := fill(recs, lo); err != nil {
			return nil, err
		}
		for _, r := range recs {
			if err := emit(r); err != nil {
				return nil, err
			}
		}
	}
	return nil, nil
}

// record is flow i's record (see records); route is scratch space for
// its route, kept between calls.
func (d *Decomposition) record(net *topo.Network, flows []workload.Flow, cfg netcfg.Config, dist *Distribution,
	bucket []uint8, rank []int32, i int, route *[]int) metrics.Record {
	f, b := flows[i], bucket[i]
	*route = (*route)[:0]
	for _, c := range d.Route(i) {
		*route = append(*route, int(c))
	}
	ideal := metrics.IdealFCT(net, *route, f.Size, cfg)
	u := (float64(rank[i]) + 0.5) / float64(dist.Flows[b])
	fct := max(int64(math.Round(float64(ideal)*at(dist.Buckets[b], u))), ideal)
	return metrics.Record{FlowID: f.ID, Src: f.Src, Dst: f.Dst, Size: f.Size, Start: f.Start,
		FCT: fct, Ideal: ideal, Slowdown: float64(fct) / float64(ideal), Class: f.Class}
}
