package estimator

import (
	"context"
	"strconv"

	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/scenario"
)

// packetsimOptions are the packetsim options settable from JSON.
type packetsimOptions struct {
	StopAtNanos int64 `json:"stop_at_ns,omitempty"`
	// HostFIFO models host NICs as FIFO ports, as stock TCP stacks and
	// ns-3 do (packetsim.Options.HostFIFO).
	HostFIFO bool `json:"host_fifo,omitempty"`
}

func init() { register(packetsim.Name, runPacketsim) }

func runPacketsim(ctx context.Context, sc *scenario.Scenario, opts []byte) (*Result, error) {
	var o packetsimOptions
	if err := decode(opts, &o); err != nil {
		return nil, err
	}
	res, err := packetsim.Run(sc.Net, sc.Flows, sc.Spec.Network, packetsim.Options{StopAtNanos: o.StopAtNanos, HostFIFO: o.HostFIFO})
	if err != nil {
		return nil, err
	}
	return &Result{
		Records: res.Records,
		Options: encode(o),
		Extra: map[string]string{
			"events":      strconv.FormatInt(res.Events, 10),
			"packet_hops": strconv.FormatInt(res.PacketHops, 10),
			"drops":       strconv.FormatInt(res.Drops, 10),
			"marks":       strconv.FormatInt(res.Marks, 10),
			"unfinished":  strconv.Itoa(len(res.Unfinished)),
		},
	}, nil
}
