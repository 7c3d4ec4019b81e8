// Package accuracy is the accuracy atlas: the study behind "tailscope
// accuracy run|report" that measures every estimator against packetsim
// over a held-out sample of the scenario space a user can ask about, and
// whose summary (lib/atlas) every answer carries as its expected error.
//
// The design (Design) draws scenarios from a seed: every network preset
// of netcfg (stock ns-3's window-based DCTCP, the plain DCTCP, DCQCN,
// TIMELY and HPCC, and the HPCC ns-3 fork's), the 32-rack fabrics at 1:1,
// 2:1 and 4:1, matrices A, B, C and uniform, the three size
// distributions, burstiness sigma 1-2, max load 20-80% and the flow
// counts of Options.Flows. A share of the scenarios come as counterfactual
// pairs: the same flows under a second network configuration (ECN
// threshold, window, marking thresholds, HPCC's target, congestion
// control), for the direction of change. The draws are split into the
// "atlas" sample, from which the intervals are computed, and a disjoint
// "calibration" sample, on which their coverage is measured.
//
// Run runs every scenario's tasks (packetsim, the ground truth, then
// flowsim, parsimon and m3 with the embedded model that covers the
// network) through lib/experiment, resumable and Slurm-capable; Archive
// keeps the finished scenarios' per-size-bin rows small enough to commit
// (results/accuracy-atlas); Report turns them into the tables and the
// embedded summary.
package accuracy

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
)

// Samples: the atlas's own, the held-out calibration sample, and the
// seed-noise sample (packetsim alone, under two more seeds of the first
// scenario of the atlas's first counterfactual pairs: how far a p99 moves
// with the seed, against which a pair's change is judged).
const (
	SampleAtlas       = "atlas"
	SampleCalibration = "calibration"
	SampleNoise       = "noise"
)

// SeedNoise labels the noise sample's rows: packetsim under the spec's
// seed + 1 (the row's "estimator") against packetsim under seed + 2 (its
// baseline), so their relative difference is seed-to-seed noise.
const SeedNoise = "packetsim-seed"

// Baseline is the ground truth every estimator is compared with.
const Baseline = "packetsim"

// Estimators are the estimators measured, besides the baseline: their
// names, and ParsimonPublished.
var Estimators = []string{"flowsim", "parsimon", "m3", ParsimonPublished}

// ParsimonPublished labels Parsimon run as its paper published it
// (estimator.PublishedParsimon: every link bucketed with B, the window's
// delay charged at every hop), for the before and after of Parsimon's
// defaults. Its intervals are not stated with answers.
const ParsimonPublished = "parsimon-published"

// Bins are the flow-size bins the atlas summarizes errors in: the ones
// every study reports by default (metrics.DefaultBins).
func Bins() metrics.Bins { return metrics.DefaultBins() }

// Options describe a design.
type Options struct {
	// Atlas and Calibration are the numbers of draws of each sample
	// (a counterfactual pair is one draw, two scenarios).
	Atlas, Calibration int
	// Seed drives every draw; the same Options give the same scenarios,
	// and the first k draws of a sample do not change when it grows.
	Seed uint64
	// Flows are the flow counts drawn from.
	Flows []int
	// PairShare is the share of draws that are counterfactual pairs.
	PairShare float64
	// NoisePairs is the number of the atlas sample's first counterfactual
	// pairs whose first scenario the noise sample runs under two more
	// seeds.
	NoisePairs int
}

// Sizes are named designs: "tiny" runs end to end in minutes (tests,
// CI), "small" is the first atlas (5k-20k flows).
var Sizes = map[string]Options{
	"tiny":  {Atlas: 2, Calibration: 1, Seed: 1, Flows: []int{300}, PairShare: 0.5, NoisePairs: 1},
	"small": {Atlas: 400, Calibration: 100, Seed: 1, Flows: []int{5_000, 10_000, 20_000}, PairShare: 0.3, NoisePairs: 30},
}

// Scenario is one scenario of the design.
type Scenario struct {
	// Draw is the draw's index within its sample.
	Draw   int
	Sample string
	// Preset is the network preset drawn (netcfg.Preset).
	Preset string
	// Change is "" for a drawn scenario; for the second scenario of a
	// counterfactual pair, the change of its network ("k_bytes=60000").
	Change string
	Spec   scenario.Spec
}

// Pair is a counterfactual pair: two scenarios with the same flows under
// two network configurations.
type Pair struct {
	Sample string
	Draw   int
	Change string
	A, B   scenario.Spec
}

// Presets are the network presets drawn: every preset of netcfg but
// fork-dctcp, which is the same network as dctcp.
func Presets() []string {
	return slices.DeleteFunc(netcfg.Presets(), func(p string) bool { return p == "fork-dctcp" })
}

// change is a counterfactual's change to a network configuration.
type change struct {
	name    string
	applies func(c netcfg.Config) bool
	apply   func(c netcfg.Config) (netcfg.Config, error)
}

// set changes the field at path (netcfg.Config.Set) to value.
func set(path, value string) func(c netcfg.Config) (netcfg.Config, error) {
	return func(c netcfg.Config) (netcfg.Config, error) { return c.Set(path, json.RawMessage(value)) }
}

func ccIs(ccs ...string) func(c netcfg.Config) bool {
	return func(c netcfg.Config) bool { return slices.Contains(ccs, c.CC) }
}

// changes are the counterfactuals of m3 §5.4's kind a user asks: the ECN
// threshold K, the window, DCQCN's marking thresholds, HPCC's target
// utilization, and the congestion control itself.
var changes = []change{
	{"k_bytes=60000", ccIs("dctcp", "dctcp-window"), set("k_bytes", "60000")},
	{"dctcp.window_bytes=9000", ccIs("dctcp"), set("dctcp.window_bytes", "9000")},
	{"dcqcn.kmin_bytes=50000,kmax_bytes=100000", ccIs("dcqcn"), func(c netcfg.Config) (netcfg.Config, error) {
		c.DCQCN.KminBytes, c.DCQCN.KmaxBytes = 50_000, 100_000
		return c, nil
	}},
	{"hpcc.eta=0.7", ccIs("hpcc"), set("hpcc.eta", "0.7")},
	{"timely.tlow_nanos=25000", ccIs("timely"), set("timely.tlow_nanos", "25000")},
	{"cc=hpcc", ccIs("dctcp", "dcqcn", "timely"), func(c netcfg.Config) (netcfg.Config, error) {
		fork := c.ForkRules()
		c.CC = "hpcc"
		if fork {
			c = c.WithForkRules()
		}
		return c, nil
	}},
}

// Space is the scenario space of the design but for the network and the
// flow counts: the 32-rack fabrics at 1:1, 2:1 and 4:1, matrices A, B, C
// and uniform, the three size distributions, sigma 1, 1.5 or 2 and max
// load in [20%, 80%].
func Space(flows []int) experiment.Space {
	return experiment.Space{
		Presets:  []string{"meta32-1:1", "meta32-2:1", "meta32-4:1"},
		Matrices: []string{"A", "B", "C", "uniform"},
		Sizes:    []string{"cachefollower", "webserver", "hadoop"},
		Sigmas:   []float64{1, 1.5, 2},
		MaxLoad:  experiment.Range{Min: 0.2, Max: 0.8},
		Flows:    flows,
	}
}

// Check reports options that cannot make a design.
func (o Options) Check() error {
	if o.Atlas < 1 || o.Calibration < 0 {
		return fmt.Errorf("accuracy: %d atlas and %d calibration draws; need at least one atlas draw", o.Atlas, o.Calibration)
	}
	if len(o.Flows) == 0 {
		return fmt.Errorf("accuracy: no flow counts to draw from")
	}
	if o.NoisePairs < 0 {
		return fmt.Errorf("accuracy: %d noise pairs", o.NoisePairs)
	}
	if !(o.PairShare >= 0 && o.PairShare <= 1) {
		return fmt.Errorf("accuracy: pair share %g is not in [0, 1]", o.PairShare)
	}
	return Space(o.Flows).Validate()
}

// Design draws the scenarios of o: the atlas sample's, then the
// calibration sample's, each draw's scenario followed by its
// counterfactual partner if it has one, then the noise sample's (the
// first scenario of the atlas's first o.NoisePairs pairs under seed + 1;
// TaskOf runs it under seed + 2 as well). The two drawn samples come
// from separate streams of o.Seed and share no scenario.
func Design(o Options) ([]Scenario, []Pair, error) {
	if err := o.Check(); err != nil {
		return nil, nil, err
	}
	var out []Scenario
	var pairs []Pair
	seen := map[string]string{}
	for k, sample := range []string{SampleAtlas, SampleCalibration} {
		n := o.Atlas
		if sample == SampleCalibration {
			n = o.Calibration
		}
		if n == 0 {
			continue
		}
		seed := o.Seed*2 + uint64(k)
		specs, err := experiment.Sample(Space(o.Flows), n, seed)
		if err != nil {
			return nil, nil, err
		}
		r := rand.New(rand.NewPCG(seed, 0x61746c6173)) // "atlas"
		presets := Presets()
		for i, s := range specs {
			preset := presets[r.IntN(len(presets))]
			paired := r.Float64() < o.PairShare
			pick := r.Uint64()
			cfg, err := netcfg.Preset(preset)
			if err != nil {
				return nil, nil, err
			}
			s.Name = fmt.Sprintf("accuracy %s %d", sample, i)
			s.Network = cfg
			if other, dup := seen[s.ID()]; dup {
				return nil, nil, fmt.Errorf("accuracy: %s draw %d repeats scenario %s of %s", sample, i, s.ID(), other)
			}
			seen[s.ID()] = sample
			out = append(out, Scenario{Draw: i, Sample: sample, Preset: preset, Spec: s})
			if !paired {
				continue
			}
			var ok []change
			for _, c := range changes {
				if c.applies(cfg) {
					ok = append(ok, c)
				}
			}
			if len(ok) == 0 {
				continue
			}
			c := ok[pick%uint64(len(ok))]
			b := s
			if b.Network, err = c.apply(cfg); err != nil {
				return nil, nil, fmt.Errorf("accuracy: %s draw %d: %s: %w", sample, i, c.name, err)
			}
			if err := b.Network.Validate(); err != nil {
				return nil, nil, fmt.Errorf("accuracy: %s draw %d: %s: %w", sample, i, c.name, err)
			}
			b.Name += " " + c.name
			out = append(out, Scenario{Draw: i, Sample: sample, Preset: preset, Change: c.name, Spec: b})
			pairs = append(pairs, Pair{Sample: sample, Draw: i, Change: c.name, A: s, B: b})
		}
	}
	var noise []Scenario
	for _, p := range pairs {
		if p.Sample != SampleAtlas || len(noise) == o.NoisePairs {
			continue
		}
		s := p.A
		s.Seed++
		s.Name += " seed+1"
		if other, dup := seen[s.ID()]; dup {
			return nil, nil, fmt.Errorf("accuracy: noise draw %d repeats scenario %s of %s", p.Draw, s.ID(), other)
		}
		seen[s.ID()] = SampleNoise
		i := slices.IndexFunc(out, func(x Scenario) bool { return x.Sample == p.Sample && x.Draw == p.Draw })
		noise = append(noise, Scenario{Draw: p.Draw, Sample: SampleNoise, Preset: out[i].Preset, Spec: s})
	}
	return append(out, noise...), pairs, nil
}
