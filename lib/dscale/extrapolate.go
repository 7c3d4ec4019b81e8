package dscale

import (
	"fmt"
	"math"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// MeanQueueNs is the mean queueing delay a packet met at replica channel c
// in res (0 where none passed).
func MeanQueueNs(res *packetsim.Result, c int) float64 {
	if res.ChannelPackets[c] == 0 {
		return 0
	}
	return res.ChannelQueueNanos[c] / float64(res.ChannelPackets[c])
}

// Extrapolate maps the replica run res back to the original network: one
// record per finished replica flow, for the original flow (its endpoints,
// and its ideal FCT on its original path in net), in replica flow order.
//
// DSCALEd preserves delays, so a flow's FCT is the replica's. DSCALEs runs
// group g's clock 1/alpha_g slower and keeps queue sizes, so a queue's
// delay scales with capacity; following the paper's normalization (§V),
// FCT = alpha_g (FCT' - sum_l Q'_l) + sum_l beta_l Q'_l over the kept
// channels l of the group, with Q'_l the mean queueing delay at l in the
// replica and beta_l its capacity over the original's. A flow that met
// less than the mean (its FCT' exceeds its unloaded FCT in the replica by
// less than sum_l Q'_l) has only that excess treated as queueing.
func (r *Replica) Extrapolate(net *topo.Network, flows []workload.Flow, cfg netcfg.Config, res *packetsim.Result) ([]metrics.Record, error) {
	pos := make(map[int]int, len(r.Flows))
	for k, f := range r.Flows {
		pos[f.ID] = k
	}
	// Per group: the summed replica queueing delay and its original value.
	qRep, qOrig := make([]float64, len(r.Groups)), make([]float64, len(r.Groups))
	for gi, g := range r.Groups {
		for _, c := range g.Kept {
			rc := r.Channel[c]
			q := MeanQueueNs(res, rc)
			qRep[gi] += q
			qOrig[gi] += r.Factor[rc] * q
		}
	}
	out := make([]metrics.Record, 0, len(res.Records))
	for _, rec := range res.Records {
		k, ok := pos[rec.FlowID]
		if !ok {
			return nil, fmt.Errorf("dscale: the replica run reports flow %d, which the replica does not hold", rec.FlowID)
		}
		gi := r.Group[k]
		g := r.Groups[gi]
		f := flows[r.Orig[k]]
		o := metrics.Record{FlowID: f.ID, Src: f.Src, Dst: f.Dst, Size: f.Size, Start: f.Start, Class: f.Class,
			Ideal: metrics.IdealFCT(net, g.Path, f.Size, cfg), FCT: rec.FCT}
		if r.Method == Sampling {
			// The mean queueing is all a flow may have met but no more than
			// its time beyond its unloaded FCT in the replica.
			q, scale := qRep[gi], 1.0
			if excess := float64(rec.FCT - rec.Ideal); q > excess {
				q, scale = max(0, excess), max(0, excess)/q
			}
			o.FCT = int64(math.Round(g.Alpha*(float64(rec.FCT)-q) + scale*qOrig[gi]))
		}
		o.Slowdown = float64(o.FCT) / float64(o.Ideal)
		out = append(out, o)
	}
	return out, nil
}
