package dscale

import (
	"context"
	"fmt"
	"time"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// EstimateOptions are those of Estimate (the "dscale" estimator).
type EstimateOptions struct {
	Options
	Detect DetectOptions `json:"detect,omitempty"`
	// Congested lists the congested channels; when empty they are
	// detected from a pilot run of the first PilotShare of the flows
	// (default 0.2), as one would measure a network before scaling it.
	Congested  []int   `json:"congested,omitempty"`
	PilotShare float64 `json:"pilot_share,omitempty"`
}

// Estimation is what Estimate did.
type Estimation struct {
	Congested      []int
	Replica        *Replica // nil when nothing is congested
	PilotSeconds   float64
	ReplicaSeconds float64 // the replica's simulation
}

// Estimate predicts the FCTs of flows on net from a replica: the
// congested channels (given, or detected on a pilot run), the replica's
// packet-level run, and extrapolation. Flows of groups the replica drops
// cross no congested link and are given their ideal FCT, the replica's
// premise; flows DSCALEs did not sample get no record. Records follow the
// flows' order. Estimate stops with ctx's error soon after ctx is
// cancelled.
func Estimate(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, o EstimateOptions) ([]metrics.Record, *Estimation, error) {
	if o.PilotShare == 0 {
		o.PilotShare = 0.2
	}
	if !(o.PilotShare > 0 && o.PilotShare <= 1) {
		return nil, nil, fmt.Errorf("dscale: pilot_share must be in (0, 1], got %g", o.PilotShare)
	}
	est := &Estimation{Congested: o.Congested}
	if len(est.Congested) == 0 {
		t0 := time.Now()
		pilot := flows[:max(2, int(o.PilotShare*float64(len(flows))))]
		res, err := packetsim.Run(ctx, net, pilot, cfg, packetsim.Options{})
		if err != nil {
			return nil, nil, fmt.Errorf("dscale: pilot run: %w", err)
		}
		stats, err := Detect(net, pilot, cfg, res, o.Detect)
		if err != nil {
			return nil, nil, err
		}
		est.Congested = Congested(stats)
		est.PilotSeconds = time.Since(t0).Seconds()
	}
	replicated := map[int]metrics.Record{}
	if len(est.Congested) > 0 {
		r, err := Build(net, flows, cfg, est.Congested, o.Options)
		if err != nil {
			return nil, nil, err
		}
		t0 := time.Now()
		res, err := packetsim.Run(ctx, r.Net, r.Flows, r.Config, packetsim.Options{KBytes: r.KBytes, Paths: r.Paths()})
		if err != nil {
			return nil, nil, fmt.Errorf("dscale: replica: %w", err)
		}
		est.ReplicaSeconds = time.Since(t0).Seconds()
		recs, err := r.Extrapolate(net, flows, cfg, res)
		if err != nil {
			return nil, nil, err
		}
		for _, rec := range recs {
			replicated[rec.FlowID] = rec
		}
		est.Replica = r
	}
	var out []metrics.Record
	var path []int
	for i, f := range flows {
		if rec, ok := replicated[f.ID]; ok {
			out = append(out, rec)
			continue
		}
		if est.Replica != nil && est.Replica.GroupOf[i] >= 0 {
			continue // a kept group's flow DSCALEs did not sample
		}
		var err error
		if path, err = net.AppendPath(path[:0], f.ID, f.Src, f.Dst); err != nil {
			return nil, nil, err
		}
		ideal := metrics.IdealFCT(net, path, f.Size, cfg)
		out = append(out, metrics.Record{FlowID: f.ID, Src: f.Src, Dst: f.Dst, Size: f.Size, Start: f.Start, Class: f.Class,
			FCT: ideal, Ideal: ideal, Slowdown: 1})
	}
	return out, est, nil
}
