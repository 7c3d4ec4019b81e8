package estimator

import (
	"context"
	"os"
	"strconv"

	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/scenario"
)

// parsimonOptions are the Parsimon options settable from JSON; zero values
// take parsimon's defaults, and seed 0 the scenario's seed.
type parsimonOptions struct {
	Workers     int     `json:"workers,omitempty"`
	Seed        uint64  `json:"seed,omitempty"`
	BucketSize  int     `json:"bucket_size,omitempty"`
	BucketRatio float64 `json:"bucket_ratio,omitempty"`
	Inflation   float64 `json:"inflation,omitempty"`
}

// parsimonCOptions add the clustering thresholds (max_wmape,
// max_load_diff, max_load_error, quantiles) for parsimon-c.
type parsimonCOptions struct {
	parsimonOptions
	parsimon.ClusterOptions
}

func init() {
	register("parsimon", func(ctx context.Context, sc *scenario.Scenario, opts []byte) (*Result, error) {
		var o parsimonOptions
		if err := decode(opts, &o); err != nil {
			return nil, err
		}
		return runParsimon(ctx, sc, o, o.options(sc, parsimon.Packetsim))
	})
	register("parsimon-c", func(ctx context.Context, sc *scenario.Scenario, opts []byte) (*Result, error) {
		var o parsimonCOptions
		if err := decode(opts, &o); err != nil {
			return nil, err
		}
		po := o.options(sc, parsimon.Packetsim)
		po.Cluster, po.ClusterOptions = true, o.ClusterOptions
		return runParsimon(ctx, sc, o, po)
	})
	register("parsimon-ns3", func(ctx context.Context, sc *scenario.Scenario, opts []byte) (*Result, error) {
		var o parsimonOptions
		if err := decode(opts, &o); err != nil {
			return nil, err
		}
		return runParsimon(ctx, sc, o, o.options(sc, parsimon.NS3))
	})
}

func (o parsimonOptions) options(sc *scenario.Scenario, backend parsimon.Backend) parsimon.Options {
	seed := o.Seed
	if seed == 0 {
		seed = sc.Spec.Seed
	}
	return parsimon.Options{
		Workers: o.Workers, Seed: seed, BucketSize: o.BucketSize, BucketRatio: o.BucketRatio,
		Inflation: o.Inflation, Backend: backend, Progress: os.Stderr,
	}
}

// runParsimon runs a Parsimon variant; the Parsimon/inf figure (longest
// link simulation plus fixed costs) goes into the metadata as inf_s.
func runParsimon(ctx context.Context, sc *scenario.Scenario, opts any, po parsimon.Options) (*Result, error) {
	res, err := parsimon.Run(ctx, sc.Net, sc.Flows, sc.Spec.Network, po)
	if err != nil {
		return nil, err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	return &Result{
		Records: res.Records,
		Options: encode(opts),
		Extra: map[string]string{
			"link_sims":          strconv.Itoa(res.Simulated),
			"link_sims_pruned":   strconv.Itoa(res.Pruned),
			"setup_s":            f(res.SetupSeconds),
			"link_sims_s":        f(res.SimSeconds),
			"convolve_s":         f(res.ConvolveSeconds),
			"longest_link_sim_s": f(res.LongestSimSeconds),
			"inf_s":              f(res.InfSeconds()),
		},
	}, nil
}
