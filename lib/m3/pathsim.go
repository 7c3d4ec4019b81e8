package m3

import (
	"fmt"

	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// DefaultBackgroundHosts is the number of hosts per attachment group (see
// PathSim) that background flows enter from and leave to. Flows are spread
// over them by their real source (destination) host, so flows from one
// real host still share one NIC, while flows from different hosts can
// together fill a 40 Gbps hop, as the several hosts of a rack can.
const DefaultBackgroundHosts = 4

// PathSim is the path-level simulation of one path: a parking lot whose
// chain is the path, the path's foreground flows from host 0 to host 1,
// and its background flows entering and leaving at the switches where they
// join and leave the path (m3 §3.3).
//
// Background hosts hang off each switch in attachment groups of
// Spec.GroupHosts hosts (Spec.Groups), one group per link delay: a flow
// that joins the path at a switch enters from a host whose link has the
// propagation delay of the flow's route before the path, and one that
// leaves goes to a host whose link has the delay of its route after the
// path. Base round trips are thus those of the real routes. Without this, a flow joining
// near the destination would see a round trip of two links instead of
// six, and its window (sized for the full path's bandwidth-delay product)
// would park a standing queue in front of the foreground flows that the
// real network does not have: on the 32-rack fabric that inflated the
// foreground p99 by about a third.
type PathSim struct {
	Spec  topo.ParkingLotSpec // the chain (Hops, Bandwidths, Delay) and attachment groups; Net is topo.ParkingLot(Spec)
	Net   *topo.Network
	Flows []workload.Flow // on Net, ids 0..n-1 in start order
	// First and Last are the first and last chain hop of each flow.
	First, Last []int
	// Foreground marks the path's foreground flows (they cross the whole
	// chain).
	Foreground []bool
	// Orig is the index of each flow in the network's flow list (-1 for
	// synthetic workloads).
	Orig []int
}

// Hops is the number of links in the chain.
func (s *PathSim) Hops() int { return s.Spec.Hops }

// HopBytes returns the bytes of the flows crossing each hop of the chain.
func (s *PathSim) HopBytes() []float64 {
	bytes := make([]float64, s.Hops())
	for i, f := range s.Flows {
		for k := s.First[i]; k <= s.Last[i]; k++ {
			bytes[k] += float64(f.Size)
		}
	}
	return bytes
}

// BusiestHop is the hop with the most bytes per unit of bandwidth (the
// first of equals).
func (s *PathSim) BusiestHop() int {
	bytes := s.HopBytes()
	bw := func(k int) float64 { return float64(s.Net.Channels[2*k].Bandwidth) }
	busiest := 0
	for k := range bytes {
		if bytes[k]/bw(k) > bytes[busiest]/bw(busiest) {
			busiest = k
		}
	}
	return busiest
}

// chain returns the bandwidths and delays of the chain's hops: hop i is
// link i of the parking lot, and its forward channel is 2i.
func (s *PathSim) chain() (bandwidths, delays []int64) {
	for i := range s.Spec.Hops {
		ch := s.Net.Channels[2*i]
		bandwidths, delays = append(bandwidths, ch.Bandwidth), append(delays, ch.Delay)
	}
	return bandwidths, delays
}

// attach returns host slot (mod GroupHosts) of the attachment group of
// spec at switch sw (0-based along the chain) whose links have the given
// delay, adding the group to spec.Groups on first use.
func attach(spec *topo.ParkingLotSpec, sw int, delay int64, slot int) int {
	for g, hg := range spec.Groups {
		if hg.Switch == sw && hg.Delay == delay {
			return spec.GroupHost(g, slot%spec.GroupHosts)
		}
	}
	spec.Groups = append(spec.Groups, topo.HostGroup{Switch: sw, Delay: delay})
	return spec.GroupHost(len(spec.Groups)-1, slot%spec.GroupHosts)
}

// endpoints returns the parking-lot hosts of a flow crossing chain hops
// first..last: host 0 when it enters at the first hop, else a host of the
// group at the switch before hop first with link delay in, and host 1 when
// it leaves after the last hop, else one of the group at the switch after
// hop last with delay out. srcSlot and dstSlot pick the host in a group.
func endpoints(spec *topo.ParkingLotSpec, first, last int, in, out int64, srcSlot, dstSlot int) (src, dst int) {
	src, dst = 0, 1
	if first > 0 {
		src = attach(spec, first-1, in, srcSlot)
	}
	if last < spec.Hops-1 {
		dst = attach(spec, last, out, dstSlot)
	}
	return src, dst
}

// PathSim builds the parking lot of path p of flows on net: hop i has the
// bandwidth of the path's channel i, chain links the path's mean channel
// delay, background host links the bandwidth of the fastest source NIC
// among the path's flows and the delays of the flows' routes off the path
// (see PathSim), and bgHosts hosts per group (DefaultBackgroundHosts if 0).
func (d *Decomposition) PathSim(net *topo.Network, flows []workload.Flow, p, bgHosts int) (*PathSim, error) {
	if p < 0 || p >= d.NumPaths() {
		return nil, fmt.Errorf("m3: path %d out of range (0..%d)", p, d.NumPaths()-1)
	}
	if bgHosts <= 0 {
		bgHosts = DefaultBackgroundHosts
	}
	chans, fg := d.Channels(p), d.Foreground(p)
	spec := topo.ParkingLotSpec{Hops: len(chans), GroupHosts: bgHosts}
	var delay int64
	for _, c := range chans {
		spec.Bandwidths = append(spec.Bandwidths, net.Channels[c].Bandwidth)
		delay += net.Channels[c].Delay
	}
	spec.Delay = max(delay/int64(len(chans)), 1)
	bg := d.Background(p)
	// Flows are in start order (workload.Check), so merging the ascending
	// foreground and background lists by index keeps start order.
	n := len(fg) + len(bg)
	sim := &PathSim{Flows: make([]workload.Flow, 0, n), First: make([]int, 0, n), Last: make([]int, 0, n),
		Foreground: make([]bool, 0, n), Orig: make([]int, 0, n)}
	add := func(f, a, b int, fg bool) {
		route := d.Route(f)
		spec.HostBandwidth = max(spec.HostBandwidth, net.Channels[route[0]].Bandwidth)
		in, out := offPathDelays(net, route, chans[a], chans[b])
		src, dst := endpoints(&spec, a, b, in, out, flows[f].Src, flows[f].Dst)
		sim.Flows = append(sim.Flows, workload.Flow{ID: len(sim.Flows), Src: src, Dst: dst, Size: flows[f].Size, Start: flows[f].Start})
		sim.First, sim.Last = append(sim.First, a), append(sim.Last, b)
		sim.Foreground, sim.Orig = append(sim.Foreground, fg), append(sim.Orig, f)
	}
	i, j := 0, 0
	for i < len(fg) || j < len(bg) {
		if j == len(bg) || (i < len(fg) && int(fg[i]) < bg[j].Flow) {
			add(int(fg[i]), 0, spec.Hops-1, true)
			i++
		} else {
			add(bg[j].Flow, bg[j].First, bg[j].Last, false)
			j++
		}
	}
	sim.Spec = spec
	var err error
	if sim.Net, err = topo.ParkingLot(spec); err != nil {
		return nil, fmt.Errorf("m3: path %d: %w", p, err)
	}
	return sim, nil
}

// offPathDelays returns the propagation delays of route before channel
// first and after channel last: the parts of a background flow's route off
// the path it joins at first and leaves at last.
func offPathDelays(net *topo.Network, route []int32, first, last int32) (in, out int64) {
	var sum int64
	for _, c := range route {
		if c == first {
			in = sum
		}
		sum += net.Channels[c].Delay
		if c == last {
			out = sum
		}
	}
	return in, sum - out
}
