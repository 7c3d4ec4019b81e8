package summary

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tailscope/tailscope/lib/experiment"
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
// same workload and fills a summary row: the p-th slowdown percentile per
// size bin and overall with errors, wall times from the frames' metadata,
// and the parameters and measured link loads of the estimator's scenario,
// which is rebuilt from the spec in the metadata (the flows are a function
// of it). The two may come from scenarios that differ in their network
// configuration or failed links only (scenario.Spec.WorkloadID): the
// same flows, a counterfactual; the row's BaseFamily then names the
// baseline's.
func Summarize(est []metrics.Record, estMeta frame.Meta, base []metrics.Record, baseMeta frame.Meta, bins metrics.Bins, p float64) (metrics.Summary, error) {
	spec, err := metaSpec(estMeta)
	if err != nil {
		return metrics.Summary{}, err
	}
	baseFamily := ""
	if estMeta.ScenarioID != baseMeta.ScenarioID {
		baseSpec, err := metaSpec(baseMeta)
		if err != nil {
			return metrics.Summary{}, err
		}
		if spec.WorkloadID() != baseSpec.WorkloadID() {
			return metrics.Summary{}, fmt.Errorf("summary: %s records are for scenario %q but the baseline %s's are for %q, whose workload differs (not only the network or failed links)",
				estMeta.Estimator, estMeta.ScenarioID, baseMeta.Estimator, baseMeta.ScenarioID)
		}
		baseFamily = baseSpec.FamilyID()
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
		ScenarioID: estMeta.ScenarioID, Name: ScenarioName(spec), Family: spec.FamilyID(), Estimator: estMeta.Estimator, Baseline: baseMeta.Estimator,
		BaseFamily: baseFamily,
		Params:     params, Flows: len(sc.Flows), MaxLoad: loads.Max, Top10Load: loads.Top10,
		WallSeconds: estMeta.WallSeconds, BaseWallSeconds: baseMeta.WallSeconds,
		P99: metrics.Compare(est, base, bins, p),
	}, nil
}

// metaSpec reads the scenario spec a frame's metadata carries.
func metaSpec(m frame.Meta) (scenario.Spec, error) {
	if m.Spec == "" {
		return scenario.Spec{}, fmt.Errorf("summary: %s records for scenario %q carry no spec in their metadata", m.Estimator, m.ScenarioID)
	}
	return scenario.Parse(strings.NewReader(m.Spec))
}

// resultFrame is one record frame of a results directory, its records
// read again when needed so that a large sweep's are never all held.
type resultFrame struct {
	path, label string
	meta        frame.Meta
	workload    string // the spec's WorkloadID
}

// records reads the frame's records.
func (f resultFrame) records() ([]metrics.Record, error) {
	recs, _, err := frame.ReadRecords(f.path)
	return recs, err
}

// frameLabel is the label of the record frame at path, of estimator est
// on spec: the estimator's name when the file is its result with default
// options (experiment.Task.Keys: today's key, or the one an older
// tailscope gave the same defaults), else the file's name without
// extension, "<estimator>@<options hash>", so that two configurations of
// one estimator stay apart.
func frameLabel(path, est string, spec scenario.Spec) string {
	stem := strings.TrimSuffix(filepath.Base(path), ".parquet")
	keys, err := experiment.Task{Spec: spec, Estimator: est}.Keys()
	if err != nil {
		return stem // an estimator this tailscope does not know: its file's name
	}
	for _, k := range keys {
		if k[strings.LastIndexByte(k, '/')+1:] == stem {
			return est
		}
	}
	return stem
}

// SummarizeDir summarises a results directory laid out as `tailscope run`
// and `tailscope sweep` write it (<dir>/<scenario id>/<estimator>[@<options
// hash>].parquet): one row per frame other than the baselines, labelled by
// frameLabel (the estimator, or its file's name for non-default options), compared with the baseline frame (label baseline) of its
// own scenario or, where its scenario has none, with the one baseline
// frame of its workload (scenario.Spec.WorkloadID): a baseline under one
// network configuration against estimates under another. A workload with
// several baselines, none in the estimate's scenario, is an error: which
// one is meant is not clear. A line per row goes to log when it is not nil.
func SummarizeDir(dir, baseline string, b metrics.Bins, pct float64, log io.Writer) ([]metrics.Summary, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*.parquet"))
	if err != nil {
		return nil, err
	}
	var frames []resultFrame
	bases := map[string][]int{} // workload id -> baseline frames
	own := map[string]int{}     // scenario directory -> its baseline frame
	for _, p := range paths {
		_, meta, err := frame.ReadRecords(p)
		if err != nil {
			return nil, err
		}
		spec, err := metaSpec(meta)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		label := frameLabel(p, meta.Estimator, spec)
		f := resultFrame{path: p, label: label, meta: meta, workload: spec.WorkloadID()}
		f.meta.Estimator = label
		if f.label == baseline {
			bases[f.workload] = append(bases[f.workload], len(frames))
			own[filepath.Dir(p)] = len(frames)
		}
		frames = append(frames, f)
	}
	if len(bases) == 0 {
		return nil, fmt.Errorf("summary: no %s/*/%s.parquet baseline frames", dir, baseline)
	}
	var rows []metrics.Summary
	// Frames come by directory, so the baseline changes rarely: keep the
	// last one read.
	lastBase, baseRecs := -1, []metrics.Record(nil)
	for _, f := range frames {
		if f.label == baseline {
			continue
		}
		bi, ok := own[filepath.Dir(f.path)]
		if !ok {
			switch bs := bases[f.workload]; len(bs) {
			case 0:
				continue // no baseline for this workload
			case 1:
				bi = bs[0]
			default:
				var dirs []string
				for _, i := range bs {
					dirs = append(dirs, filepath.Dir(frames[i].path))
				}
				return nil, fmt.Errorf("summary: %s: no %s baseline in its scenario and %d for its workload (%s); run the baseline in its scenario or keep one",
					f.path, baseline, len(bs), strings.Join(dirs, ", "))
			}
		}
		base := frames[bi]
		if bi != lastBase {
			if baseRecs, err = base.records(); err != nil {
				return nil, err
			}
			lastBase = bi
		}
		recs, err := f.records()
		if err != nil {
			return nil, err
		}
		s, err := Summarize(recs, f.meta, baseRecs, base.meta, b, pct)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.path, err)
		}
		rows = append(rows, s)
		if log != nil {
			against := ""
			if s.BaseFamily != "" {
				against = " (baseline of scenario " + base.meta.ScenarioID + ")"
			}
			name := ""
			if spec, err := metaSpec(f.meta); err == nil {
				name = " (" + ScenarioName(spec) + ")"
			}
			fmt.Fprintf(log, "%s%s %s: p%g %.3g vs %.3g%s (%+.1f%%), max load %.1f%%\n", s.ScenarioID, name, s.Estimator,
				pct, s.P99.All, s.P99.BaseAll, against, 100*s.P99.ErrorAll, 100*s.MaxLoad)
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("summary: no estimator frames beside the %s baselines in %s", baseline, dir)
	}
	return rows, nil
}
