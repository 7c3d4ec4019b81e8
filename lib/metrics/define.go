package metrics

import (
	"fmt"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
)

// SlowdownDef is a definition of FCT slowdown other than tailscope's. The
// zero value is tailscope's, and the one both papers' code uses (Parsimon's
// ideal_fct and the fork's qp_delivered output): the FCT ends when the last
// byte is delivered and the ideal FCT is one-way (IdealFCT). The other
// definitions are those an evaluation could apply to one side of a
// comparison and not the other, which moves a p99 error by itself.
type SlowdownDef struct {
	// AckFCT ends the FCT when the last ACK is back at the sender (the HPCC
	// ns-3 fork's qp_finish): it adds the ACK's unloaded return, the
	// propagation of every hop and the ACK's transmission at each.
	AckFCT bool
	// RTTIdeal adds the same return to the ideal FCT: a base round trip
	// plus the bytes at the bottleneck, as the original HPCC fork's
	// standalone_fct.
	RTTIdeal bool
	// NoProp leaves the propagation delays out of the ideal FCT (both
	// ways with RTTIdeal).
	NoProp bool
}

// String names the definition, e.g. "ack FCT / RTT ideal".
func (d SlowdownDef) String() string {
	end, ideal := "delivered FCT", "one-way ideal"
	if d.AckFCT {
		end = "ack FCT"
	}
	if d.RTTIdeal {
		ideal = "RTT ideal"
	}
	if d.NoProp {
		ideal += " without propagation"
	}
	return end + " / " + ideal
}

// Redefine returns recs with FCT, ideal FCT and slowdown under def. Every
// record must be of net (its flow's path is routed again from FlowID, Src
// and Dst) and carry tailscope's definition, as estimators write them; cfg
// gives the ACK size. The ACK's return is unloaded (queues on the reverse
// path are not known from a record), so AckFCT adds a lower bound of what
// the sender would see.
func Redefine(net *topo.Network, cfg netcfg.Config, recs []Record, def SlowdownDef) ([]Record, error) {
	if cfg.AckBytes <= 0 {
		return nil, fmt.Errorf("metrics: ack_bytes must be positive, got %d", cfg.AckBytes)
	}
	out := make([]Record, len(recs))
	var path []int
	for i, r := range recs {
		var err error
		if path, err = net.AppendPath(path[:0], r.FlowID, r.Src, r.Dst); err != nil {
			return nil, fmt.Errorf("metrics: record %d: %w", i, err)
		}
		if r.FCT <= 0 || r.Ideal <= 0 {
			return nil, fmt.Errorf("metrics: record %d (flow %d): FCT %d ns and ideal %d ns must be positive", i, r.FlowID, r.FCT, r.Ideal)
		}
		// prop is the one-way propagation, back the last ACK's unloaded
		// return over the reverse channels and backProp its propagation.
		var prop, back, backProp float64
		for _, c := range path {
			rev := net.Channels[net.Reverse(c)]
			prop += float64(net.Channels[c].Delay)
			backProp += float64(rev.Delay)
			back += float64(rev.Delay) + float64(cfg.AckBytes*8)*1e9/float64(rev.Bandwidth)
		}
		fct, ideal := float64(r.FCT), float64(r.Ideal)
		if def.AckFCT {
			fct += back
		}
		if def.RTTIdeal {
			ideal += back
		}
		if def.NoProp {
			ideal -= prop
			if def.RTTIdeal {
				ideal -= backProp
			}
		}
		if !(ideal > 0) {
			return nil, fmt.Errorf("metrics: record %d (flow %d): ideal FCT %g ns without propagation is not positive: the record's ideal is not of this network", i, r.FlowID, ideal)
		}
		r.FCT, r.Ideal = int64(fct+0.5), int64(ideal+0.5)
		r.Slowdown = fct / ideal
		out[i] = r
	}
	return out, nil
}
