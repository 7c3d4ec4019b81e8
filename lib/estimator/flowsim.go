package estimator

import (
	"context"

	"github.com/tailscope/tailscope/lib/flowsim"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
)

func init() {
	register(flowsim.Name, typed(func() any { return new(flowsim.Options) }), runFlowsim)
	// flowSim shares a host's link among its flows max-min fairly, as a
	// round-robin NIC does, and ignores the rest of the network model.
	modelers[flowsim.Name] = func(cfg netcfg.Config, _ []byte) error { return cfg.RoundRobinNICs("flowsim") }
}

// runFlowsim runs flowsim with its own Options (host_rate_bps, window_cap).
func runFlowsim(ctx context.Context, sc *scenario.Scenario, opts []byte, emit func(metrics.Record) error) (*Result, error) {
	var o flowsim.Options
	if err := decode(opts, &o); err != nil {
		return nil, err
	}
	o.Emit = emit
	if _, err := flowsim.Run(ctx, sc.Net, sc.Flows, sc.Spec.Network, o); err != nil {
		return nil, err
	}
	return &Result{Options: encode(o), Extra: map[string]string{"network_model": o.NetworkModel()}}, nil
}
