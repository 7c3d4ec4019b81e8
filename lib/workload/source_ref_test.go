package workload

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/tailscope/tailscope/lib/topo"
)

// The streaming generator yields exactly the flows of the generator that
// held every flow (kept below as the reference), for flow counts and
// durations, matrices, pairs, both arrival processes and mixed workloads.
func TestSourceMatchesReference(t *testing.T) {
	fab := func(preset string) *topo.Network {
		s, err := topo.Preset(preset)
		if err != nil {
			t.Fatal(err)
		}
		n, err := topo.Fabric(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	meta32 := fab("meta32-2:1")
	dumb, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 4, Receivers: 4})
	if err != nil {
		t.Fatal(err)
	}
	web := func(matrix string, sigma, load float64) Component {
		return Component{Matrix: matrix, Sizes: SizeSpec{Dist: "webserver"}, Arrival: Arrival{Process: "lognormal", Sigma: sigma}, MaxLoad: load}
	}
	flows := 300_000 // more than one routing chunk
	if testing.Short() {
		flows = 30_000
	}
	tests := []struct {
		name string
		net  *topo.Network
		spec Spec
	}{
		{"count matrix B sigma 2", meta32, Spec{Flows: flows, Components: []Component{web("B", 2, 0.5)}}},
		{"count matrix A sigma 1", meta32, Spec{Flows: 5000, Components: []Component{web("A", 1, 0.3)}}},
		{"count poisson pairs", dumb, Spec{Flows: 5000, Components: []Component{{
			Pairs: [][2]int{{0, 4}, {1, 5}, {2, 6}}, Sizes: SizeSpec{Dist: "cachefollower"}, Arrival: Arrival{Process: "poisson"}, MaxLoad: 0.6}}}},
		{"duration", meta32, Spec{DurationNs: 2_000_000, Components: []Component{web("C", 2, 0.4)}}},
		{"mixed duration", meta32, Spec{DurationNs: 2_000_000, Components: []Component{
			web("A", 1, 0.2), {Matrix: "B", Sizes: SizeSpec{Dist: "hadoop"}, Arrival: Arrival{Process: "poisson"}, MaxLoad: 0.2}, web("A", 2, 0.1)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, seed := range []uint64{1, 7} {
				want, err := referenceGenerate(tc.net, tc.spec, seed)
				if err != nil {
					t.Fatal(err)
				}
				src, err := NewSource(tc.net, tc.spec, seed)
				if err != nil {
					t.Fatal(err)
				}
				i := 0
				for f, ok := src.Next(); ok; f, ok = src.Next() {
					if i >= len(want) || f != want[i] {
						t.Fatalf("seed %d: flow %d is %+v, reference has %d flows, flow %d %+v", seed, i, f, len(want), i, at(want, i))
					}
					i++
				}
				if src.Err() != nil || i != len(want) {
					t.Fatalf("seed %d: source ended after %d flows (error %v); reference has %d", seed, i, src.Err(), len(want))
				}
				got, err := Generate(tc.net, tc.spec, seed)
				if err != nil || !reflect.DeepEqual(got, want) {
					t.Fatalf("seed %d: Generate differs from the reference (error %v)", seed, err)
				}
			}
		})
	}
}

func at(fl []Flow, i int) Flow {
	if i < len(fl) {
		return fl[i]
	}
	return Flow{}
}

// referenceGenerate is Generate as it was before flows streamed: every
// flow drawn into memory, starts scaled, components sorted together. The
// streaming generator must reproduce it flow for flow.
func referenceGenerate(net *topo.Network, spec Spec, seed uint64) ([]Flow, error) {
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
	var all []Flow
	for i, c := range spec.Components {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		var fl []Flow
		var err error
		if spec.Flows > 0 {
			fl, err = c.refByCount(net, r, spec.Flows)
		} else {
			fl, err = c.refByDuration(net, r, spec.DurationNs)
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
func (c Component) refDraw(net *topo.Network, r *rand.Rand, n int) ([]Flow, []float64, error) {
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
func refPeak(net *topo.Network, flows []Flow) (float64, error) {
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

func (c Component) refByCount(net *topo.Network, r *rand.Rand, n int) ([]Flow, error) {
	flows, gaps, err := c.refDraw(net, r, n)
	if err != nil {
		return nil, err
	}
	busy, err := refPeak(net, flows)
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

func (c Component) refByDuration(net *topo.Network, r *rand.Rand, dur int64) ([]Flow, error) {
	pilot, _, err := c.refDraw(net, r, pilotFlows)
	if err != nil {
		return nil, err
	}
	busy, err := refPeak(net, pilot)
	if err != nil {
		return nil, err
	}
	meanGap := busy / c.MaxLoad / pilotFlows // ns between arrivals
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
