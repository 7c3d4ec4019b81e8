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

	"golang.org/x/sync/errgroup"

	"github.com/tailscope/tailscope/lib/flowsim"
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
	Samples         int    // paths drawn with replacement (DefaultSamples if 0)
	Seed            uint64 // path sampling and record assignment
	BackgroundHosts int    // per parking-lot switch (DefaultBackgroundHosts if 0)
	// Workers is the number of goroutines routing flows, simulating paths
	// and writing records (GOMAXPROCS if 0); the estimate does not depend
	// on it.
	Workers int
	// Model corrects flowSim; nil uses flowSim's own percentiles (the
	// "flowSim only" ablation).
	Model *Model
}

// Estimate is the outcome of Run.
type Estimate struct {
	Dist *Distribution
	// Records holds one record per flow whose slowdown is drawn from the
	// estimated distribution of its output bucket: m3 estimates
	// distributions, not individual FCTs, so per-flow values carry no
	// meaning beyond their bucket's distribution (see Run).
	Records []metrics.Record
	// Paths is the number of distinct paths, Simulated how many distinct
	// ones were drawn and simulated.
	Paths, Simulated int
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
// opts.Workers goroutines; ctx cancels the run.
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
	if o.Samples == 0 {
		o.Samples = DefaultSamples
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	var st Stats
	t0 := time.Now()
	d, err := decompose(ctx, net, flows, o.Workers)
	if err != nil {
		return nil, err
	}
	draws, err := d.Sample(o.Samples, o.Seed)
	if err != nil {
		return nil, err
	}
	st.phase()
	t1 := time.Now()
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
		samples[i], err = d.simulatePath(net, flows, cfg, todo[i], o.BackgroundHosts)
		return err
	})
	if err != nil {
		return nil, err
	}
	// One batched prediction: a matrix product over all paths is much
	// cheaper than one matrix-vector product per path.
	est := make([]PathEstimate, len(todo))
	var pred [][][]float64
	if o.Model != nil {
		pred = o.Model.Predict(samples)
	}
	for i, s := range samples {
		est[i] = PathEstimate{Draws: draws[todo[i]], Count: s.Count, Percentiles: s.Base}
		if pred != nil {
			est[i].Percentiles = pred[i]
		}
	}
	st.phase()
	t2 := time.Now()
	byBucket, off := bucketOrder(flows)
	count := make([]int, len(off)-1)
	for b := range count {
		count[b] = off[b+1] - off[b]
	}
	dist, err := Aggregate(est, count)
	if err != nil {
		return nil, err
	}
	recs, err := d.records(ctx, net, flows, cfg, dist, byBucket, off, o.Seed, o.Workers)
	if err != nil {
		return nil, err
	}
	st.phase()
	st.DecomposeSeconds, st.SimulateSeconds, st.RecordsSeconds = t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds(), time.Since(t2).Seconds()
	return &Estimate{Dist: dist, Records: recs, Paths: d.NumPaths(), Simulated: len(todo), Stats: st}, nil
}

// parallel runs job(0..n-1) on up to workers goroutines (the errgroup
// pattern of the other estimators) and returns the error of the
// lowest-numbered job that failed, or ctx's error if it was cancelled;
// jobs not yet started when one fails or ctx ends do not run.
func parallel(ctx context.Context, workers, n int, job func(i int) error) error {
	errs := make([]error, n)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i := range n {
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			errs[i] = job(i)
			return errs[i]
		})
	}
	werr := g.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if werr != nil {
		return werr
	}
	return ctx.Err()
}

// simulatePath simulates path p with flowSim and returns its model input.
func (d *Decomposition) simulatePath(net *topo.Network, flows []workload.Flow, cfg netcfg.Config, p, bgHosts int) (*Sample, error) {
	sim, err := d.PathSim(net, flows, p, bgHosts)
	if err != nil {
		return nil, err
	}
	recs, err := flowsim.Run(sim.Net, sim.Flows, cfg, flowsim.Options{})
	if err != nil {
		return nil, fmt.Errorf("m3: path %d: %w", p, err)
	}
	return NewSample(sim, cfg, metrics.Slowdowns(recs), nil), nil
}

// bucketOrder sorts flow indices by output bucket (a counting sort,
// ascending within a bucket): bucket b's flows are order[off[b]:off[b+1]].
func bucketOrder(flows []workload.Flow) (order []int32, off []int) {
	out := metrics.M3OutputBins()
	bucket := make([]uint8, len(flows))
	off = make([]int, out.Len()+1)
	for i, f := range flows {
		b := out.Index(f.Size)
		bucket[i] = uint8(b)
		off[b+1]++
	}
	for b := range out.Len() {
		off[b+1] += off[b]
	}
	next := slices.Clone(off[:out.Len()])
	order = make([]int32, len(flows))
	for i, b := range bucket {
		order[next[b]] = int32(i)
		next[b]++
	}
	return order, off
}

// records assigns every flow a slowdown from its bucket's distribution
// (see Run); order and off are bucketOrder's. The shuffles run in bucket
// order from one generator, then chunks of each bucket's ranks are filled
// in parallel.
func (d *Decomposition) records(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, dist *Distribution,
	order []int32, off []int, seed uint64, workers int) ([]metrics.Record, error) {
	r := rand.New(rand.NewPCG(seed, 0x7265)) // "re"
	type job struct{ b, lo, hi int }         // ranks lo..hi-1 of bucket b
	var jobs []job
	size := chunk(len(flows), workers)
	for b := range len(off) - 1 {
		idx := order[off[b]:off[b+1]]
		r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for lo := 0; lo < len(idx); lo += size {
			jobs = append(jobs, job{b, lo, min(lo+size, len(idx))})
		}
	}
	recs := make([]metrics.Record, len(flows))
	err := parallel(ctx, workers, len(jobs), func(k int) error {
		c := jobs[k]
		idx := order[off[c.b]:off[c.b+1]]
		var route []int
		for rank := c.lo; rank < c.hi; rank++ {
			i := int(idx[rank])
			f := flows[i]
			route = route[:0]
			for _, ch := range d.Route(i) {
				route = append(route, int(ch))
			}
			ideal := metrics.IdealFCT(net, route, f.Size, cfg)
			fct := int64(math.Round(float64(ideal) * at(dist.Buckets[c.b], (float64(rank)+0.5)/float64(len(idx)))))
			fct = max(fct, ideal)
			recs[i] = metrics.Record{FlowID: f.ID, Src: f.Src, Dst: f.Dst, Size: f.Size, Start: f.Start,
				FCT: fct, Ideal: ideal, Slowdown: float64(fct) / float64(ideal), Class: f.Class}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}
