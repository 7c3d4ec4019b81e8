package workload

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
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
	Components []Component `json:"components,omitempty"`
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

	// File, instead of Components, takes the flows from a file: Parquet
	// or Arrow (a frame, as "tailscope gen" writes or pandas and R
	// write), CSV, the fork's flow.txt or Parsimon's JSON (see package
	// flowfile, which reads it, and the Format field). The flows are
	// sorted by start time (equal starts keep the file's order), then
	// the transforms below apply in their order.
	File string `json:"file,omitempty"`
	// Format is "parquet", "arrow", "csv", "fork" or "parsimon"; empty,
	// the file's extension decides (.parquet, .arrow, .csv, .txt for
	// the fork's, .json for Parsimon's).
	Format string `json:"format,omitempty"`
	// Remap maps the file's host ids to the topology's, before any
	// check: ids not in the table are kept.
	Remap map[int]int `json:"remap,omitempty"`
	// WindowNs, when set, keeps the flows that start in [from, to) ns.
	WindowNs []int64 `json:"window_ns,omitempty"`
	// First, when positive, keeps the first First flows (by start).
	First int `json:"first,omitempty"`
	// MaxLoad, when set, scales the start times, measured from the first
	// flow's, so that the busiest channel carries exactly MaxLoad over
	// the span of the starts: the load targeting of generated workloads
	// (ScaleToLoad), on the file's flows.
	MaxLoad float64 `json:"max_load,omitempty"`
	// Digest stands for flows that a program gave (scenario.WithFlows):
	// the SHA-256 of their canonical encoding (Digest). A spec with a
	// Digest records where its flows came from and cannot draw them.
	Digest string `json:"flows_digest,omitempty"`
}

// FromFile reports whether the spec takes its flows from a file.
func (s Spec) FromFile() bool { return s.File != "" }

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
// same flows. It collects what NewSource yields.
func Generate(net *topo.Network, spec Spec, seed uint64) ([]Flow, error) {
	// Collected flows must fit in memory (a Source holds none): a count is
	// checked before NewSource's first pass draws them; the count a
	// duration implies is known, in expectation, once NewSource has drawn
	// its pilot sample.
	size := int64(unsafe.Sizeof(Flow{}))
	if err := memlimit.Check("workload: flows", int64(spec.Flows), size); err != nil {
		return nil, err
	}
	src, err := NewSource(net, spec, seed)
	if err != nil {
		return nil, err
	}
	if spec.DurationNs > 0 {
		what := fmt.Sprintf("workload: duration_ns %d: expected flows", spec.DurationNs)
		if err := memlimit.Check(what, src.(*merged).expected(), size); err != nil {
			return nil, err
		}
	}
	all := make([]Flow, 0, spec.Flows)
	for f, ok := src.Next(); ok; f, ok = src.Next() {
		all = append(all, f)
	}
	return all, src.Err()
}

// NewSource returns the flows of Generate(net, spec, seed) as a Source
// that draws each flow when it is taken, so that a run of millions of
// flows never holds them all. A workload of Flows flows is drawn twice:
// a first pass measures the busiest channel's bytes and the arrival span
// to scale the starts (as Generate does), the second yields the flows.
func NewSource(net *topo.Network, spec Spec, seed uint64) (Source, error) {
	switch {
	case spec.File != "":
		return nil, fmt.Errorf("workload: flows file %s is read by package flowfile (scenario.Build), not drawn", spec.File)
	case spec.Digest != "":
		return nil, fmt.Errorf("workload: the flows of this workload were given by a program (flows digest %s); the spec cannot draw them", spec.Digest)
	case spec.Remap != nil || spec.WindowNs != nil || spec.First != 0 || spec.MaxLoad != 0 || spec.Format != "":
		return nil, errors.New("workload: format, remap, window_ns, first and max_load apply to a flows file; this workload has none (each component has its own max_load)")
	}
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
	for i, c := range spec.Components {
		if !(c.MaxLoad > 0 && c.MaxLoad < 1) {
			return nil, fmt.Errorf("workload: component %d: impossible max_load %g: it must be in (0, 1)", i, c.MaxLoad)
		}
	}
	m := &merged{comps: make([]*componentSource, len(spec.Components))}
	for i, c := range spec.Components {
		cs, err := c.source(net, seed, i, spec.Flows, spec.DurationNs)
		if err != nil {
			return nil, fmt.Errorf("workload: component %d: %w", i, err)
		}
		cs.advance()
		m.comps[i] = cs
	}
	return m, nil
}

// merged yields the flows of its components by start time, the lower
// component first at equal starts, numbered in that order.
type merged struct {
	comps []*componentSource
	n     int
}

func (m *merged) Next() (Flow, bool) {
	best := -1
	for i, c := range m.comps {
		if c.ok && (best < 0 || c.next.Start < m.comps[best].next.Start) {
			best = i
		}
	}
	if best < 0 {
		return Flow{}, false
	}
	c := m.comps[best]
	f := c.next
	f.ID, f.Class = m.n, best
	m.n++
	c.advance()
	return f, true
}

func (m *merged) Err() error { return nil }

// expected is the number of flows m will yield: exact by count, the
// expectation by duration.
func (m *merged) expected() int64 {
	total := 0.0
	for _, c := range m.comps {
		if c.n >= 0 {
			total += float64(c.n)
		} else {
			total += float64(c.dur) / c.meanGap
		}
	}
	return int64(min(total, math.MaxInt64/2))
}

// componentSource draws one component's flows in start order from its own
// random stream.
type componentSource struct {
	r  *rand.Rand
	g  gap
	ps pairSampler
	sd SizeDist
	// By count: n flows left, the arrival clock t in unit-mean gaps and
	// the scale to ns. By duration (n < 0): the clock in ns, the mean gap
	// and the end.
	n        int
	first    bool
	t, scale float64
	meanGap  float64
	dur      int64
	next     Flow
	ok       bool
}

// source prepares component i's flows: count flows, or flows for dur ns.
func (c Component) source(net *topo.Network, seed uint64, i, count int, dur int64) (*componentSource, error) {
	g, err := c.Arrival.sampler()
	if err != nil {
		return nil, err
	}
	ps, err := c.pairs(net)
	if err != nil {
		return nil, err
	}
	sd, err := NewSizeDist(c.Sizes)
	if err != nil {
		return nil, err
	}
	cs := &componentSource{r: rand.New(rand.NewPCG(seed, uint64(i))), g: g, ps: ps, sd: sd, first: true}
	if count > 0 {
		busy, span, err := c.measure(net, cs, count)
		if err != nil {
			return nil, err
		}
		// The first flow starts at 0; the span is the sum of the n-1 gaps
		// after it. Scale it so that the busiest channel is loaded
		// exactly MaxLoad.
		cs.scale = 1
		if span > 0 {
			cs.scale = busy / c.MaxLoad / span
		}
		cs.n = count
		cs.r = rand.New(rand.NewPCG(seed, uint64(i))) // the second pass redraws the same flows
		return cs, nil
	}
	// By duration: the arrival rate comes from a pilot sample drawn from
	// the same stream, which then goes on.
	bytes := make([]int64, len(net.Channels))
	if err := cs.drawPass(net, pilotFlows, bytes, nil); err != nil {
		return nil, err
	}
	busy, err := peak(net, bytes)
	if err != nil {
		return nil, err
	}
	cs.n, cs.dur, cs.meanGap = -1, dur, busy/c.MaxLoad/pilotFlows
	return cs, nil
}

// measure draws count flows from cs's stream and returns the busiest
// channel's time at full rate (ns) and the sum of the gaps after the
// first.
func (c Component) measure(net *topo.Network, cs *componentSource, count int) (busy, span float64, err error) {
	bytes := make([]int64, len(net.Channels))
	if err := cs.drawPass(net, count, bytes, &span); err != nil {
		return 0, 0, err
	}
	busy, err = peak(net, bytes)
	return busy, span, err
}

// drawPass draws n flows (gap, endpoints, size, as byCount always drew
// them), adding their payload to bytes per channel and, if span is not
// nil, the gaps after the first to it. It routes in chunks so that the
// routing runs on all cores and the flows are never all held.
func (cs *componentSource) drawPass(net *topo.Network, n int, bytes []int64, span *float64) error {
	const chunk = 1 << 18
	buf := make([]Flow, 0, min(n, chunk))
	for i := 0; i < n; {
		buf = buf[:0]
		for ; i < n && len(buf) < chunk; i++ {
			x := cs.g(cs.r)
			if span != nil && i > 0 {
				*span += x
			}
			src, dst := cs.ps(cs.r)
			buf = append(buf, Flow{ID: i, Src: src, Dst: dst, Size: cs.sd.Sample(cs.r)})
		}
		b, err := ChannelBytes(net, buf)
		if err != nil {
			return err
		}
		for c, v := range b {
			bytes[c] += v
		}
	}
	return nil
}

// advance draws the component's next flow into next, or clears ok.
func (cs *componentSource) advance() {
	if cs.n >= 0 {
		if cs.n == 0 {
			cs.ok = false
			return
		}
		cs.n--
		x := cs.g(cs.r)
		if !cs.first {
			cs.t += x
		}
		cs.first = false
		src, dst := cs.ps(cs.r)
		cs.next = Flow{Src: src, Dst: dst, Size: cs.sd.Sample(cs.r), Start: int64(cs.t*cs.scale + 0.5)}
		cs.ok = true
		return
	}
	if !cs.first {
		cs.t += cs.g(cs.r) * cs.meanGap
	}
	cs.first = false
	start := int64(cs.t + 0.5)
	if start >= cs.dur {
		cs.ok = false
		return
	}
	src, dst := cs.ps(cs.r)
	cs.next = Flow{Src: src, Dst: dst, Size: cs.sd.Sample(cs.r), Start: start}
	cs.ok = true
}

// pilotFlows is the sample used to estimate a component's arrival rate in
// duration mode.
const pilotFlows = 200_000

// peak returns max over channels of bits per unit of bandwidth: the time a
// channel needs to carry bytes at full rate, in ns.
func peak(net *topo.Network, bytes []int64) (float64, error) {
	best := 0.0
	for c, b := range bytes {
		best = max(best, float64(b)*8*1e9/float64(net.Channels[c].Bandwidth))
	}
	if best == 0 {
		return 0, errors.New("no channel carries traffic")
	}
	return best, nil
}

// ScaleToLoad scales the flows' start times in place, measured from the
// first flow's start, so that the busiest channel carries exactly maxLoad
// over the span of the starts: the targeting Generate applies to drawn
// arrivals (scale = busy time / max load / span), for flows given
// otherwise. The flows must be sorted by start.
func ScaleToLoad(net *topo.Network, flows []Flow, maxLoad float64) error {
	if !(maxLoad > 0 && maxLoad < 1) {
		return fmt.Errorf("workload: impossible max_load %g: it must be in (0, 1)", maxLoad)
	}
	if len(flows) < 2 {
		return fmt.Errorf("workload: max_load needs at least 2 flows to scale, got %d", len(flows))
	}
	first, span := flows[0].Start, float64(flows[len(flows)-1].Start-flows[0].Start)
	if span == 0 {
		return fmt.Errorf("workload: max_load: all %d flows start at %d ns, so there is no span to scale", len(flows), first)
	}
	bytes, err := ChannelBytes(net, flows)
	if err != nil {
		return err
	}
	busy, err := peak(net, bytes)
	if err != nil {
		return err
	}
	scale := busy / maxLoad / span
	for i := range flows {
		t := float64(flows[i].Start-first)*scale + 0.5
		if t >= math.MaxInt64/2 {
			return fmt.Errorf("workload: max_load %g stretches flow %d's start beyond 2^62 ns", maxLoad, flows[i].ID)
		}
		flows[i].Start = first + int64(t)
	}
	return nil
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
