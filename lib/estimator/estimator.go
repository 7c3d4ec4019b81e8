// Package estimator runs the FCT estimators by name on a scenario, all
// returning the same records, and writes their results as frames. It adapts
// each estimator package's own Run to one signature so that the command
// line, the experiment runner and the notebooks treat them alike.
package estimator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

// Result is what one estimator produced for one scenario.
type Result struct {
	Estimator   string
	ScenarioID  string
	Records     []metrics.Record
	Options     string  // the options used, JSON
	WallSeconds float64 // the estimator's own run time, scenario building excluded
	// Extra holds estimator-specific figures (events, drops, ...), stored
	// in the frame's metadata.
	Extra map[string]string
	// Streamed is the number of records Stream wrote to its frame.
	Streamed int
	// Timings holds further run times in seconds by name, stored with
	// WallSeconds in the run log beside the frame (frame.Meta.Timings).
	Timings map[string]float64
}

// runner runs one estimator on sc; opts is its options as JSON (possibly
// empty). It hands every record to emit in flow order, as it is produced
// where the estimator allows, and returns a Result without Records: Run
// collects them, Stream writes them to a frame a row group at a time.
type runner func(ctx context.Context, sc *scenario.Scenario, opts []byte, emit func(metrics.Record) error) (*Result, error)

// emitAll hands recs to emit in order: the runners of estimators that
// produce all their records at once.
func emitAll(recs []metrics.Record, emit func(metrics.Record) error) error {
	for _, r := range recs {
		if err := emit(r); err != nil {
			return err
		}
	}
	return nil
}

// entry is a registered estimator: how it reads its options (their
// canonical JSON, as a run records it in Result.Options) and how it runs.
type entry struct {
	options func(opts []byte) (string, error)
	run     runner
}

var registry = map[string]entry{}

// modelers hold, for the estimators that do not model every network
// configuration, the check of one: nil if the estimator with these
// options models cfg, else an error saying what it cannot.
var modelers = map[string]func(cfg netcfg.Config, opts []byte) error{}

// Models returns nil if the named estimator, with options, models the
// network configuration cfg, else an error naming the estimator and what
// it cannot model; Run, Stream and RunParsimon refuse such a run before
// starting it, so that no estimator answers silently for a network it
// does not simulate. packetsim and dscale (packetsim on a replica) model
// every configuration; flowsim, pfs and m3 with model "none" answer every
// configuration with round-robin host NICs (netcfg.Config.HostNIC) with a
// fluid max-min simulation that has no congestion control, ECN or buffers
// (flowsim.Options.NetworkModel, in their frames' extra metadata as
// network_model), and refuse FIFO host NICs; m3 refuses what its model was not trained
// on (m3.Space), ns3 and parsimon-ns3 what stock ns-3 does not run
// (ns3.Models), parsimon and parsimon-c what their link-level backend
// cannot run (parsimon.Models).
func Models(name, options string, cfg netcfg.Config) error {
	if err := Check(name); err != nil {
		return err
	}
	options, _, err := splitAnyway(options)
	if err != nil {
		return fmt.Errorf("estimator %s: %w", name, err)
	}
	if m, ok := modelers[name]; ok {
		if err := m(cfg, []byte(options)); err != nil {
			if r, ok := err.(*OptionsRefusal); ok {
				r.Estimator = name
				return r
			}
			return fmt.Errorf("estimator %s: %w", name, err)
		}
	}
	return nil
}

func register(name string, options func(opts []byte) (string, error), r runner) {
	registry[name] = entry{options: options, run: r}
}

// typed is the options reader of an estimator whose options are the
// struct newOpts points to: it reads options strictly into it and returns
// their canonical JSON. (Not generic: the kernel's interpreter binds this
// package.)
func typed(newOpts func() any) func(opts []byte) (string, error) {
	return func(opts []byte) (string, error) {
		o := newOpts()
		if err := decode(opts, o); err != nil {
			return "", err
		}
		return encode(o), nil
	}
}

// Resolve returns the canonical JSON of the named estimator's options as
// a run with options records it (Result.Options, the frame's provenance):
// read strictly, re-encoded, with the defaults that choose the model
// filled in (Parsimon's link backend). Runs with equal resolved options do
// equal work, so a sweep keys its results by them.
func Resolve(name, options string) (string, error) {
	if err := Check(name); err != nil {
		return "", err
	}
	options, anyway, err := splitAnyway(options)
	if err != nil {
		return "", fmt.Errorf("estimator %s: %w", name, err)
	}
	canon, err := registry[name].options([]byte(options))
	if err != nil {
		return "", fmt.Errorf("estimator %s: %w", name, err)
	}
	return withAnyway(canon, anyway), nil
}

// DecodeOptions reads options JSON strictly into v (an unknown field is
// an error); empty options leave v as it is, the defaults.
func DecodeOptions(options string, v any) error { return decode([]byte(options), v) }

// Names lists the estimators Run knows.
func Names() []string { return slices.Sorted(maps.Keys(registry)) }

// Check returns an error naming the first of names that is not a known
// estimator, or an error if there are none: commands check every name
// before they start any work.
func Check(names ...string) error {
	if len(names) == 0 {
		return fmt.Errorf("estimator: no estimators named (known: %s)", strings.Join(Names(), ", "))
	}
	for _, n := range names {
		if _, ok := registry[n]; !ok {
			return fmt.Errorf("estimator: unknown estimator %q (known: %s)", n, strings.Join(Names(), ", "))
		}
	}
	return nil
}

// Run runs the named estimator on sc. options is a JSON object of the
// estimator's options ("" for defaults); unknown options are errors.
//
// The answer carries the accuracy atlas's expected error for the
// scenario's region in its Extra (Expect); where the atlas says the
// estimator answers such scenarios badly, Run refuses with a *Refusal
// unless the options hold {"answer_anyway":true} (AnswerAnyway).
func Run(ctx context.Context, name string, sc *scenario.Scenario, options string) (*Result, error) {
	if err := Models(name, options, sc.Spec.Network); err != nil {
		return nil, err
	}
	options, anyway, err := splitAnyway(options)
	if err != nil {
		return nil, err
	}
	extra, err := answers(name, options, sc.Spec, anyway || measuring(ctx))
	if err != nil {
		return nil, fmt.Errorf("estimator %s: %w", name, err)
	}
	if extra, err = inRange(name, sc, options, anyway || measuring(ctx), extra); err != nil {
		return nil, fmt.Errorf("estimator %s: %w", name, err)
	}
	r := registry[name].run
	return timed(name, sc, func() (*Result, error) {
		recs := make([]metrics.Record, 0, len(sc.Flows))
		res, err := r(ctx, sc, []byte(options), func(rec metrics.Record) error {
			recs = append(recs, rec)
			return nil
		})
		if err != nil {
			return nil, err
		}
		res.Records = recs
		res.Options = withAnyway(res.Options, anyway)
		addExtra(res, extra)
		return res, nil
	})
}

// timed runs estimator name on sc through run and fills in the result's
// name, scenario and wall time.
func timed(name string, sc *scenario.Scenario, run func() (*Result, error)) (*Result, error) {
	t0 := time.Now()
	res, err := run()
	if err != nil {
		return nil, fmt.Errorf("estimator %s: %w", name, err)
	}
	res.Estimator, res.ScenarioID = name, sc.ID
	res.WallSeconds = time.Since(t0).Seconds()
	return res, nil
}

// decode reads estimator options strictly into v; empty means defaults.
func decode(opts []byte, v any) error {
	if len(bytes.TrimSpace(opts)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(opts))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("bad options %s: %w", opts, err)
	}
	return nil
}

// encode is the canonical JSON of options, for provenance.
func encode(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Write stores the result's records as a frame (Parquet or Arrow IPC by
// extension) with the scenario spec, seed, options and wall time as
// provenance.
func (r *Result) Write(path string, sc *scenario.Scenario) error {
	return frame.WriteRecords(path, r.Records, r.meta(sc))
}

// meta is the provenance of the result's frame.
func (r *Result) meta(sc *scenario.Scenario) frame.Meta {
	return frame.Meta{
		ScenarioID:  sc.ID,
		Estimator:   r.Estimator,
		Network:     sc.Net.Name,
		Spec:        sc.Given().JSON(),
		Seed:        sc.Spec.Seed,
		Options:     r.Options,
		WallSeconds: r.WallSeconds,
		Timings:     r.Timings,
		Extra:       r.Extra,
	}
}

// streamer is an estimator that runs on flows as they are drawn: options
// returns the canonical JSON of its options, run hands the records to
// emit in flow order as they are produced.
type streamer struct {
	options func(opts []byte) (string, error)
	run     func(ctx context.Context, sc *scenario.Scenario, src workload.Source, opts []byte, emit func(metrics.Record) error) (*Result, error)
}

var streamers = map[string]streamer{}

// registerStream registers a streaming estimator, and for runs on a
// scenario's flows the same estimator drawing them again from its source.
func registerStream(name string, s streamer) {
	streamers[name] = s
	register(name, s.options, func(ctx context.Context, sc *scenario.Scenario, opts []byte, emit func(metrics.Record) error) (*Result, error) {
		src, err := sc.Source()
		if err != nil {
			return nil, err
		}
		return s.run(ctx, sc, src, opts, emit)
	})
}

type progressKey struct{}

// WithProgress returns a context under which Run, RunParsimon and Stream
// send the progress reports of the estimators that report progress
// (Parsimon's link simulations, ns-3's simulated time) to r rather than to
// a progress.Line on standard error; a notebook draws them as one updating
// line this way; a reporter that ignores its reports mutes them.
func WithProgress(ctx context.Context, r progress.Reporter) context.Context {
	return context.WithValue(ctx, progressKey{}, r)
}

// reporter is where ctx says the progress of the estimator name goes: a
// progress.Line on standard error unless WithProgress says otherwise.
func reporter(ctx context.Context, name string) progress.Reporter {
	if r, ok := ctx.Value(progressKey{}).(progress.Reporter); ok && r != nil {
		return r
	}
	return progress.NewLine(os.Stderr, name)
}

// Streams reports whether the named estimator takes its flows as they are
// drawn, so that Stream runs it on a scenario without flows
// (scenario.BuildNet).
func Streams(name string) bool {
	_, ok := streamers[name]
	return ok
}

// Stream runs the named estimator on sc and writes its records to the
// frame at path as they are produced, a row group at a time
// (frame.RecordWriter), so that a run of millions of flows never holds all
// its records, nor their table. An estimator that streams (Streams) takes
// sc's flows as they are drawn, so sc may come from scenario.BuildNet and
// the run holds no flows either; the others need sc's flows
// (scenario.Build). The result has no Records; its Extra is stored in the
// frame's metadata, its Timings in the run log.
func Stream(ctx context.Context, name string, sc *scenario.Scenario, options, path string) (*Result, error) {
	return stream(ctx, name, sc, options, path, registry[name].run) // nil for an unknown name, which Models refuses first
}

// stream is Stream with the estimator's runner given: its registered
// one, or one that hands its work elsewhere (StreamParsimon).
func stream(ctx context.Context, name string, sc *scenario.Scenario, options, path string, run runner) (*Result, error) {
	if err := Models(name, options, sc.Spec.Network); err != nil {
		return nil, err
	}
	options, anyway, err := splitAnyway(options)
	if err != nil {
		return nil, err
	}
	atlasExtra, err := answers(name, options, sc.Spec, anyway || measuring(ctx))
	if err != nil {
		return nil, fmt.Errorf("estimator %s: %w", name, err)
	}
	if atlasExtra, err = inRange(name, sc, options, anyway || measuring(ctx), atlasExtra); err != nil {
		return nil, fmt.Errorf("estimator %s: %w", name, err)
	}
	if !Streams(name) && sc.Flows == nil {
		return nil, fmt.Errorf("estimator: %s needs the scenario's flows (scenario.Build); only %s take them as they are drawn", name, strings.Join(streamNames(), ", "))
	}
	t0 := time.Now()
	return timed(name, sc, func() (*Result, error) {
		canon, err := registry[name].options([]byte(options))
		if err != nil {
			return nil, err
		}
		canon = withAnyway(canon, anyway)
		w, err := frame.NewRecordWriter(path, (&Result{Estimator: name, Options: canon}).meta(sc))
		if err != nil {
			return nil, err
		}
		// A streaming estimator's runner draws sc's flows from its source.
		res, err := run(ctx, sc, []byte(options), w.Write)
		if err != nil {
			w.Abort()
			return nil, err
		}
		res.Streamed = w.Len()
		res.Options = canon
		addExtra(res, atlasExtra)
		return res, w.Close(res.Extra, time.Since(t0).Seconds(), res.Timings)
	})
}

func streamNames() []string {
	names := make([]string, 0, len(streamers))
	for n := range streamers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
