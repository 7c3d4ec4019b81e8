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
// Spec.BackgroundHosts hosts, one group per link delay: a flow that joins
// the path at a switch enters from a host whose link has the propagation
// delay of the flow's route before the path, and one that leaves goes to a
// host whose link has the delay of its route after the path. Base round
// trips are thus those of the real routes. Without this, a flow joining
// near the destination would see a round trip of two links instead of
// six, and its window (sized for the full path's bandwidth-delay product)
// would park a standing queue in front of the foreground flows that the
// real network does not have: on the 32-rack fabric that inflated the
// foreground p99 by about a third.
type PathSim struct {
	Spec  topo.ParkingLotSpec // the chain (Hops, Bandwidths, Delay) and background host links
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

// lot builds a parking lot with attachment groups. Node ids: 0 the
// foreground source, 1 its destination, 2..Hops the switches along the
// chain, then background hosts group by group in order of first use.
// Host links take spec.HostBandwidth when the network is built, so that
// a caller may raise it while adding flows.
type lot struct {
	spec  topo.ParkingLotSpec
	nodes []topo.Node
	links []topo.Link
	// groups[sw] lists the attachment groups of switch sw; a switch has
	// a handful, so a scan beats a map.
	groups [][]group
}

// group is an attachment group: its links' delay and its first host.
type group struct {
	delay int64
	first int
}

// newLot lays out the chain of spec (Hops, Bandwidths, Delay;
// HostBandwidth and BackgroundHosts are for the groups).
func newLot(spec topo.ParkingLotSpec) (*lot, error) {
	switch {
	case spec.Hops < 1 || len(spec.Bandwidths) != spec.Hops:
		return nil, fmt.Errorf("m3: parking lot of %d hops with %d bandwidths", spec.Hops, len(spec.Bandwidths))
	case spec.BackgroundHosts < 1 || spec.HostBandwidth <= 0 || spec.Delay < 0:
		return nil, fmt.Errorf("m3: parking lot needs background hosts, a host bandwidth and a delay, got %+v", spec)
	}
	l := &lot{spec: spec, groups: make([][]group, spec.Hops-1)}
	chain := []int{0}
	for i := 1; i < spec.Hops; i++ {
		chain = append(chain, 1+i)
	}
	chain = append(chain, 1)
	for id := range 1 + spec.Hops {
		kind := topo.Switch
		if id < 2 {
			kind = topo.Host
		}
		l.nodes = append(l.nodes, topo.Node{ID: id, Kind: kind, Rack: -1, Pod: -1})
	}
	for i := range spec.Hops {
		l.links = append(l.links, topo.Link{A: chain[i], B: chain[i+1], Bandwidth: spec.Bandwidths[i], Delay: spec.Delay})
	}
	return l, nil
}

// host returns background host slot (mod BackgroundHosts) of the group at
// switch sw (0-based along the chain) whose links have the given delay,
// creating the group on first use.
func (l *lot) host(sw int, delay int64, slot int) int {
	for _, g := range l.groups[sw] {
		if g.delay == delay {
			return g.first + slot%l.spec.BackgroundHosts
		}
	}
	first := len(l.nodes)
	l.groups[sw] = append(l.groups[sw], group{delay, first})
	for j := range l.spec.BackgroundHosts {
		l.nodes = append(l.nodes, topo.Node{ID: first + j, Kind: topo.Host, Rack: -1, Pod: -1})
		l.links = append(l.links, topo.Link{A: first + j, B: 2 + sw, Delay: delay})
	}
	return first + slot%l.spec.BackgroundHosts
}

// endpoints returns the parking-lot hosts of a flow crossing chain hops
// first..last: host 0 when it enters at the first hop, else a host of the
// group at the switch before hop first with link delay in, and host 1 when
// it leaves after the last hop, else one of the group at the switch after
// hop last with delay out. srcSlot and dstSlot pick the host in a group.
func (l *lot) endpoints(first, last int, in, out int64, srcSlot, dstSlot int) (src, dst int) {
	src, dst = 0, 1
	if first > 0 {
		src = l.host(first-1, in, srcSlot)
	}
	if last < l.spec.Hops-1 {
		dst = l.host(last, out, dstSlot)
	}
	return src, dst
}

func (l *lot) network() (*topo.Network, error) {
	for i := l.spec.Hops; i < len(l.links); i++ {
		l.links[i].Bandwidth = l.spec.HostBandwidth
	}
	return topo.New(fmt.Sprintf("parkinglot-%dhop", l.spec.Hops), l.nodes, l.links)
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
	spec := topo.ParkingLotSpec{Hops: len(chans), BackgroundHosts: bgHosts}
	var delay int64
	for _, c := range chans {
		spec.Bandwidths = append(spec.Bandwidths, net.Channels[c].Bandwidth)
		delay += net.Channels[c].Delay
	}
	spec.Delay = max(delay/int64(len(chans)), 1)
	bg := d.Background(p)
	// The foreground flows' NICs give a first host bandwidth; the
	// background flows' raise it as they are added (see lot).
	for _, f := range fg {
		spec.HostBandwidth = max(spec.HostBandwidth, net.Channels[d.Route(int(f))[0]].Bandwidth)
	}
	l, err := newLot(spec)
	if err != nil {
		return nil, err
	}
	// Flows are in start order (workload.Check), so merging the ascending
	// foreground and background lists by index keeps start order.
	n := len(fg) + len(bg)
	sim := &PathSim{Flows: make([]workload.Flow, 0, n), First: make([]int, 0, n), Last: make([]int, 0, n),
		Foreground: make([]bool, 0, n), Orig: make([]int, 0, n)}
	add := func(f, a, b int, fg bool) {
		route := d.Route(f)
		l.spec.HostBandwidth = max(l.spec.HostBandwidth, net.Channels[route[0]].Bandwidth)
		in, out := offPathDelays(net, route, chans[a], chans[b])
		src, dst := l.endpoints(a, b, in, out, flows[f].Src, flows[f].Dst)
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
	sim.Spec = l.spec
	if sim.Net, err = l.network(); err != nil {
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
