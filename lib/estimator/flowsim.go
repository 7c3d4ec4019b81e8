package estimator

import (
	"context"

	"github.com/tailscope/tailscope/lib/flowsim"
	"github.com/tailscope/tailscope/lib/scenario"
)

// flowsimOptions are the flowsim options settable from JSON.
type flowsimOptions struct {
	HostRateBps int64 `json:"host_rate_bps,omitempty"`
}

func init() { register(flowsim.Name, typed(func() any { return new(flowsimOptions) }), runFlowsim) }

func runFlowsim(ctx context.Context, sc *scenario.Scenario, opts []byte) (*Result, error) {
	var o flowsimOptions
	if err := decode(opts, &o); err != nil {
		return nil, err
	}
	recs, err := flowsim.Run(sc.Net, sc.Flows, sc.Spec.Network, flowsim.Options{HostRateBps: o.HostRateBps})
	if err != nil {
		return nil, err
	}
	return &Result{Records: recs, Options: encode(o)}, nil
}
