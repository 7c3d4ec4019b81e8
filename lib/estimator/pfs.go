package estimator

import (
	"context"
	"strconv"

	"github.com/tailscope/tailscope/lib/flowsim"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/pfs"
	"github.com/tailscope/tailscope/lib/scenario"
)

// pfs runs a whole decomposed flowsim run in this process (its chunks as
// tasks through any executor are lib/experiment's RunPFS).
func init() {
	modelers[pfs.Name] = func(cfg netcfg.Config, _ []byte) error { return cfg.RoundRobinNICs("pfs (flowsim decomposed)") }
	register(pfs.Name, typed(func() any { return new(pfs.Options) }), func(ctx context.Context, sc *scenario.Scenario, opts []byte, emit func(metrics.Record) error) (*Result, error) {
		var o pfs.Options
		if err := decode(opts, &o); err != nil {
			return nil, err
		}
		res, err := pfs.Run(ctx, sc.Net, sc.Flows, sc.Spec.Network, o)
		if err != nil {
			return nil, err
		}
		return &Result{Options: encode(o), Extra: map[string]string{
			"chunks":   strconv.Itoa(res.Chunks),
			"injected": strconv.Itoa(res.Injected),
			"workers":  strconv.Itoa(res.Workers),
			// pfs decomposes a flowsim run: its model is flowsim's.
			"network_model": flowsim.Options{}.NetworkModel(),
		}, Timings: map[string]float64{
			"prep_s":     res.PrepSeconds,
			"merge_s":    res.MergeSeconds,
			"critical_s": res.CriticalSeconds(),
			"sum_s":      res.SumSeconds(),
		}}, emitAll(res.Records, emit)
	})
}
