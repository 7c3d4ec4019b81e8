// Package accuracy is the accuracy atlas: the study behind "tailscope
// accuracy run|report" that measures every estimator against packetsim
// over a held-out sample of the scenario space a user can ask about, and
// whose summary (lib/atlas) every answer carries as its expected error.
//
// A design (Design) draws scenarios from a seed: every network preset
// of netcfg (stock ns-3's window-based DCTCP, the plain DCTCP, DCQCN,
// TIMELY and HPCC, and the HPCC ns-3 fork's), the fabrics of
// Options.Topologies (the 32-rack fabrics at 1:1, 2:1 and 4:1 by
// default), matrices A, B, C and uniform, the three size distributions,
// burstiness sigma 1-2, max load 20-80%, the flow counts of
// Options.Flows and the switch buffers of Options.Buffers. A share of
// the scenarios come as counterfactual pairs: the same flows under a
// second configuration (ECN threshold, window, marking thresholds,
// HPCC's target, congestion control, buffer, load), for the direction of
// change, optionally run by packetsim under several seeds
// (Options.PairSeeds) so that each pair's change can be told from noise.
// The draws are split into the "atlas" sample, from which the intervals
// are computed, and a disjoint "calibration" sample, on which their
// coverage is measured. A design may be made of parts (Options.Parts),
// each drawn from a seed of its own: the "wide" design of Sizes is.
//
// Run runs every scenario's tasks (packetsim, the ground truth, then
// flowsim, parsimon and m3 with the embedded model that covers the
// network) through lib/experiment, resumable and Slurm-capable; Archive
// keeps the finished scenarios' per-size-bin rows small enough to commit
// (results/accuracy-atlas, which several designs may share); Report
// turns them into the tables and the embedded summary, of one design or
// several (LoadAll).
package accuracy

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/atlas"
	"github.com/tailscope/tailscope/lib/estimator"
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
// names, and the befores of their fixes (Befores).
var Estimators = []string{"flowsim", "parsimon", "m3", estimator.ParsimonPublished, estimator.M3Table4}

// Befores maps each variant run as the before of a fix
// (estimator.AtlasRun) to the estimator it is the before of: Parsimon as
// its paper published it, and m3 with the embedded model it would get
// without the presets models (on a network both choose the same model
// for, that variant is not run). An answer run as a variant carries the
// variant's interval, refusal and direction scores, but the tables of
// answers by default leave the variants out.
var Befores = func() map[string]string {
	b := map[string]string{}
	for _, l := range estimator.Variants {
		b[l], _, _ = estimator.AtlasRun(l, netcfg.Default())
	}
	return b
}()

// isBefore reports whether est is one of Befores.
func isBefore(est string) bool {
	_, ok := Befores[est]
	return ok
}

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
	// Label names a part of a design (Parts) in its scenarios' names
	// ("accuracy <label> atlas 3"), so that two parts never draw the same
	// scenario; "" leaves the names as the first design's.
	Label string
	// Topologies are the topology presets drawn (lib/topo); nil draws
	// the 32-rack fabrics at 1:1, 2:1 and 4:1.
	Topologies []string
	// Networks are the network presets drawn (netcfg.Preset); nil draws
	// every one of Presets.
	Networks []string
	// SizeDists are the flow-size distributions drawn; nil draws the
	// three of Space.
	SizeDists []string
	// Buffers are the switch buffers drawn, by kind: BufferInfinite,
	// BufferPerPort, BufferShared, BufferSharedPFC; a finite buffer's size
	// is drawn in 200-500 KB, the range m3's Table 4 trains on. nil keeps
	// the presets' infinite buffers. A draw of a buffer that loses packets
	// under a congestion control that sends by its rate alone is left out
	// (collapses).
	Buffers []string
	// Changes name the counterfactual changes a pair is drawn from
	// (ChangeNames); nil: the first design's, every change but the
	// buffer and load changes.
	Changes []string
	// PairSeeds is the number of seeds packetsim runs both scenarios of
	// each counterfactual pair under, so that the pair's own seeds tell
	// its change from noise (Directions): 0 or 1 for the drawn seed
	// alone, or an odd number k >= 3, the drawn seed and the next k - 1
	// (the noise sample runs them two seeds a scenario).
	PairSeeds int
	// Skip names estimators of Estimators the design does not run (none
	// of its scenarios has a row of them): estimator.ParsimonPublished,
	// say, where the before and after of Parsimon's defaults is not worth
	// its cost.
	Skip []string
	// Parts, when set, make the design the union of these designs, each
	// drawn from its own Seed under its own Label; a design with parts
	// draws nothing itself (Atlas, Calibration and Flows are zero).
	Parts []Options
}

// Switch buffer kinds a design draws (Options.Buffers), named as m3's
// held-out ablation names them (netcfg.Config.BufferKind).
const (
	BufferInfinite  = "infinite"
	BufferPerPort   = "per-port"
	BufferShared    = "shared"
	BufferSharedPFC = "shared+pfc"
)

// PartLabels are the labels of o's parts, in order; none if o has no
// parts.
func PartLabels(o Options) []string {
	var ls []string
	for _, p := range o.Parts {
		ls = append(ls, p.Label)
	}
	return ls
}

// Sizes are named designs: "tiny" runs end to end in minutes (tests,
// CI), "small" is the first atlas (5k-20k flows on the 32-rack fabrics,
// infinite buffers), "wide" the rest of the space: the 384-rack fabric,
// 50k to 1M flows, finite and shared buffers and PFC, and counterfactual
// pairs of every change, most of them under three seeds each.
var Sizes = map[string]Options{
	"tiny":  {Atlas: 2, Calibration: 1, Seed: 1, Flows: []int{300}, PairShare: 0.5, NoisePairs: 1},
	"small": {Atlas: 400, Calibration: 100, Seed: 1, Flows: []int{5_000, 10_000, 20_000}, PairShare: 0.3, NoisePairs: 30},
	"wide":  wide,
}

// wide is the "wide" design: the parts of the space the small design
// leaves out, sized to about three CPU hours on one core (see
// docs/howto/accuracy.md for the measured costs per scenario).
var wide = Options{Parts: []Options{
	// The 384-rack fabric at 50k and 200k flows.
	{Label: "384", Atlas: 64, Calibration: 16, Seed: 11, Topologies: fabrics384, Networks: modelled,
		Flows: []int{50_000, 200_000}, PairShare: 0.2, Changes: ChangeNames(), Skip: skip},
	// The 384-rack fabric at a million flows: few, and as the papers
	// evaluated it (the rate-based DCTCP, WebServer sizes), whose
	// packetsim runs cost minutes; DCQCN's, or Hadoop's larger flows,
	// cost several times more.
	{Label: "384-1M", Atlas: 8, Calibration: 2, Seed: 12, Topologies: fabrics384, Networks: []string{"dctcp"},
		SizeDists: []string{"webserver"}, Flows: []int{1_000_000}, Skip: skip},
	// The 32-rack fabrics at 50k flows, and at 200k one time in three.
	{Label: "32-large", Atlas: 24, Calibration: 6, Seed: 13, Flows: []int{50_000, 50_000, 200_000},
		PairShare: 0.2, Changes: ChangeNames(), Skip: skip},
	// Finite, shared and lossless buffers on the 32-rack fabrics.
	{Label: "buffers", Atlas: 48, Calibration: 12, Seed: 14, Flows: []int{10_000, 20_000},
		Buffers: []string{BufferPerPort, BufferShared, BufferSharedPFC}, PairShare: 0.3, Changes: ChangeNames(), PairSeeds: 3, Skip: skip},
	// Counterfactual pairs with enough flows and seeds to tell packetsim's
	// change from its seed noise, pair by pair.
	{Label: "pairs", Atlas: 16, Calibration: 4, Seed: 15, Networks: modelled, Flows: []int{50_000},
		Buffers: []string{BufferInfinite, BufferInfinite, BufferShared, BufferSharedPFC}, PairShare: 1, Changes: ChangeNames(), PairSeeds: 3, Skip: skip},
}}

// modelled are the network presets some fast estimator models: all but
// stock ns-3's, whose FIFO host NICs none does.
var modelled = slices.DeleteFunc(Presets(), func(p string) bool { return p == "ns3" })

// skip: the wide design does not run Parsimon as published (the small
// design measures its before and after; here it would cost a third of
// the estimators' time). Dropping it from a part later runs it on the
// part's finished scenarios.
var skip = []string{estimator.ParsimonPublished}

// fabrics384 are the 384-rack fabrics lib/topo has.
var fabrics384 = []string{"meta384-1:1", "meta384-2:1"}

// Scenario is one scenario of the design.
type Scenario struct {
	// Draw is the draw's index within its sample (and its part).
	Draw   int
	Sample string
	// Part is the label of the design's part the scenario was drawn in
	// (Options.Label).
	Part string
	// Preset is the network preset drawn (netcfg.Preset).
	Preset string
	// Change is "" for a drawn scenario; for the second scenario of a
	// counterfactual pair, the change of its network ("k_bytes=60000"),
	// and so for the noise sample's runs of it under other seeds.
	Change string
	// Pair is the scenario ID of the first scenario of the
	// counterfactual pair the scenario belongs to, under the drawn seed
	// ("" for a scenario of no pair): a pair's two scenarios and their
	// runs under other seeds share it.
	Pair string
	// Skip are the estimators not run on the scenario (Options.Skip).
	Skip []string
	Spec scenario.Spec
}

// Pair is a counterfactual pair: two scenarios with the same flows under
// two network configurations (or the load change's: the same sizes and
// hosts at another load).
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

// change is a counterfactual's change to a scenario. field names the
// setting it changes as a what-if sweep names it (netcfg.Config.Set's
// path; "max_load" for the workload's load) for a scenario of network
// family net (atlas.NetworkFamily) and buffer band buffer
// (atlas.BufferBand).
type change struct {
	name    string
	field   func(net, buffer string) string
	applies func(s scenario.Spec) bool
	apply   func(s scenario.Spec) (scenario.Spec, error)
}

// path is a change's field that is the same path in every network.
func path(p string) func(net, buffer string) string {
	return func(string, string) string { return p }
}

// ChangedField is the setting the atlas's change of the given name
// changes (change.field) in a scenario of region r, "" for a name that
// is no change of the atlas's.
func ChangedField(name string, r atlas.Region) string {
	for _, c := range changes {
		if c.name == name {
			return c.field(r.Network, r.Buffer)
		}
	}
	return ""
}

// onNet lifts a change of the network configuration to one of the spec.
func onNet(f func(c netcfg.Config) (netcfg.Config, error)) func(s scenario.Spec) (scenario.Spec, error) {
	return func(s scenario.Spec) (scenario.Spec, error) {
		var err error
		s.Network, err = f(s.Network)
		return s, err
	}
}

// set changes the field at path (netcfg.Config.Set) to value.
func set(path, value string) func(s scenario.Spec) (scenario.Spec, error) {
	return onNet(func(c netcfg.Config) (netcfg.Config, error) { return c.Set(path, json.RawMessage(value)) })
}

func ccIs(ccs ...string) func(s scenario.Spec) bool {
	return func(s scenario.Spec) bool { return slices.Contains(ccs, s.Network.CC) }
}

// changes are the counterfactuals of m3 §5.4's kind a user asks: the ECN
// threshold K, the window (DCTCP's, and a window of 9 KB under the other
// rate-based congestion controls), DCQCN's marking thresholds, HPCC's
// target utilization, the congestion control itself, the switch buffer
// and the load. The first design draws from the first six (defaultChanges): a
// design's draws depend on the number of changes that apply.
var changes = []change{
	{"k_bytes=60000", path("k_bytes"), ccIs("dctcp", "dctcp-window"), set("k_bytes", "60000")},
	{"dctcp.window_bytes=9000", path("dctcp.window_bytes"), ccIs("dctcp"), set("dctcp.window_bytes", "9000")},
	{"dcqcn.kmin_bytes=50000,kmax_bytes=100000", path("dcqcn.kmin_bytes,dcqcn.kmax_bytes"), ccIs("dcqcn"), onNet(func(c netcfg.Config) (netcfg.Config, error) {
		c.DCQCN.KminBytes, c.DCQCN.KmaxBytes = 50_000, 100_000
		return c, nil
	})},
	{"hpcc.eta=0.7", path("hpcc.eta"), ccIs("hpcc"), set("hpcc.eta", "0.7")},
	{"timely.tlow_nanos=25000", path("timely.tlow_nanos"), ccIs("timely"), set("timely.tlow_nanos", "25000")},
	{"cc=hpcc", path("cc"), ccIs("dctcp", "dcqcn", "timely"), onNet(func(c netcfg.Config) (netcfg.Config, error) {
		fork := c.ForkRules()
		c.CC = "hpcc"
		if fork {
			c = c.WithForkRules()
		}
		return c, nil
	})},
	{"buffer*2", func(_, buffer string) string {
		if buffer == atlas.BufferBand(netcfg.Config{BufferBytes: 1}) {
			return "buffer_bytes"
		}
		return "buffer.shared_bytes"
	}, func(s scenario.Spec) bool { return s.Network.BufferBytes > 0 || s.Network.SharedBuffer() },
		onNet(func(c netcfg.Config) (netcfg.Config, error) {
			c.BufferBytes *= 2
			c.Buffer.SharedBytes *= 2
			return c, nil
		})},
	{"window_bytes=9000", func(net, _ string) string { return strings.TrimPrefix(net, "fork-") + ".window_bytes" }, ccIs("dcqcn", "timely", "hpcc"), onNet(func(c netcfg.Config) (netcfg.Config, error) {
		switch c.CC {
		case "dcqcn":
			c.DCQCN.WindowBytes = 9000
		case "timely":
			c.TIMELY.WindowBytes = 9000
		case "hpcc":
			c.HPCC.WindowBytes = 9000
		}
		return c, nil
	})},
	{"max_load+0.1", path("max_load"), func(s scenario.Spec) bool {
		return len(s.Workload.Components) == 1 && s.Workload.Components[0].MaxLoad <= 0.7
	}, func(s scenario.Spec) (scenario.Spec, error) {
		s.Workload.Components = slices.Clone(s.Workload.Components)
		s.Workload.Components[0].MaxLoad += 0.1
		return s, nil
	}},
}

// defaultChanges is the number of changes the first design draws from.
const defaultChanges = 6

// ChangeNames lists the counterfactual changes a design can draw
// (Options.Changes), in order.
func ChangeNames() []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.name
	}
	return out
}

// changesOf are the changes o draws from.
func (o Options) changesOf() []change {
	if o.Changes == nil {
		return changes[:defaultChanges]
	}
	var out []change
	for _, c := range changes {
		if slices.Contains(o.Changes, c.name) {
			out = append(out, c)
		}
	}
	return out
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

// space is Space with o's topologies.
func (o Options) space() experiment.Space {
	s := Space(o.Flows)
	if o.Topologies != nil {
		s.Presets = o.Topologies
	}
	if o.SizeDists != nil {
		s.Sizes = o.SizeDists
	}
	return s
}

// Check reports options that cannot make a design.
func (o Options) Check() error {
	if len(o.Parts) > 0 {
		if o.Atlas != 0 || o.Calibration != 0 || len(o.Flows) != 0 {
			return fmt.Errorf("accuracy: a design of %d parts draws nothing itself, got %d atlas and %d calibration draws of %v flows", len(o.Parts), o.Atlas, o.Calibration, o.Flows)
		}
		labels := map[string]bool{}
		for i, p := range o.Parts {
			if len(p.Parts) > 0 {
				return fmt.Errorf("accuracy: part %d (%q) has parts of its own", i, p.Label)
			}
			if p.Label == "" || labels[p.Label] {
				return fmt.Errorf("accuracy: part %d: label %q is empty or not unique", i, p.Label)
			}
			labels[p.Label] = true
			if err := p.Check(); err != nil {
				return fmt.Errorf("accuracy: part %q: %w", p.Label, err)
			}
		}
		return nil
	}
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
	if o.PairSeeds < 0 || (o.PairSeeds > 1 && o.PairSeeds%2 == 0) {
		return fmt.Errorf("accuracy: pair seeds %d: want 1 or an odd number (each noise scenario runs two seeds)", o.PairSeeds)
	}
	for _, b := range o.Buffers {
		if !slices.Contains([]string{BufferInfinite, BufferPerPort, BufferShared, BufferSharedPFC}, b) {
			return fmt.Errorf("accuracy: buffer %q: want %s, %s, %s or %s", b, BufferInfinite, BufferPerPort, BufferShared, BufferSharedPFC)
		}
	}
	for _, n := range o.Networks {
		if _, err := netcfg.Preset(n); err != nil {
			return fmt.Errorf("accuracy: network: %w", err)
		}
	}
	for _, e := range o.Skip {
		if !slices.Contains(Estimators, e) {
			return fmt.Errorf("accuracy: skip: %q is not an estimator the atlas runs (%v)", e, Estimators)
		}
	}
	for _, c := range o.Changes {
		if !slices.Contains(ChangeNames(), c) {
			return fmt.Errorf("accuracy: unknown change %q (known: %v)", c, ChangeNames())
		}
	}
	return o.space().Validate()
}

// collapses reports whether cfg's network is in congestion collapse under
// load: a buffer that loses packets under DCQCN or TIMELY without a
// window, whose senders go back N at their rate however many packets are
// lost. packetsim simulates it as it is, at a cost no atlas can pay: a
// DCQCN run over a lossy shared buffer at 58% load lost 22% of its
// packets at 2,000 flows and took 100 CPU seconds at 4,000, and did not
// finish in half an hour at 10,000. RoCE networks run these controls over
// PFC.
func collapses(cfg netcfg.Config) bool {
	return cfg.Lossy() && (cfg.CC == "dcqcn" || cfg.CC == "timely") && cfg.WindowCapBytes() == 0
}

// withBuffer is cfg with a switch buffer of kind and size bytes.
func withBuffer(cfg netcfg.Config, kind string, bytes int64) netcfg.Config {
	switch kind {
	case BufferPerPort:
		cfg.BufferBytes = bytes
	case BufferShared, BufferSharedPFC:
		cfg.Buffer.SharedBytes = bytes
		cfg.PFC.Enabled = kind == BufferSharedPFC
	}
	return cfg
}

// Design draws the scenarios of o: the atlas sample's, then the
// calibration sample's, each draw's scenario followed by its
// counterfactual partner if it has one, then the noise sample's (the
// pairs' scenarios under their further seeds (Options.PairSeeds), and
// the first scenario of the atlas's first o.NoisePairs other pairs under
// seed + 1; TaskOf runs each under the next seed as well). The two drawn
// samples come from separate streams of o.Seed and share no scenario. A
// design of parts is its parts' designs, in order.
func Design(o Options) ([]Scenario, []Pair, error) {
	if err := o.Check(); err != nil {
		return nil, nil, err
	}
	parts := o.Parts
	if len(parts) == 0 {
		parts = []Options{o}
	}
	var out, noise []Scenario
	var pairs []Pair
	seen := map[string]string{}
	for _, p := range parts {
		scs, ns, ps, err := design(p, seen)
		if err != nil {
			return nil, nil, err
		}
		out, noise, pairs = append(out, scs...), append(noise, ns...), append(pairs, ps...)
	}
	return append(out, noise...), pairs, nil
}

// design draws one part's scenarios (Design), its noise sample apart;
// seen holds every scenario ID drawn so far and its sample.
func design(o Options, seen map[string]string) (out, noise []Scenario, pairs []Pair, err error) {
	where := func(sample string, i int) string {
		if o.Label != "" {
			return fmt.Sprintf("%s %s draw %d", o.Label, sample, i)
		}
		return fmt.Sprintf("%s draw %d", sample, i)
	}
	add := func(s Scenario) error {
		if other, dup := seen[s.Spec.ID()]; dup {
			return fmt.Errorf("accuracy: %s repeats scenario %s of %s", where(s.Sample, s.Draw), s.Spec.ID(), other)
		}
		seen[s.Spec.ID()] = s.Sample
		if s.Sample == SampleNoise {
			noise = append(noise, s)
		} else {
			out = append(out, s)
		}
		return nil
	}
	// seeded runs both scenarios of a pair under the further seeds.
	seeded := func(sc ...Scenario) error {
		for j := 1; j < o.PairSeeds; j += 2 {
			for _, s := range sc {
				s.Sample = SampleNoise
				s.Spec.Seed += uint64(j)
				s.Spec.Name += fmt.Sprintf(" seed+%d", j)
				if err := add(s); err != nil {
					return err
				}
			}
		}
		return nil
	}
	name := "accuracy "
	if o.Label != "" {
		name += o.Label + " "
	}
	for k, sample := range []string{SampleAtlas, SampleCalibration} {
		n := o.Atlas
		if sample == SampleCalibration {
			n = o.Calibration
		}
		if n == 0 {
			continue
		}
		seed := o.Seed*2 + uint64(k)
		specs, err := experiment.Sample(o.space(), n, seed)
		if err != nil {
			return nil, nil, nil, err
		}
		r := rand.New(rand.NewPCG(seed, 0x61746c6173))      // "atlas"
		rb := rand.New(rand.NewPCG(seed, 0x62756666657273)) // "buffers": a stream of its own, so the other draws stay
		presets := Presets()
		if o.Networks != nil {
			presets = o.Networks
		}
		for i, s := range specs {
			preset := presets[r.IntN(len(presets))]
			paired := r.Float64() < o.PairShare
			pick := r.Uint64()
			cfg, err := netcfg.Preset(preset)
			if err != nil {
				return nil, nil, nil, err
			}
			if len(o.Buffers) > 0 {
				kind := o.Buffers[rb.IntN(len(o.Buffers))]
				cfg = withBuffer(cfg, kind, 1000*int64(200+rb.IntN(301)))
				if collapses(cfg) {
					continue // the draws after it stay as they are
				}
			}
			s.Name = fmt.Sprintf("%s%s %d", name, sample, i)
			s.Network = cfg
			a := Scenario{Draw: i, Sample: sample, Part: o.Label, Preset: preset, Skip: o.Skip, Spec: s}
			var ok []change
			for _, c := range o.changesOf() {
				if !c.applies(s) {
					continue
				}
				if b, err := c.apply(s); err == nil && collapses(b.Network) {
					continue // nor a pair's second scenario
				}
				ok = append(ok, c)
			}
			if !paired || len(ok) == 0 {
				if err := add(a); err != nil {
					return nil, nil, nil, err
				}
				continue
			}
			c := ok[pick%uint64(len(ok))]
			b, err := c.apply(s)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("accuracy: %s: %s: %w", where(sample, i), c.name, err)
			}
			if err := b.Network.Validate(); err != nil {
				return nil, nil, nil, fmt.Errorf("accuracy: %s: %s: %w", where(sample, i), c.name, err)
			}
			b.Name += " " + c.name
			a.Pair = s.ID()
			sb := a
			sb.Change, sb.Spec = c.name, b
			for _, x := range []Scenario{a, sb} {
				if err := add(x); err != nil {
					return nil, nil, nil, err
				}
			}
			if err := seeded(a, sb); err != nil {
				return nil, nil, nil, err
			}
			pairs = append(pairs, Pair{Sample: sample, Draw: i, Change: c.name, A: s, B: b})
		}
	}
	if o.PairSeeds > 1 {
		return out, noise, pairs, nil // every pair has its seeds
	}
	n := 0
	for _, p := range pairs {
		if p.Sample != SampleAtlas || n == o.NoisePairs {
			continue
		}
		n++
		i := slices.IndexFunc(out, func(x Scenario) bool { return x.Sample == p.Sample && x.Draw == p.Draw })
		s := out[i]
		s.Sample = SampleNoise
		s.Spec.Seed++
		s.Spec.Name += " seed+1"
		if err := add(s); err != nil {
			return nil, nil, nil, err
		}
	}
	return out, noise, pairs, nil
}
