package summary

import (
	"fmt"
	"io"
	"path/filepath"
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
		return metrics.Summary{}, fmt.Errorf("summary: %s records are for scenario %q but the baseline %s's are for %q",
			estMeta.Estimator, estMeta.ScenarioID, baseMeta.Estimator, baseMeta.ScenarioID)
	}
	if estMeta.Spec == "" {
		return metrics.Summary{}, fmt.Errorf("summary: %s records for scenario %q carry no spec in their metadata", estMeta.Estimator, estMeta.ScenarioID)
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
		ScenarioID: estMeta.ScenarioID, Family: spec.FamilyID(), Estimator: estMeta.Estimator, Baseline: baseMeta.Estimator,
		Params: params, Flows: len(sc.Flows), MaxLoad: loads.Max, Top10Load: loads.Top10,
		WallSeconds: estMeta.WallSeconds, BaseWallSeconds: baseMeta.WallSeconds,
		P99: metrics.Compare(est, base, bins, p),
	}, nil
}

// SummarizeDir summarises a results directory laid out as `tailscope run`
// and `tailscope sweep` write it (<dir>/<scenario id>/<estimator>.parquet):
// one row per scenario and estimator other than baseline, compared with
// that scenario's baseline frame. A line per row goes to log when it is not
// nil.
func SummarizeDir(dir, baseline string, b metrics.Bins, pct float64, log io.Writer) ([]metrics.Summary, error) {
	basePaths, err := filepath.Glob(filepath.Join(dir, "*", baseline+".parquet"))
	if err != nil {
		return nil, err
	}
	if len(basePaths) == 0 {
		return nil, fmt.Errorf("summary: no %s/*/%s.parquet baseline frames", dir, baseline)
	}
	var rows []metrics.Summary
	for _, bp := range basePaths {
		base, baseMeta, err := frame.ReadRecords(bp)
		if err != nil {
			return nil, err
		}
		others, err := filepath.Glob(filepath.Join(filepath.Dir(bp), "*.parquet"))
		if err != nil {
			return nil, err
		}
		for _, p := range others {
			if p == bp {
				continue
			}
			est, meta, err := frame.ReadRecords(p)
			if err != nil {
				return nil, err
			}
			s, err := Summarize(est, meta, base, baseMeta, b, pct)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			rows = append(rows, s)
			if log != nil {
				fmt.Fprintf(log, "%s %s: p%g %.3g vs %.3g (%+.1f%%), max load %.1f%%\n", s.ScenarioID, s.Estimator,
					pct, s.P99.All, s.P99.BaseAll, 100*s.P99.ErrorAll, 100*s.MaxLoad)
			}
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("summary: no estimator frames beside the %s baselines in %s", baseline, dir)
	}
	return rows, nil
}
