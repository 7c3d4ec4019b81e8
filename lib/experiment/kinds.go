package experiment

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/pfs"
	"github.com/tailscope/tailscope/lib/scenario"
)

// Task kinds other than an estimator's run: one piece of a decomposed run,
// whose records are not estimates for the scenario, or a piece of work
// that is not a scenario's at all (an m3 training task). They run through
// the executors like any task, so the pieces of one run spread over a pool
// or Slurm arrays and an interrupted run resumes with the pieces not done.
const (
	// KindParsimonLinks runs a group of link-level simulations of a
	// Parsimon run from an input file that holds exactly their flows and
	// parameters (options: ParsimonLinksOptions; ParsimonLinks), without
	// the scenario: it names none. Its frame holds each flow's delay at
	// the simulated channel (column ColDelayNs), simulation after
	// simulation in the input's order of simulations and flows.
	KindParsimonLinks = "parsimon-links"
	// KindPFSChunk runs one chunk of a pfs decomposition (options:
	// pfs.ChunkOptions; RunPFS), merged with pfs.ReadChunk and Plan.Merge.
	KindPFSChunk = "pfs-chunk"
	// KindM3Task simulates one of m3's training tasks (options:
	// m3.TaskDraw; GenerateM3Data) and writes its m3.TaskResult frame. It
	// needs no scenario: its task's Spec is the zero Spec.
	KindM3Task = m3.TaskKind
)

// LinkSimTimer names the link simulations' wall time in seconds in the
// run log of a parsimon-links frame (frame.Meta.Timings): all of them,
// and each channel's under LinkSimTimer + "." + its id.
const LinkSimTimer = "link_sim_s"

// kind is a task kind: how it reads its options (their canonical JSON, as
// estimator.Resolve for an estimator) and how it runs: on the task's
// scenario, giving records (run), or, for a kind that needs no scenario,
// writing a frame of its own at path (write).
type kind struct {
	options func(opts string) (string, error)
	run     func(ctx context.Context, sc *scenario.Scenario, opts string) (*estimator.Result, error)
	write   func(ctx context.Context, opts, path string) error
}

var kinds = map[string]kind{
	KindParsimonLinks: {options: parsimonLinksOptions, write: runParsimonLinks},
	KindPFSChunk:      {options: pfsChunkOptions, run: runPFSChunk},
	KindM3Task:        {options: m3TaskOptions, write: runM3Task},
}

// Kinds lists the task kinds other than estimators' runs.
func Kinds() []string { return slices.Sorted(maps.Keys(kinds)) }

// canonical is the JSON of options v read with err: a kind's canonical
// options.
func canonical(v any, err error) (string, error) {
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	return string(b), err
}

func pfsChunkOptions(opts string) (string, error) {
	var o pfs.ChunkOptions
	return canonical(&o, estimator.DecodeOptions(opts, &o)) // &o: marshalled after the decode
}

func runPFSChunk(_ context.Context, sc *scenario.Scenario, opts string) (*estimator.Result, error) {
	var o pfs.ChunkOptions
	if err := estimator.DecodeOptions(opts, &o); err != nil {
		return nil, err
	}
	res, plan, err := pfs.RunPlannedChunk(sc.Net, sc.Flows, sc.Spec.Network, o)
	if err != nil {
		return nil, err
	}
	extra, err := res.Extra()
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	return &estimator.Result{Records: res.Records, Options: string(b), Extra: map[string]string{
		pfs.ExtraKey: extra,
		"chunks":     strconv.Itoa(len(plan.Chunks)),
	}, Timings: map[string]float64{
		"prep_s":       plan.PrepSeconds,
		pfs.ChunkTimer: res.WallSeconds,
	}}, nil
}
