package m3

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

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
	Workers         int    // path simulations in parallel (GOMAXPROCS if 0)
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
}

// Run estimates the network-wide slowdown distributions of flows on net:
// decompose into paths, draw opts.Samples paths in proportion to their
// foreground flows, run flowSim on each drawn path's parking lot, correct
// the foreground percentiles with the model and pool them (Aggregate).
//
// For the common record shape, flow i of output bucket b gets slowdown
// Q_b((r_i + 0.5) / n_b), where Q_b interpolates bucket b's estimated
// percentiles, n_b is the bucket's number of flows and r_i the flow's rank
// in a seeded shuffle of the bucket; its FCT is its ideal FCT times that.
// Per-bucket percentiles of the records thus reproduce the estimate.
func Run(net *topo.Network, flows []workload.Flow, cfg netcfg.Config, o Options) (*Estimate, error) {
	if err := workload.Check(net, flows); err != nil {
		return nil, fmt.Errorf("m3: %w", err)
	}
	if o.Samples == 0 {
		o.Samples = DefaultSamples
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	d, err := Decompose(net, flows)
	if err != nil {
		return nil, err
	}
	draws, err := d.Sample(o.Samples, o.Seed)
	if err != nil {
		return nil, err
	}
	var todo []int
	for p, n := range draws {
		if n > 0 {
			todo = append(todo, p)
		}
	}
	samples := make([]*Sample, len(todo))
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	next := make(chan int)
	for range o.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				samples[i], errs[i] = d.simulatePath(net, flows, cfg, todo[i], o.BackgroundHosts)
			}
		}()
	}
	for i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
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
	out := metrics.M3OutputBins()
	count := make([]int, out.Len())
	for _, f := range flows {
		count[out.Index(f.Size)]++
	}
	dist, err := Aggregate(est, count)
	if err != nil {
		return nil, err
	}
	recs, err := d.records(net, flows, cfg, dist, o.Seed)
	if err != nil {
		return nil, err
	}
	return &Estimate{Dist: dist, Records: recs, Paths: len(d.Paths), Simulated: len(todo)}, nil
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

// records assigns every flow a slowdown from its bucket's distribution
// (see Run).
func (d *Decomposition) records(net *topo.Network, flows []workload.Flow, cfg netcfg.Config, dist *Distribution, seed uint64) ([]metrics.Record, error) {
	out := metrics.M3OutputBins()
	byBucket := make([][]int, out.Len())
	for i, f := range flows {
		b := out.Index(f.Size)
		byBucket[b] = append(byBucket[b], i)
	}
	r := rand.New(rand.NewPCG(seed, 0x7265)) // "re"
	recs := make([]metrics.Record, len(flows))
	for b, idx := range byBucket {
		r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for rank, i := range idx {
			f := flows[i]
			ideal := metrics.IdealFCT(net, d.routes[i], f.Size, cfg)
			fct := int64(math.Round(float64(ideal) * at(dist.Buckets[b], (float64(rank)+0.5)/float64(len(idx)))))
			fct = max(fct, ideal)
			recs[i] = metrics.Record{FlowID: f.ID, Src: f.Src, Dst: f.Dst, Size: f.Size, Start: f.Start,
				FCT: fct, Ideal: ideal, Slowdown: float64(fct) / float64(ideal), Class: f.Class}
		}
	}
	return recs, nil
}
