package estimator

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/tailscope/tailscope/internal/cputime"
	"github.com/tailscope/tailscope/lib/atlas"
	"github.com/tailscope/tailscope/lib/flowsim"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
)

// The m3 options are m3.Options from JSON: zero values take m3's defaults,
// seed 0 the scenario's seed, and "model" (Options.ModelName) names the
// model, whose digest the options resolve with: "" the default embedded
// model, a name of m3.EmbeddedModels another embedded one, "none" flowSim
// alone, anything else a model file's path.

func init() {
	register(m3.Name, func(opts []byte) (string, error) {
		_, canon, err := m3Resolve(opts)
		return canon, err
	}, runM3)
	modelers[m3.Name] = func(cfg netcfg.Config, opts []byte) error {
		o, _, err := m3Resolve(opts)
		if err != nil {
			return err
		}
		model, err := m3Model(o.ModelName)
		if err != nil {
			return err
		}
		if model == nil {
			// flowSim alone answers every configuration but one whose
			// host NICs are not the fluid fair share flowSim runs.
			return cfg.RoundRobinNICs("m3 (model \"none\", flowSim alone)")
		}
		err = model.Space().Covers(cfg)
		if err == nil {
			return nil
		}
		// Say which embedded models would answer, if any would.
		var answer []string
		for _, name := range m3.EmbeddedModels() {
			if m, merr := m3Model(name); merr == nil && name != o.ModelName && m.Space().Covers(cfg) == nil {
				answer = append(answer, KeyedOptions(map[string]string{m3.Name: fmt.Sprintf(`{"model":%q}`, name)}))
			}
		}
		if len(answer) > 0 {
			return &OptionsRefusal{Reason: err, Alternatives: answer} // an embedded model was
		}
		return err
	}
}

// M3Model is the embedded m3 model a user would get on cfg: the default
// model if it covers cfg, else the first embedded model that does, in
// the order of m3.EmbeddedModels (the presets models, whose ranges hold
// the Table-4 models' and the presets', before those; a model trained
// under the HPCC ns-3 fork's rules alone covers a network under them),
// "" with ok false when none does. The accuracy atlas measures m3 with
// it.
func M3Model(cfg netcfg.Config) (name string, ok bool) {
	return M3ModelAmong(cfg, append([]string{""}, m3.EmbeddedModels()...))
}

// M3ModelBefore is M3Model without the presets models: the model m3
// got before they were trained, which the accuracy atlas measures as
// M3Table4.
func M3ModelBefore(cfg netcfg.Config) (name string, ok bool) {
	var names []string
	for _, n := range append([]string{""}, m3.EmbeddedModels()...) {
		if !strings.HasPrefix(n, "presets") {
			names = append(names, n)
		}
	}
	return M3ModelAmong(cfg, names)
}

// M3ModelAmong is the first of the embedded models names ("" the
// default) whose model covers cfg.
func M3ModelAmong(cfg netcfg.Config, names []string) (name string, ok bool) {
	for _, n := range names {
		if Models(m3.Name, M3Options(n), cfg) == nil {
			return n, true
		}
	}
	return "", false
}

// M3Options is the m3 options JSON choosing embedded model name ("" the
// default model, whose options are the defaults).
func M3Options(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf(`{"model":%q}`, name)
}

// embeddedModels load each embedded model once per process.
var embeddedModels = func() map[string]func() (*m3.Model, error) {
	ms := map[string]func() (*m3.Model, error){}
	for _, name := range append([]string{""}, m3.EmbeddedModels()...) {
		ms[name] = sync.OnceValues(func() (*m3.Model, error) { return m3.EmbeddedModel(name) })
	}
	return ms
}()

// m3Model is the model the option model names: nil for "none".
func m3Model(name string) (*m3.Model, error) {
	if load, ok := embeddedModels[name]; ok {
		return load()
	}
	if name == "none" {
		return nil, nil
	}
	return m3.LoadModel(name)
}

// m3Resolve reads m3's options and fills in the digest of the model they
// name, returning them with their canonical JSON.
func m3Resolve(opts []byte) (m3.Options, string, error) {
	var o m3.Options
	if err := decode(opts, &o); err != nil {
		return o, "", err
	}
	var digest string
	if _, ok := embeddedModels[o.ModelName]; ok {
		model, err := m3Model(o.ModelName)
		if err != nil {
			return o, "", err
		}
		digest = model.Digest()
	} else if o.ModelName != "none" {
		var err error
		if digest, err = m3.FileDigest(o.ModelName); err != nil {
			return o, "", err
		}
	}
	if o.ModelDigest != "" && o.ModelDigest != digest {
		return o, "", fmt.Errorf("model_digest %s does not match the model's, %q", o.ModelDigest, digest)
	}
	o.ModelDigest = digest
	return o, encode(o), nil
}

// The frame metadata (Result.Extra) in which an m3 run counts its
// simulated paths and, when its model records training ranges, those
// outside them and the inputs that were.
const (
	extraSimulated = "paths_simulated"
	extraOutside   = "paths_outside_training"
	extraEntries   = "entries_outside_training"
)

// Outside reads a run's frame metadata extra for the inputs outside its
// model's training ranges: paths of the simulated paths lay outside, in
// the inputs entries. ok is false where the run cannot tell (another
// estimator, or an m3 model that records no ranges).
func Outside(extra map[string]string) (paths, simulated int, entries []string, ok bool) {
	paths, err1 := strconv.Atoi(extra[extraOutside])
	simulated, err2 := strconv.Atoi(extra[extraSimulated])
	if err1 != nil || err2 != nil {
		return 0, 0, nil, false
	}
	if e := extra[extraEntries]; e != "" {
		entries = strings.Split(e, ",")
	}
	return paths, simulated, entries, true
}

func runM3(ctx context.Context, sc *scenario.Scenario, opts []byte, emit func(metrics.Record) error) (*Result, error) {
	o, canon, err := m3Resolve(opts)
	if err != nil {
		return nil, err
	}
	mo := o
	mo.Emit = emit
	if mo.Seed == 0 {
		mo.Seed = sc.Spec.Seed
	}
	if mo.Model, err = m3Model(o.ModelName); err != nil {
		return nil, err
	}
	extra := map[string]string{}
	if mo.Model == nil {
		extra["network_model"] = flowsim.Options{WindowCap: mo.WindowCap}.NetworkModel()
	}
	cpu0 := cputime.Used()
	est, err := m3.Run(ctx, sc.Net, sc.Flows, sc.Spec.Network, mo)
	if err != nil {
		return nil, err
	}
	extra["paths"], extra[extraSimulated] = strconv.Itoa(est.Paths), strconv.Itoa(est.Simulated)
	extra[ExtraCCFamily] = atlas.NetworkFamily(sc.Spec.Network)
	if mo.Model != nil && mo.Model.Info.SpecRange != nil {
		// Models that record their training ranges say how many paths
		// they extrapolated on (older models cannot tell).
		extra[extraOutside] = strconv.Itoa(est.Outside)
		if est.Outside > 0 {
			extra[extraEntries] = strings.Join(est.OutsideEntries, ",")
			progress.Report(reporter(ctx, m3.Name), 0, 0, fmt.Sprintf("warning: %d of %d simulated paths lie outside the model's training range in %s: its corrections there are extrapolations",
				est.Outside, est.Simulated, strings.Join(est.OutsideEntries, ", ")))
		}
	}
	return &Result{
		Options: canon,
		Extra:   extra,
		// Where time and memory went, in the run log beside the frame
		// (they differ between reruns). CPU time is the process's during
		// the run (model loading excluded), peak RSS the process's so far
		// (scenario building and earlier estimators included).
		Timings: map[string]float64{
			"decompose_s":    est.Stats.DecomposeSeconds,
			"simulate_s":     est.Stats.SimulateSeconds,
			"records_s":      est.Stats.RecordsSeconds,
			"cpu_s":          (cputime.Used() - cpu0).Seconds(),
			"heap_bytes":     float64(est.Stats.HeapBytes),
			"peak_rss_bytes": float64(cputime.PeakRSS()),
		},
	}, nil
}

// ExtraTrainingRange is the frame metadata key under which an m3 answer
// given anyway outside its model's training range records why m3 would
// have refused.
const ExtraTrainingRange = "training_range_refusal"

// inRange checks, before any simulation, that m3's model was trained on
// the ranges of the scenario's network-spec entries (m3.Model.Extrapolations)
// on its routes from the first and from the last host to every other
// host, which on a fabric are every kind of route: outside, m3 refuses
// with a *Refusal naming the entries, their parameters and ranges, and
// what to run instead, unless anyway; then it answers, and extra (the
// frame's metadata, created if nil) says so. Other estimators pass.
func inRange(name string, sc *scenario.Scenario, options string, anyway bool, extra map[string]string) (map[string]string, error) {
	if name != m3.Name {
		return extra, nil
	}
	o, _, err := m3Resolve([]byte(options))
	if err != nil {
		return extra, err
	}
	model, err := m3Model(o.ModelName)
	if err != nil || model == nil {
		return extra, err
	}
	routes, err := m3Routes(sc)
	if err != nil {
		return extra, err
	}
	ex := model.Extrapolations(sc.Net, routes, sc.Spec.Network)
	if len(ex) == 0 {
		return extra, nil
	}
	model_ := o.ModelName
	if model_ == "" {
		model_ = "the default model"
	} else {
		model_ = "model " + strconv.Quote(model_)
	}
	var parts []string
	for _, e := range ex {
		parts = append(parts, e.String())
	}
	reason := fmt.Sprintf("m3 (%s) was not trained on this network: %s; its answer would be an extrapolation nobody checked",
		model_, strings.Join(parts, "; "))
	instead := "run packetsim (exact, slower) or Parsimon, bring the parameters into the model's range, or train a model that covers them (tailscope m3 gendata, m3 train)"
	var others []string
	for _, n := range m3.EmbeddedModels() {
		if n == o.ModelName {
			continue
		}
		if m, merr := m3Model(n); merr == nil && m.Space().Covers(sc.Spec.Network) == nil && len(m.Extrapolations(sc.Net, routes, sc.Spec.Network)) == 0 {
			others = append(others, KeyedOptions(map[string]string{m3.Name: fmt.Sprintf(`{"model":%q}`, n)}))
		}
	}
	if len(others) > 0 {
		instead = "run m3 with " + strings.Join(others, " or ") + ", which was trained on it, or " + instead
	}
	if !anyway {
		return extra, &Refusal{Expectation: atlas.Expectation{Estimator: name, Refuse: true, Reason: reason}, Instead: instead}
	}
	if extra == nil {
		extra = map[string]string{}
	}
	extra["answered_anyway"] = "true"
	extra[ExtraTrainingRange] = reason
	if extra["atlas_refusal"] == "" {
		// ExpectationLines prints the reason of an answer given anyway
		// from here.
		extra["atlas_refusal"] = reason
	}
	return extra, nil
}

// m3Routes are the routes inRange checks: from the first host and from
// the last to every other host.
func m3Routes(sc *scenario.Scenario) ([][]int, error) {
	hosts := sc.Net.Hosts()
	if len(hosts) < 2 {
		return nil, nil
	}
	var routes [][]int
	for _, src := range []int{hosts[0], hosts[len(hosts)-1]} {
		for _, dst := range hosts {
			if dst == src {
				continue
			}
			p, err := sc.Net.Path(0, src, dst)
			if err != nil {
				return nil, fmt.Errorf("m3: route from host %d to host %d: %w", src, dst, err)
			}
			routes = append(routes, p)
		}
	}
	return routes, nil
}

// InRange returns nil if the named estimator, with options, answers sc
// as far as its training ranges go: m3 refuses, with a *Refusal, a
// network whose spec entries lie outside its model's training ranges
// unless the options answer anyway; every other estimator passes. Run
// and Stream check it themselves; commands that run several estimators
// check it for each, after Answers, before running any.
func InRange(name, options string, sc *scenario.Scenario) error {
	rest, anyway, err := splitAnyway(options)
	if err != nil {
		return fmt.Errorf("estimator %s: %w", name, err)
	}
	if _, err := inRange(name, sc, rest, anyway, nil); err != nil {
		return fmt.Errorf("estimator %s: %w", name, err)
	}
	return nil
}
