package dscale

import (
	"fmt"
	"sort"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// LinkStat is what a packet-level run says about one channel.
type LinkStat struct {
	Channel     int
	Utilisation float64 // wire bytes sent over capacity times the span of starts
	Packets     int64   // packets (data and ACKs) sent on it
	MeanQueueNs float64 // mean queueing delay of those packets
	Drops       int64   // packets dropped at its full buffer
	// PathQueueNs is the smallest end-to-end queueing delay, over the
	// flow groups (paths) crossing the channel, of a packet of that group:
	// the sum of MeanQueueNs along its path.
	PathQueueNs float64
	Congested   bool
	// Reason says why: "drops", "queueing" (the channel holds at least
	// Ratio of some crossing group's end-to-end queueing delay), or "".
	Reason string
}

// DetectOptions tune the congested-link test.
type DetectOptions struct {
	// Ratio is the share of a group's end-to-end queueing delay at which
	// a channel counts as congested: DSCALE calls a link uncongested when
	// its delay is "one order of magnitude smaller" than every crossing
	// packet's end-to-end queueing delay, so the default is 0.1.
	Ratio float64 `json:"ratio,omitempty"`
	// MinQueueNs, when positive, is the mean queueing delay below which
	// the delay criterion never calls a channel congested; 0 takes one
	// full packet's serialization at the channel's rate. The paper's test
	// needs it: on a path whose channels all queue next to nothing, each
	// holds a large share of nothing. A queue of under a packet on
	// average barely reshapes the packets' arrival process.
	MinQueueNs float64 `json:"min_queue_ns,omitempty"`
}

// Detect applies DSCALE's definition (§III) to a packet-level run of
// flows on net: a channel is uncongested when no packet was dropped there
// and its mean queueing delay is an order of magnitude (Ratio) below the
// end-to-end queueing delay of every flow group crossing it; otherwise it
// is congested. res must come from packetsim.Run of these flows on net.
// Stats are returned for every channel that carried packets, by id.
func Detect(net *topo.Network, flows []workload.Flow, cfg netcfg.Config, res *packetsim.Result, o DetectOptions) ([]LinkStat, error) {
	if res == nil || len(res.ChannelPackets) != len(net.Channels) {
		return nil, fmt.Errorf("dscale: the run does not match the network (%d channels)", len(net.Channels))
	}
	if len(flows) == 0 {
		return nil, fmt.Errorf("dscale: no flows")
	}
	if o.Ratio == 0 {
		o.Ratio = 0.1
	}
	if !(o.Ratio > 0 && o.Ratio <= 1) || o.MinQueueNs < 0 {
		return nil, fmt.Errorf("dscale: ratio must be in (0, 1] and min_queue_ns >= 0, got %g and %g", o.Ratio, o.MinQueueNs)
	}
	span := float64(flows[len(flows)-1].Start - flows[0].Start)
	mean := make([]float64, len(net.Channels))
	for c := range mean {
		mean[c] = MeanQueueNs(res, c)
	}
	groups, err := groupPaths(net, flows, cfg)
	if err != nil {
		return nil, err
	}
	pathQ := make([]float64, len(net.Channels))
	crossed := make([]bool, len(net.Channels))
	for _, g := range groups {
		var q float64
		for _, c := range g.path {
			q += mean[c]
		}
		for _, c := range g.path {
			if !crossed[c] || q < pathQ[c] {
				pathQ[c] = q
			}
			crossed[c] = true
		}
	}
	var stats []LinkStat
	for c, ch := range net.Channels {
		if res.ChannelPackets[c] == 0 && res.ChannelDrops[c] == 0 {
			continue
		}
		s := LinkStat{Channel: c, Packets: res.ChannelPackets[c], MeanQueueNs: mean[c], Drops: res.ChannelDrops[c], PathQueueNs: pathQ[c]}
		if span > 0 {
			s.Utilisation = float64(res.ChannelBytes[c]) * 8 / (float64(ch.Bandwidth) * span / 1e9)
		}
		floor := o.MinQueueNs
		if floor == 0 {
			floor = float64((cfg.PayloadBytes+cfg.HeaderBytes)*8) * 1e9 / float64(ch.Bandwidth)
		}
		switch {
		case s.Drops > 0:
			s.Congested, s.Reason = true, "drops"
		case crossed[c] && s.MeanQueueNs >= floor && s.MeanQueueNs >= o.Ratio*pathQ[c]:
			s.Congested, s.Reason = true, "queueing"
		}
		stats = append(stats, s)
	}
	return stats, nil
}

// Congested lists the congested channels of stats, ascending.
func Congested(stats []LinkStat) []int {
	var cs []int
	for _, s := range stats {
		if s.Congested {
			cs = append(cs, s.Channel)
		}
	}
	sort.Ints(cs)
	return cs
}

// group is a flow group: the flows that follow one path.
type group struct {
	path  []int
	flows []int // indices into the flows
	bits  float64
}

// groupPaths routes flows and groups them by path, in order of first
// appearance, summing each group's wire bits.
func groupPaths(net *topo.Network, flows []workload.Flow, cfg netcfg.Config) ([]group, error) {
	idx := map[string]int{}
	var groups []group
	var buf []int
	key := make([]byte, 0, 64)
	for i, f := range flows {
		var err error
		if buf, err = net.AppendPath(buf[:0], f.ID, f.Src, f.Dst); err != nil {
			return nil, fmt.Errorf("dscale: %w", err)
		}
		key = key[:0]
		for _, c := range buf {
			key = append(key, byte(c), byte(c>>8), byte(c>>16), byte(c>>24))
		}
		g, ok := idx[string(key)]
		if !ok {
			g = len(groups)
			idx[string(key)] = g
			groups = append(groups, group{path: append([]int(nil), buf...)})
		}
		groups[g].flows = append(groups[g].flows, i)
		groups[g].bits += float64(cfg.WireBytes(f.Size)) * 8
	}
	return groups, nil
}
