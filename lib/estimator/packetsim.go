package estimator

import (
	"context"
	"strconv"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

func init() {
	registerStream(packetsim.Name, streamer{
		options: typed(func() any { return new(packetsim.Options) }),
		run:     runPacketsim,
	})
	modelers[packetsim.Name] = func(cfg netcfg.Config, opts []byte) error {
		var o packetsim.Options
		if err := decode(opts, &o); err != nil {
			return err
		}
		return packetsim.Models(cfg, o)
	}
}

func runPacketsim(ctx context.Context, sc *scenario.Scenario, src workload.Source, opts []byte, emit func(metrics.Record) error) (*Result, error) {
	var o packetsim.Options
	if err := decode(opts, &o); err != nil {
		return nil, err
	}
	o.Seed = sc.Spec.Seed
	res, err := packetsim.Stream(ctx, sc.Net, src, sc.Spec.Network, o, emit)
	if err != nil {
		return nil, err
	}
	extra := map[string]string{
		"events":      strconv.FormatInt(res.Events, 10),
		"packet_hops": strconv.FormatInt(res.PacketHops, 10),
		"drops":       strconv.FormatInt(res.Drops, 10),
		"marks":       strconv.FormatInt(res.Marks, 10),
		"unfinished":  strconv.Itoa(len(res.Unfinished)),
		"peak_flows":  strconv.Itoa(res.PeakFlows),
	}
	if n := sc.Spec.Network; (n.BufferBytes > 0 || n.SharedBuffer()) && !n.PFC.Enabled {
		// Loss recoveries, named as the ns3 estimator names them.
		extra["timeouts"] = strconv.FormatInt(res.Timeouts, 10)
		extra["fast_recoveries"] = strconv.FormatInt(res.FastRecoveries, 10)
	}
	if sc.Spec.Network.PFC.Enabled {
		extra["pause_frames"] = strconv.FormatInt(res.PauseFrames, 10)
		extra["paused_ns"] = strconv.FormatInt(res.PausedNanos, 10)
	}
	return &Result{Options: encode(o), Extra: extra}, nil
}
