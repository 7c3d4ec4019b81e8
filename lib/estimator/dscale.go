package estimator

import (
	"context"
	"strconv"

	"github.com/tailscope/tailscope/lib/dscale"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
)

// dscale predicts FCTs from a DSCALE replica (options: method "d" or "s",
// alpha, seed, congested channels or pilot_share, detect); DSCALEs
// returns no records for the flows it did not sample.
func init() {
	register("dscale", typed(func() any { return new(dscale.EstimateOptions) }), func(ctx context.Context, sc *scenario.Scenario, opts []byte, emit func(metrics.Record) error) (*Result, error) {
		var o dscale.EstimateOptions
		if err := decode(opts, &o); err != nil {
			return nil, err
		}
		if o.Seed == 0 {
			o.Seed = sc.Spec.Seed
		}
		recs, est, err := dscale.Estimate(ctx, sc.Net, sc.Flows, sc.Spec.Network, o)
		if err != nil {
			return nil, err
		}
		extra := map[string]string{"congested": strconv.Itoa(len(est.Congested))}
		timings := map[string]float64{"pilot_s": est.PilotSeconds, "replica_s": est.ReplicaSeconds}
		if r := est.Replica; r != nil {
			extra["replica_flows"] = strconv.Itoa(len(r.Flows))
			extra["replica_groups"] = strconv.Itoa(len(r.Groups))
			timings["build_s"] = r.BuildSeconds
		}
		return &Result{Options: encode(o), Extra: extra, Timings: timings}, emitAll(recs, emit)
	})
}
