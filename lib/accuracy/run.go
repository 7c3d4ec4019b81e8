package accuracy

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
)

// anyway is the option every atlas task carries: the atlas measures
// estimators where they would refuse, too.
const anyway = `"` + estimator.AnswerAnyway + `":true`

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// EstimatorsOf are the estimators run on scenario s besides the
// baseline: Estimators but those its part skips (Options.Skip), or
// SeedNoise on the noise sample's.
func EstimatorsOf(s Scenario) []string {
	if s.Sample == SampleNoise {
		return []string{SeedNoise}
	}
	if len(s.Skip) == 0 {
		return Estimators
	}
	return slices.DeleteFunc(slices.Clone(Estimators), func(e string) bool { return slices.Contains(s.Skip, e) })
}

// TaskOf is the task of estimator est on scenario s, with the options
// the atlas runs it with, or the reason it does not model s's network.
// SeedNoise is packetsim on s's spec under the next seed.
func TaskOf(s Scenario, est string) (experiment.Task, string) {
	if est == SeedNoise {
		next := s.Spec
		next.Seed++
		return experiment.Task{Spec: next, Estimator: Baseline}, ""
	}
	cfg, err := resolved(s.Spec)
	if err != nil {
		return experiment.Task{}, err.Error()
	}
	label := est
	est, opts, ok := estimator.AtlasRun(label, cfg)
	if !ok {
		return experiment.Task{}, fmt.Sprint(estimator.Models(est, "", cfg))
	}
	if _, after, _ := estimator.AtlasRun(est, cfg); label != est && after == opts {
		return experiment.Task{}, fmt.Sprintf("%s runs the same model here (%s)", est, opts)
	}
	if err := estimator.Models(est, opts, cfg); err != nil {
		return experiment.Task{}, err.Error()
	}
	if est != Baseline {
		if opts == "" {
			opts = "{" + anyway + "}"
		} else {
			opts = "{" + anyway + "," + opts[1:]
		}
	}
	return experiment.Task{Spec: s.Spec, Estimator: est, Options: opts}, ""
}

// Tasks are the scenarios' tasks in scenario order, the baseline first in
// each, so that a run finishes scenario after scenario; refused maps a
// scenario ID and estimator to the reason the estimator does not model
// it.
func Tasks(scs []Scenario) (ts []experiment.Task, refused map[[2]string]string) {
	refused = map[[2]string]string{}
	for _, s := range scs {
		for _, est := range append([]string{Baseline}, EstimatorsOf(s)...) {
			t, why := TaskOf(s, est)
			if why != "" {
				refused[[2]string{s.Spec.ID(), est}] = why
				continue
			}
			ts = append(ts, t)
		}
	}
	return ts, refused
}

// Run runs the tasks of the design o not yet done under dir nor archived
// in archive ("" for none), through exec, reporting progress to p (may
// be nil). Finished tasks are kept, so an interrupted run continues
// where it stopped; a failed task does not stop the others. samples
// limits the run to the named samples (nil: both).
func Run(ctx context.Context, dir, archive string, o Options, samples []string, exec experiment.Executor, p progress.Reporter) (experiment.Report, error) {
	scs, _, err := Design(o)
	if err != nil {
		return experiment.Report{}, err
	}
	if samples != nil {
		scs = slices.DeleteFunc(scs, func(s Scenario) bool { return !slices.Contains(samples, s.Sample) })
	}
	interleave(scs, o)
	ts, _ := Tasks(scs)
	a, err := readArchive(archive)
	if err != nil {
		return experiment.Report{}, err
	}
	ts = slices.DeleteFunc(ts, func(t experiment.Task) bool {
		k, err := t.Key()
		_, ok := a.costs[k]
		return err == nil && ok
	})
	return experiment.Sweep(ctx, dir, ts, exec, p)
}

// interleave orders the scenarios so that the calibration sample grows
// with the atlas sample: after every Atlas/Calibration atlas draws, one
// calibration draw; and so that the parts of a design grow together,
// each scenario placed by the share of its part's atlas draws before
// it. A run stopped early then has some of every part and both samples.
// A pair's runs under further seeds (Options.PairSeeds) follow the pair;
// the rest of the noise sample comes last.
func interleave(scs []Scenario, o Options) {
	parts := map[string]Options{o.Label: o}
	for _, p := range o.Parts {
		parts[p.Label] = p
	}
	drawn := map[string]float64{} // rank by scenario ID
	rank := func(s Scenario) float64 {
		p := parts[s.Part]
		every := 1.0
		if p.Calibration > 0 {
			every = float64(p.Atlas) / float64(p.Calibration)
		}
		a := float64(max(p.Atlas, 1))
		switch s.Sample {
		case SampleCalibration:
			return ((float64(s.Draw)+1)*every - 0.5) / a
		case SampleNoise:
			if r, ok := drawn[s.Pair]; ok && p.PairSeeds > 1 {
				return r
			}
			return 1 + float64(s.Draw)/a
		}
		return float64(s.Draw) / a
	}
	for _, s := range scs {
		if s.Sample != SampleNoise {
			drawn[s.Spec.ID()] = rank(s)
		}
	}
	slices.SortStableFunc(scs, func(a, b Scenario) int { return cmp.Compare(rank(a), rank(b)) })
}

// fabric is what the design needs of a topology preset: its network and
// largest host-to-host propagation delay, which resolves a network's
// base RTT.
type fabric struct {
	net   *topo.Network
	delay int64
}

// fabrics caches them by preset.
var fabrics sync.Map

// fabricOf returns spec's topology's fabric.
func fabricOf(spec scenario.Spec) (fabric, error) {
	key := spec.Topology.Preset
	if f, ok := fabrics.Load(key); ok && key != "" {
		return f.(fabric), nil
	}
	sc, err := scenario.BuildNet(spec)
	if err != nil {
		return fabric{}, err
	}
	f := fabric{net: sc.Net, delay: sc.Net.MaxHostDelay()}
	if key != "" {
		fabrics.Store(key, f)
	}
	return f, nil
}

// resolved is spec's network as the scenario builder resolves it against
// its topology (netcfg.Config.Resolve: the fork's network-wide HPCC T),
// as the estimators check it when they run.
func resolved(spec scenario.Spec) (netcfg.Config, error) {
	f, err := fabricOf(spec)
	if err != nil {
		return netcfg.Config{}, err
	}
	return spec.Network.Resolve(func() int64 { return f.delay }), nil
}
