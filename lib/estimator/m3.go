package estimator

import (
	"context"
	"strconv"
	"sync"

	"github.com/tailscope/tailscope/lib/internal/cputime"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/scenario"
)

// m3Options are the m3 options settable from JSON; zero values take m3's
// defaults, and seed 0 the scenario's seed. Model is "" for the embedded
// trained model, "none" for flowSim alone (m3's ablation), or the path of
// a model file written by 'tailscope m3 train'.
type m3Options struct {
	Samples         int    `json:"samples,omitempty"`
	Seed            uint64 `json:"seed,omitempty"`
	BackgroundHosts int    `json:"background_hosts,omitempty"`
	Workers         int    `json:"workers,omitempty"`
	Model           string `json:"model,omitempty"`
}

func init() { register(m3.Name, typed(func() any { return new(m3Options) }), runM3) }

// defaultModel loads the embedded model once per process.
var defaultModel = sync.OnceValues(m3.DefaultModel)

func runM3(ctx context.Context, sc *scenario.Scenario, opts []byte) (*Result, error) {
	var o m3Options
	if err := decode(opts, &o); err != nil {
		return nil, err
	}
	mo := m3.Options{Samples: o.Samples, Seed: o.Seed, BackgroundHosts: o.BackgroundHosts, Workers: o.Workers}
	if mo.Seed == 0 {
		mo.Seed = sc.Spec.Seed
	}
	var err error
	switch o.Model {
	case "":
		mo.Model, err = defaultModel()
	case "none":
	default:
		mo.Model, err = m3.LoadModel(o.Model)
	}
	if err != nil {
		return nil, err
	}
	cpu0 := cputime.Used()
	est, err := m3.Run(ctx, sc.Net, sc.Flows, sc.Spec.Network, mo)
	if err != nil {
		return nil, err
	}
	return &Result{
		Records: est.Records,
		Options: encode(o),
		Extra: map[string]string{
			"paths":           strconv.Itoa(est.Paths),
			"paths_simulated": strconv.Itoa(est.Simulated),
		},
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
