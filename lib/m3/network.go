package m3

import (
	"context"
	"fmt"
	"math"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// NetworkSamples returns training samples of a network's own paths: it
// draws o.Samples paths of flows on net as Run does, simulates their
// parking lots with flowSim, and gives each drawn path's sample, as its
// target, the slowdowns slowdown[i] that a packet-level run of the whole
// network gave the path's foreground flows (Sample.TargetFlows). Training
// tasks (Task) are synthetic parking lots whose foreground is a stream of
// hundreds of flows; a fabric path carries a handful, and these samples
// show the model such paths with their packet-level outcome.
func NetworkSamples(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, slowdown []float64, o Options) ([]*Sample, error) {
	if err := workload.Check(net, flows); err != nil {
		return nil, fmt.Errorf("m3: %w", err)
	}
	if len(slowdown) != len(flows) {
		return nil, fmt.Errorf("m3: %d slowdowns for %d flows", len(slowdown), len(flows))
	}
	for i, s := range slowdown {
		if !(s >= 1) || math.IsInf(s, 1) {
			return nil, fmt.Errorf("m3: flow %d (id %d) has slowdown %v; a packet-level slowdown is finite and at least 1", i, flows[i].ID, s)
		}
	}
	var st Stats
	d, _, todo, samples, err := simulateDrawn(ctx, net, flows, cfg, o.withDefaults(), &st)
	if err != nil {
		return nil, err
	}
	for i, s := range samples {
		var sizes []int64
		var sd []float64
		for _, j := range d.Foreground(todo[i]) {
			sizes = append(sizes, flows[j].Size)
			sd = append(sd, slowdown[j])
		}
		if err := s.setTargetFlows(sizes, sd); err != nil {
			return nil, fmt.Errorf("m3: path %d: %w", todo[i], err)
		}
	}
	return samples, nil
}

// setTargetFlows makes the packet-level slowdowns sd of the foreground
// flows of sizes (the sample's own, in any order) s's target, flow by
// flow.
func (s *Sample) setTargetFlows(sizes []int64, sd []float64) error {
	out := metrics.M3OutputBins()
	s.TargetFlows = make([][]float64, out.Len())
	s.TargetCount = make([]int, out.Len())
	for k, sz := range sizes {
		b := out.Index(sz)
		s.TargetFlows[b] = append(s.TargetFlows[b], sd[k])
		s.TargetCount[b]++
	}
	for b, n := range s.TargetCount {
		if n != s.Count[b] {
			return fmt.Errorf("%d foreground flows of output bucket %d have targets, the sample has %d", n, b, s.Count[b])
		}
	}
	s.Target = FeatureMap(sizes, sd, out)
	return nil
}
