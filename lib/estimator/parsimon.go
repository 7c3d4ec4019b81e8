package estimator

import (
	"cmp"
	"context"
	"fmt"
	"strconv"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/scenario"
)

// parsimonCOptions are parsimon-c's options: parsimon.Options with the
// clustering thresholds (max_wmape, max_load_diff, max_load_error,
// quantiles) inline. The other variants take parsimon.Options alone; zero
// values take parsimon's defaults, seed 0 the scenario's seed, and
// "backend" (parsimon.Backends) names the link-level backend of parsimon
// and parsimon-c ("linksim", the default, or "packetsim"), while
// parsimon-ns3 always runs ns-3.
type parsimonCOptions struct {
	parsimon.Options
	parsimon.ClusterOptions
}

// parsimonVariants are the Parsimon estimators and their default link
// backends.
var parsimonVariants = map[string]string{
	"parsimon":     "linksim",
	"parsimon-c":   "linksim",
	"parsimon-ns3": "ns3",
}

func init() {
	for name := range parsimonVariants {
		register(name, func(opts []byte) (string, error) {
			_, canon, err := parsimonResolve(name, string(opts))
			return canon, err
		}, func(ctx context.Context, sc *scenario.Scenario, opts []byte, emit func(metrics.Record) error) (*Result, error) {
			return runParsimon(ctx, name, sc, string(opts), nil, emit)
		})
		modelers[name] = func(cfg netcfg.Config, opts []byte) error {
			o, _, err := parsimonResolve(name, string(opts))
			if err != nil {
				return err
			}
			return parsimon.Models(o.BackendName, cfg)
		}
	}
}

// RunParsimon runs the Parsimon variant name ("parsimon", "parsimon-c" or
// "parsimon-ns3") on sc with its options JSON, like Run, but with its link
// simulations run by links (nil: the in-process pool). The Parsimon/inf
// figure (longest link simulation plus fixed costs) goes into the
// Timings as inf_s.
func RunParsimon(ctx context.Context, name string, sc *scenario.Scenario, opts string, links parsimon.LinkRunner) (*Result, error) {
	if err := Models(name, opts, sc.Spec.Network); err != nil {
		return nil, err
	}
	opts, anyway, err := splitAnyway(opts)
	if err != nil {
		return nil, err
	}
	extra, err := answers(name, opts, sc.Spec, anyway || measuring(ctx))
	if err != nil {
		return nil, fmt.Errorf("estimator %s: %w", name, err)
	}
	return timed(name, sc, func() (*Result, error) {
		res, err := runParsimon(ctx, name, sc, opts, links, nil)
		if err != nil {
			return nil, err
		}
		res.Options = withAnyway(res.Options, anyway)
		addExtra(res, extra)
		return res, nil
	})
}

// StreamParsimon runs the Parsimon variant name on sc with its link
// simulations run by links, like RunParsimon, and writes its records to
// the frame at path as they are produced, like Stream: a run of millions
// of flows whose link simulations run elsewhere then holds no more of
// its records than one in process (at 6.83M flows they were 1.4 GB of
// the process's heap).
func StreamParsimon(ctx context.Context, name string, sc *scenario.Scenario, opts string, links parsimon.LinkRunner, path string) (*Result, error) {
	return stream(ctx, name, sc, opts, path, func(ctx context.Context, sc *scenario.Scenario, opts []byte, emit func(metrics.Record) error) (*Result, error) {
		return runParsimon(ctx, name, sc, string(opts), links, emit)
	})
}

// runParsimon runs the Parsimon variant name, handing its records to emit
// or, when emit is nil, returning them.
func runParsimon(ctx context.Context, name string, sc *scenario.Scenario, opts string, links parsimon.LinkRunner, emit func(metrics.Record) error) (*Result, error) {
	po, provenance, err := ParsimonOptions(name, sc, opts)
	if err != nil {
		return nil, err
	}
	po.Links, po.Progress, po.Emit = links, reporter(ctx, name), emit
	res, err := parsimon.Run(ctx, sc.Net, sc.Flows, sc.Spec.Network, po)
	if err != nil {
		return nil, err
	}
	return &Result{
		Records: res.Records,
		Options: provenance,
		Extra: map[string]string{
			"link_sims":        strconv.Itoa(res.Simulated),
			"link_sims_pruned": strconv.Itoa(res.Pruned),
			"link_sims_sparse": strconv.Itoa(res.Sparse),
			ExtraFlowsPerLink:  strconv.FormatFloat(flowsPerSimulatedLink(res), 'g', 4, 64),
			ExtraWindowOverBDP: strconv.FormatFloat(windowOverBDP(sc, res), 'g', 4, 64),
			"window_once":      strconv.FormatBool(*po.WindowOnce),
			"sparse_published": strconv.FormatBool(po.SparseBucketSize >= cmp.Or(po.BucketSize, parsimon.DefaultBucketSize)),
		},
		Timings: map[string]float64{
			"setup_s":            res.SetupSeconds,
			"link_sims_s":        res.SimSeconds,
			"convolve_s":         res.ConvolveSeconds,
			"longest_link_sim_s": res.LongestSimSeconds,
			"inf_s":              res.InfSeconds(),
		},
	}, nil
}

// parsimonResolve reads the options JSON of a Parsimon variant, fills in
// its default backend and checks it, and returns them with their canonical
// JSON, which names the backend.
func parsimonResolve(name, opts string) (parsimonCOptions, string, error) {
	def, ok := parsimonVariants[name]
	if !ok {
		return parsimonCOptions{}, "", fmt.Errorf("unknown Parsimon variant %q (parsimon, parsimon-c or parsimon-ns3)", name)
	}
	var o parsimonCOptions
	if name == "parsimon-c" {
		if err := decode([]byte(opts), &o); err != nil {
			return parsimonCOptions{}, "", err
		}
	} else if err := decode([]byte(opts), &o.Options); err != nil {
		return parsimonCOptions{}, "", err
	}
	switch b := o.BackendName; {
	case b == "":
		o.BackendName = def
	case name == "parsimon-ns3" && b != def:
		return parsimonCOptions{}, "", fmt.Errorf("parsimon-ns3 runs the ns3 backend, not %q; choose the backend of parsimon or parsimon-c instead", b)
	case b == "ns3":
		return parsimonCOptions{}, "", fmt.Errorf("%s with the ns3 backend is the estimator parsimon-ns3", name)
	}
	if _, err := parsimon.BackendByName(o.BackendName); err != nil {
		return parsimonCOptions{}, "", err
	}
	// The defaults that choose the model are named, so that a run of
	// the published method and one of tailscope's defaults key apart.
	if o.SparseBucketSize < 0 {
		return parsimonCOptions{}, "", fmt.Errorf("sparse_bucket_size %d: want a number of flows >= 1 (0: the default, %d)", o.SparseBucketSize, parsimon.DefaultSparseBucketSize)
	}
	if o.SparseBucketSize == 0 {
		o.SparseBucketSize = parsimon.DefaultSparseBucketSize
	}
	if o.WindowOnce == nil {
		o.WindowOnce = parsimon.Bool(parsimon.DefaultWindowOnce)
	}
	if name == "parsimon-c" {
		return o, encode(o), nil
	}
	return o, encode(o.Options), nil
}

// ParsimonOptions reads the options JSON of the Parsimon variant name
// ("parsimon", "parsimon-c" or "parsimon-ns3") into parsimon.Options for
// sc (seed 0 takes the scenario's) and returns them with their canonical
// JSON (Resolve's).
func ParsimonOptions(name string, sc *scenario.Scenario, opts string) (parsimon.Options, string, error) {
	o, canon, err := parsimonResolve(name, opts)
	if err != nil {
		return parsimon.Options{}, "", err
	}
	po := o.Options
	if po.Seed == 0 {
		po.Seed = sc.Spec.Seed
	}
	if name == "parsimon-c" {
		po.Cluster, po.ClusterOptions = true, o.ClusterOptions
	}
	return po, canon, nil
}

// flowsPerSimulatedLink is the mean number of flows on the channels
// Parsimon simulated: below its bucket size the delays of long flows are
// drawn from short flows' (Result.Sparse).
func flowsPerSimulatedLink(res *parsimon.Result) float64 {
	n, flows := 0, 0
	for _, c := range res.Channels {
		if c.Representative == c.Channel {
			n++
			flows += c.Flows
		}
	}
	if n == 0 {
		return 0
	}
	return float64(flows) / float64(n)
}

// windowOverBDP is the congestion control's window cap over the
// bandwidth-delay product of the longest host-to-host path at the
// fastest host channel's rate, 0 where no window caps a flow: below 1 a
// lone flow is window-limited, and every link simulation charges that
// delay again.
func windowOverBDP(sc *scenario.Scenario, res *parsimon.Result) float64 {
	w := sc.Spec.Network.WindowCapBytes()
	if w <= 0 {
		return 0
	}
	var bw int64
	for _, c := range res.Channels {
		if c.Kind != parsimon.Core && c.Bandwidth > bw {
			bw = c.Bandwidth
		}
	}
	rtt := 2 * sc.Net.MaxHostDelay() // ns
	if bw <= 0 || rtt <= 0 {
		return 0
	}
	bdp := float64(bw) * float64(rtt) / 8e9
	return float64(w) / bdp
}

// PublishedParsimon is the options JSON of the Parsimon variants run as
// the paper published it: every link bucketed with B, and the window's
// delay charged at every hop.
const PublishedParsimon = `{"sparse_bucket_size":100,"window_once":false}`

// KeyOptions is the options JSON whose hash names a run's results in
// sweeps and studies (lib/experiment), given the estimator's canonical
// options canon (Resolve's): canon itself, but for a Parsimon variant run
// as published (sparse_bucket_size at least bucket_size, window_once
// false) the canonical options that run had before those two options
// existed, canon without them, so that results made then keep their
// names; answer_anyway is kept as it is. For anything it cannot read it
// returns canon.
func KeyOptions(name, canon string) string {
	if _, ok := parsimonVariants[name]; !ok {
		return canon
	}
	rest, anyway, err := splitAnyway(canon)
	if err != nil {
		return canon
	}
	var o parsimonCOptions
	if decode([]byte(rest), &o) != nil {
		return canon
	}
	b := o.BucketSize
	if b == 0 {
		b = parsimon.DefaultBucketSize
	}
	if o.WindowOnce == nil || *o.WindowOnce || o.SparseBucketSize < b {
		return canon
	}
	o.SparseBucketSize, o.WindowOnce = 0, nil
	if name == "parsimon-c" {
		return withAnyway(encode(o), anyway)
	}
	return withAnyway(encode(o.Options), anyway)
}
