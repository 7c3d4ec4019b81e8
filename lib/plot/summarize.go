package plot

import (
	"fmt"
	"strings"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
)

// ScenarioParams reads the faceting parameters from a scenario spec: the
// fabric's oversubscription, and matrix, sizes, sigma and max-load target
// of its first workload component.
func ScenarioParams(s scenario.Spec) metrics.Params {
	var p metrics.Params
	switch {
	case s.Topology.Preset != "":
		if fs, err := topo.Preset(s.Topology.Preset); err == nil {
			p.Oversub = fs.Oversubscription()
		}
	case s.Topology.Fabric != nil:
		p.Oversub = s.Topology.Fabric.Oversubscription()
	}
	if cs := s.Workload.Components; len(cs) > 0 {
		p.Matrix, p.Sizes = cs[0].Matrix, cs[0].Sizes.Dist
		p.Sigma, p.TargetLoad = cs[0].Arrival.Sigma, cs[0].MaxLoad
	}
	return p
}

// Summarize sets an estimator's records against the baseline's for the
// same scenario and fills a summary row: the p-th slowdown percentile per
// size bin and overall with errors, wall times from the frames' metadata,
// and the parameters and measured link loads of the scenario, which is
// rebuilt from the spec in the metadata (the flows are a function of it).
func Summarize(est []metrics.Record, estMeta frame.Meta, base []metrics.Record, baseMeta frame.Meta, bins metrics.Bins, p float64) (metrics.Summary, error) {
	if estMeta.ScenarioID != baseMeta.ScenarioID {
		return metrics.Summary{}, fmt.Errorf("plot: %s records are for scenario %q but the baseline %s's are for %q",
			estMeta.Estimator, estMeta.ScenarioID, baseMeta.Estimator, baseMeta.ScenarioID)
	}
	if estMeta.Spec == "" {
		return metrics.Summary{}, fmt.Errorf("plot: %s records for scenario %q carry no spec in their metadata", estMeta.Estimator, estMeta.ScenarioID)
	}
	spec, err := scenario.Parse(strings.NewReader(estMeta.Spec))
	if err != nil {
		return metrics.Summary{}, err
	}
	sc, err := scenario.Build(spec)
	if err != nil {
		return metrics.Summary{}, err
	}
	loads, err := metrics.LinkLoads(sc.Net, sc.Flows)
	if err != nil {
		return metrics.Summary{}, err
	}
	params := ScenarioParams(spec)
	params.Topology = sc.Net.Name
	return metrics.Summary{
		ScenarioID: estMeta.ScenarioID, Estimator: estMeta.Estimator, Baseline: baseMeta.Estimator,
		Params: params, Flows: len(sc.Flows), MaxLoad: loads.Max, Top10Load: loads.Top10,
		WallSeconds: estMeta.WallSeconds, BaseWallSeconds: baseMeta.WallSeconds,
		P99: metrics.Compare(est, base, bins, p),
	}, nil
}
