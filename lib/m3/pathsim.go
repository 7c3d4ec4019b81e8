package m3

import (
	"fmt"

	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// DefaultBackgroundHosts is the number of hosts per parking-lot switch that
// background flows enter from and leave to. Flows are spread over them by
// their real source (destination) host, so flows from one real host still
// share one NIC, while flows from different hosts can together fill a
// 40 Gbps hop, as the several hosts of a rack can.
const DefaultBackgroundHosts = 4

// PathSim is the path-level simulation of one path: a parking lot whose
// chain is the path, the path's foreground flows from host 0 to host 1,
// and its background flows entering and leaving at the switches where they
// join and leave the path (m3 §3.3).
type PathSim struct {
	Spec  topo.ParkingLotSpec
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

// chain returns the bandwidths and delays of the chain's hops: hop i is
// link i of the parking lot, and its forward channel is 2i.
func (s *PathSim) chain() (bandwidths, delays []int64) {
	for i := range s.Spec.Hops {
		ch := s.Net.Channels[2*i]
		bandwidths, delays = append(bandwidths, ch.Bandwidth), append(delays, ch.Delay)
	}
	return bandwidths, delays
}

// endpoints returns the parking-lot hosts of a flow crossing chain hops
// first..last: host 0 when it enters at the first hop, else a background
// host at the switch before hop first (slot in), and host 1 when it leaves
// after the last hop, else a background host at the switch after hop last
// (slot out). The two hosts hang off different switches, so they differ.
func endpoints(s topo.ParkingLotSpec, first, last, in, out int) (src, dst int) {
	src, dst = 0, 1
	if first > 0 {
		src = s.BackgroundHost(first-1, in%s.BackgroundHosts)
	}
	if last < s.Hops-1 {
		dst = s.BackgroundHost(last, out%s.BackgroundHosts)
	}
	return src, dst
}

// PathSim builds the parking lot of path p of flows on net: hop i has the
// bandwidth of the path's channel i, every link the path's mean channel
// delay, background host links the bandwidth of the fastest source NIC
// among the path's flows, and bgHosts background hosts per switch
// (DefaultBackgroundHosts if 0).
func (d *Decomposition) PathSim(net *topo.Network, flows []workload.Flow, p, bgHosts int) (*PathSim, error) {
	if p < 0 || p >= len(d.Paths) {
		return nil, fmt.Errorf("m3: path %d out of range (0..%d)", p, len(d.Paths)-1)
	}
	if bgHosts <= 0 {
		bgHosts = DefaultBackgroundHosts
	}
	path := d.Paths[p]
	spec := topo.ParkingLotSpec{Hops: len(path.Channels), BackgroundHosts: bgHosts}
	var delay int64
	for _, c := range path.Channels {
		spec.Bandwidths = append(spec.Bandwidths, net.Channels[c].Bandwidth)
		delay += net.Channels[c].Delay
	}
	spec.Delay = max(delay/int64(len(path.Channels)), 1)
	bg := d.Background(p)
	for _, f := range path.Flows {
		spec.HostBandwidth = max(spec.HostBandwidth, net.Channels[d.routes[f][0]].Bandwidth)
	}
	for _, b := range bg {
		spec.HostBandwidth = max(spec.HostBandwidth, net.Channels[d.routes[b.Flow][0]].Bandwidth)
	}
	// Flows are in start order (workload.Check), so merging the ascending
	// foreground and background lists by index keeps start order.
	sim := &PathSim{Spec: spec}
	add := func(f, first, last int, fg bool) {
		src, dst := endpoints(spec, first, last, flows[f].Src, flows[f].Dst)
		sim.Flows = append(sim.Flows, workload.Flow{ID: len(sim.Flows), Src: src, Dst: dst, Size: flows[f].Size, Start: flows[f].Start})
		sim.First, sim.Last = append(sim.First, first), append(sim.Last, last)
		sim.Foreground, sim.Orig = append(sim.Foreground, fg), append(sim.Orig, f)
	}
	i, j := 0, 0
	for i < len(path.Flows) || j < len(bg) {
		if j == len(bg) || (i < len(path.Flows) && path.Flows[i] < bg[j].Flow) {
			add(path.Flows[i], 0, spec.Hops-1, true)
			i++
		} else {
			add(bg[j].Flow, bg[j].First, bg[j].Last, false)
			j++
		}
	}
	var err error
	if sim.Net, err = topo.ParkingLot(spec); err != nil {
		return nil, fmt.Errorf("m3: path %d: %w", p, err)
	}
	return sim, nil
}
