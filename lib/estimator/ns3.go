package estimator

import (
	"context"
	"strconv"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/ns3"
	"github.com/tailscope/tailscope/lib/scenario"
)

func init() {
	register(ns3.Name, typed(func() any { return new(ns3.Options) }), runNS3)
	modelers[ns3.Name] = func(cfg netcfg.Config, _ []byte) error { return ns3.Models(cfg) }
}

func runNS3(ctx context.Context, sc *scenario.Scenario, opts []byte, emit func(metrics.Record) error) (*Result, error) {
	var o ns3.Options
	if err := decode(opts, &o); err != nil {
		return nil, err
	}
	o.Progress = reporter(ctx, "ns3")
	res, err := ns3.Simulate(ctx, sc.Net, sc.Flows, sc.Spec.Network, o)
	if err != nil {
		return nil, err
	}
	if o.StopAtNanos == 0 {
		if err := res.Incomplete(); err != nil {
			return nil, err
		}
	}
	var drops int64
	for _, c := range res.Channels {
		drops += c.Drops
	}
	var timeouts, fast int
	for _, f := range res.Flows {
		timeouts, fast = timeouts+f.Timeouts, fast+f.FastRecoveries
	}
	version, _ := ns3.Version()
	return &Result{
		Options: encode(o),
		Extra: map[string]string{
			"ns3_version": version,
			"events":      strconv.FormatInt(res.Events, 10),
			"sim_ns":      strconv.FormatInt(res.SimNanos, 10),
			"unfinished":  strconv.Itoa(len(res.Unfinished)),
			"failed":      strconv.Itoa(res.Failed),
			"drops":       strconv.FormatInt(drops, 10),
			// Loss recoveries: a flow's entries into recovery.
			"timeouts":        strconv.Itoa(timeouts),
			"fast_recoveries": strconv.Itoa(fast),
		},
	}, emitAll(res.Records, emit)
}
