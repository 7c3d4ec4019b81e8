package workload

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"github.com/tailscope/tailscope/lib/internal/memlimit"
	"github.com/tailscope/tailscope/lib/topo"
)

// Spec describes a workload: one or more components, each with its own
// traffic matrix, size distribution, arrival process and target load,
// generated for a number of flows or a duration.
type Spec struct {
	Components []Component `json:"components"`
	// Flows is the number of flows of a single-component workload. The
	// arrival times are then scaled so that the most loaded channel carries
	// exactly MaxLoad over the span of the starts.
	Flows int `json:"flows,omitempty"`
	// DurationNs generates arrivals for this long instead; each component's
	// arrival rate is estimated from a pilot sample of 200k flows, so that
	// MaxLoad is the long-run load of the busiest channel. Mixed workloads
	// need it. Over a short duration the realized load of the busiest
	// channel is the maximum of noisy per-channel loads and can far exceed
	// MaxLoad with heavy-tailed sizes (a few 30 MB Hadoop flows in a 5 ms
	// window); use Flows, which scales arrivals to the realized load, when
	// the exact load of one run matters.
	DurationNs int64 `json:"duration_ns,omitempty"`
}

// Component is one workload of a (possibly mixed) workload, Parsimon App. A.
type Component struct {
	Name string `json:"name,omitempty"`
	// Matrix is "A", "B" or "C" (Meta rack-to-rack matrices for 32- or
	// 384-rack fabrics), "uniform", or the path of a matrix CSV. Ignored when
	// Pairs is set.
	Matrix string `json:"matrix,omitempty"`
	// Pairs, when set, lists the (src, dst) host pairs flows are drawn from,
	// uniformly: for dumbbells and parking lots.
	Pairs   [][2]int `json:"pairs,omitempty"`
	Sizes   SizeSpec `json:"sizes"`
	Arrival Arrival  `json:"arrival"`
	// MaxLoad is the target load of the most loaded channel, in (0, 1): the
	// channel's payload bytes x 8 over its bandwidth times the arrival span.
	MaxLoad float64 `json:"max_load"`
}

// Arrival is a global arrival process.
type Arrival struct {
	// Process is "lognormal" (default) or "poisson".
	Process string `json:"process,omitempty"`
	// Sigma is the log-normal shape: 1 low burstiness, 2 high (Parsimon §5.1).
	Sigma float64 `json:"sigma,omitempty"`
}

// gap draws inter-arrival times of mean 1.
type gap func(r *rand.Rand) float64

func (a Arrival) sampler() (gap, error) {
	switch strings.ToLower(a.Process) {
	case "", "lognormal", "log-normal":
		if a.Sigma <= 0 {
			return nil, fmt.Errorf("workload: log-normal arrivals need sigma > 0, got %g", a.Sigma)
		}
		// mu = ln(mean) - sigma^2/2 with mean 1.
		mu, s := -a.Sigma*a.Sigma/2, a.Sigma
		return func(r *rand.Rand) float64 { return math.Exp(mu + s*r.NormFloat64()) }, nil
	case "poisson", "exp", "exponential":
		return func(r *rand.Rand) float64 { return r.ExpFloat64() }, nil
	}
	return nil, fmt.Errorf("workload: unknown arrival process %q (known: lognormal, poisson)", a.Process)
}

// pairSampler draws a (src, dst) host pair.
type pairSampler func(r *rand.Rand) (src, dst int)

// Endpoints returns the component's (src, dst) sampler on net, drawing as
// Generate does: uniformly from Pairs, from the traffic matrix, or
// uniformly over hosts. Models that draw their own sizes and arrival
// times (lib/cceval) take endpoints from here.
func (c Component) Endpoints(net *topo.Network) (func(r *rand.Rand) (src, dst int), error) {
	return c.pairs(net)
}

func (c Component) pairs(net *topo.Network) (pairSampler, error) {
	if len(c.Pairs) > 0 {
		for _, p := range c.Pairs {
			if !net.IsHost(p[0]) || !net.IsHost(p[1]) || p[0] == p[1] {
				return nil, fmt.Errorf("workload: pair %v is not two distinct hosts of %s", p, net.Name)
			}
		}
		ps := c.Pairs
		return func(r *rand.Rand) (int, int) {
			p := ps[r.IntN(len(ps))]
			return p[0], p[1]
		}, nil
	}
	racks := net.Racks()
	if len(racks) == 0 {
		if c.Matrix != "" && !strings.EqualFold(c.Matrix, "uniform") {
			return nil, fmt.Errorf("workload: matrix %q needs a topology with racks; %s has none (use \"uniform\" or pairs)", c.Matrix, net.Name)
		}
		hosts := net.Hosts()
		return func(r *rand.Rand) (int, int) {
			s := r.IntN(len(hosts))
			d := r.IntN(len(hosts) - 1)
			if d >= s {
				d++
			}
			return hosts[s], hosts[d]
		}, nil
	}
	name := c.Matrix
	if name == "" {
		name = "uniform"
	}
	m, err := LoadMatrix(name, len(racks))
	if err != nil {
		return nil, err
	}
	ps := m.Sampler()
	if err := ps.Check(racks); err != nil {
		return nil, err
	}
	return func(r *rand.Rand) (int, int) { return ps.Sample(r, racks) }, nil
}

// Generate draws the flows of spec on net. Flows are sorted by start time
// and numbered from 0 in that order; the same spec and seed always give the
// same flows.
func Generate(net *topo.Network, spec Spec, seed uint64) ([]Flow, error) {
	if len(spec.Components) == 0 {
		return nil, errors.New("workload: spec has no components")
	}
	switch {
	case spec.Flows < 0 || spec.DurationNs < 0:
		return nil, fmt.Errorf("workload: flows (%d) and duration_ns (%d) must not be negative", spec.Flows, spec.DurationNs)
	case spec.Flows > 0 && spec.DurationNs > 0:
		return nil, errors.New("workload: set flows or duration_ns, not both")
	case spec.Flows == 0 && spec.DurationNs == 0:
		return nil, errors.New("workload: set flows or duration_ns")
	case spec.Flows > 0 && len(spec.Components) > 1:
		return nil, errors.New("workload: a mixed workload needs duration_ns (each component keeps its own load over a common duration)")
	}
	// Each flow costs a Flow and a gap while it is drawn.
	if err := memlimit.Check("workload: flows", int64(spec.Flows), int64(unsafe.Sizeof(Flow{}))+8); err != nil {
		return nil, err
	}
	for i, c := range spec.Components {
		if !(c.MaxLoad > 0 && c.MaxLoad < 1) {
			return nil, fmt.Errorf("workload: component %d: impossible max_load %g: it must be in (0, 1)", i, c.MaxLoad)
		}
	}
	var all []Flow
	for i, c := range spec.Components {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		var fl []Flow
		var err error
		if spec.Flows > 0 {
			fl, err = c.byCount(net, r, spec.Flows)
		} else {
			fl, err = c.byDuration(net, r, spec.DurationNs)
		}
		if err != nil {
			return nil, fmt.Errorf("workload: component %d: %w", i, err)
		}
		for j := range fl {
			fl[j].Class = i
		}
		all = append(all, fl...)
	}
	if len(spec.Components) > 1 {
		sort.SliceStable(all, func(a, b int) bool { return all[a].Start < all[b].Start })
	}
	for i := range all {
		all[i].ID = i
	}
	return all, nil
}

// draw samples n flows' endpoints and sizes, and n unit-mean gaps.
func (c Component) draw(net *topo.Network, r *rand.Rand, n int) ([]Flow, []float64, error) {
	g, err := c.Arrival.sampler()
	if err != nil {
		return nil, nil, err
	}
	ps, err := c.pairs(net)
	if err != nil {
		return nil, nil, err
	}
	sd, err := NewSizeDist(c.Sizes)
	if err != nil {
		return nil, nil, err
	}
	flows := make([]Flow, n)
	gaps := make([]float64, n)
	for i := range flows {
		gaps[i] = g(r)
		src, dst := ps(r)
		flows[i] = Flow{ID: i, Src: src, Dst: dst, Size: sd.Sample(r)}
	}
	return flows, gaps, nil
}

// peak returns max over channels of bits per unit of bandwidth: the time a
// channel needs to carry the flows at full rate, in ns.
func peak(net *topo.Network, flows []Flow) (float64, error) {
	bytes, err := ChannelBytes(net, flows)
	if err != nil {
		return 0, err
	}
	best := 0.0
	for c, b := range bytes {
		best = max(best, float64(b)*8*1e9/float64(net.Channels[c].Bandwidth))
	}
	if best == 0 {
		return 0, errors.New("no channel carries traffic")
	}
	return best, nil
}

func (c Component) byCount(net *topo.Network, r *rand.Rand, n int) ([]Flow, error) {
	flows, gaps, err := c.draw(net, r, n)
	if err != nil {
		return nil, err
	}
	busy, err := peak(net, flows)
	if err != nil {
		return nil, err
	}
	// The first flow starts at 0; the span is the sum of the n-1 gaps after
	// it. Scale it so that the busiest channel is loaded exactly MaxLoad.
	span := 0.0
	for _, x := range gaps[1:] {
		span += x
	}
	scale := 1.0
	if span > 0 {
		scale = busy / c.MaxLoad / span
	}
	t := 0.0
	for i := range flows {
		if i > 0 {
			t += gaps[i]
		}
		flows[i].Start = int64(t*scale + 0.5)
	}
	return flows, nil
}

// pilotFlows is the sample used to estimate a component's arrival rate in
// duration mode.
const pilotFlows = 200_000

func (c Component) byDuration(net *topo.Network, r *rand.Rand, dur int64) ([]Flow, error) {
	pilot, _, err := c.draw(net, r, pilotFlows)
	if err != nil {
		return nil, err
	}
	busy, err := peak(net, pilot)
	if err != nil {
		return nil, err
	}
	meanGap := busy / c.MaxLoad / pilotFlows // ns between arrivals
	// The expected flow count, checked before the flows are drawn.
	expect := int64(min(float64(dur)/meanGap, math.MaxInt64/2))
	if err := memlimit.Check(fmt.Sprintf("duration_ns %d at max_load %g: expected flows", dur, c.MaxLoad), expect, int64(unsafe.Sizeof(Flow{}))); err != nil {
		return nil, err
	}
	g, _ := c.Arrival.sampler()
	ps, _ := c.pairs(net)
	sd, _ := NewSizeDist(c.Sizes)
	var flows []Flow
	for t := 0.0; ; {
		start := int64(t + 0.5)
		if start >= dur {
			break
		}
		src, dst := ps(r)
		flows = append(flows, Flow{ID: len(flows), Src: src, Dst: dst, Size: sd.Sample(r), Start: start})
		t += g(r) * meanGap
	}
	return flows, nil
}

// ChannelBytes routes every flow (per-flow ECMP, as every estimator does)
// and returns the payload bytes each channel carries, indexed by channel id.
func ChannelBytes(net *topo.Network, flows []Flow) ([]int64, error) {
	workers := min(runtime.GOMAXPROCS(0), 1+len(flows)/50_000)
	parts := make([][]int64, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	chunk := (len(flows) + workers - 1) / workers
	for w := range parts {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			acc := make([]int64, len(net.Channels))
			path := make([]int, 0, 16)
			var err error
			for _, f := range flows[min(w*chunk, len(flows)):min((w+1)*chunk, len(flows))] {
				if path, err = net.AppendPath(path[:0], f.ID, f.Src, f.Dst); err != nil {
					errs[w] = err
					return
				}
				for _, c := range path {
					acc[c] += f.Size
				}
			}
			parts[w] = acc
		}(w)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for _, p := range parts[1:] {
		for c, b := range p {
			parts[0][c] += b
		}
	}
	return parts[0], nil
}
