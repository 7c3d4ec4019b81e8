package topo

import (
	"fmt"
	"sort"
	"strings"
)

// Common link speeds and delays (bits per second, nanoseconds).
const (
	Gbps = int64(1_000_000_000)
	// Microsecond is the default propagation delay of every link.
	Microsecond = int64(1000)
)

// FabricSpec describes a Meta-style fabric (Parsimon §5.1): pods of racks,
// each rack a top-of-rack (ToR) switch with its hosts; each pod has one
// fabric switch per plane, connected to every ToR of the pod; fabric switch
// i of each pod connects to every spine of plane i.
type FabricSpec struct {
	Pods            int   `json:"pods,omitempty"`
	RacksPerPod     int   `json:"racks_per_pod,omitempty"`
	HostsPerRack    int   `json:"hosts_per_rack,omitempty"`
	Planes          int   `json:"planes,omitempty"`
	SpinesPerPlane  int   `json:"spines_per_plane,omitempty"`
	HostBandwidth   int64 `json:"host_bandwidth,omitempty"`   // host-ToR links, bps (default 10 Gbps)
	FabricBandwidth int64 `json:"fabric_bandwidth,omitempty"` // ToR-fabric and fabric-spine links, bps (default 40 Gbps)
	Delay           int64 `json:"delay,omitempty"`            // every link, ns (default 1 us)
}

func (s FabricSpec) withDefaults() FabricSpec {
	if s.HostBandwidth == 0 {
		s.HostBandwidth = 10 * Gbps
	}
	if s.FabricBandwidth == 0 {
		s.FabricBandwidth = 40 * Gbps
	}
	if s.Delay == 0 {
		s.Delay = Microsecond
	}
	return s
}

// Oversubscription is the ratio of the bandwidth a pod's racks offer its
// fabric switches to what the fabric switches have toward the spines.
func (s FabricSpec) Oversubscription() float64 {
	return float64(s.RacksPerPod) / float64(s.SpinesPerPlane)
}

var presets = map[string]FabricSpec{
	"meta32-1:1":  {Pods: 2, RacksPerPod: 16, HostsPerRack: 8, Planes: 2, SpinesPerPlane: 16},
	"meta32-2:1":  {Pods: 2, RacksPerPod: 16, HostsPerRack: 8, Planes: 2, SpinesPerPlane: 8},
	"meta32-4:1":  {Pods: 2, RacksPerPod: 16, HostsPerRack: 8, Planes: 2, SpinesPerPlane: 4},
	"meta384-1:1": {Pods: 8, RacksPerPod: 48, HostsPerRack: 16, Planes: 4, SpinesPerPlane: 48},
	"meta384-2:1": {Pods: 8, RacksPerPod: 48, HostsPerRack: 16, Planes: 4, SpinesPerPlane: 24},
}

// Presets lists the names of the fabric presets: the 32-rack (256-host)
// fabrics at 1:1, 2:1 and 4:1 oversubscription and the 384-rack (6144-host)
// ones at 1:1 and 2:1, as in Parsimon §5.
func Presets() []string {
	names := make([]string, 0, len(presets))
	for k := range presets {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Preset returns the fabric spec of a preset name (see Presets).
func Preset(name string) (FabricSpec, error) {
	s, ok := presets[name]
	if !ok {
		return FabricSpec{}, fmt.Errorf("topo: unknown fabric preset %q (known: %s)", name, strings.Join(Presets(), ", "))
	}
	return s.withDefaults(), nil
}

// Fabric builds a Meta fabric. Node ids: hosts first (rack by rack), then
// ToRs, then fabric switches (pod by pod, plane by plane), then spines
// (plane by plane).
func Fabric(s FabricSpec) (*Network, error) {
	s = s.withDefaults()
	if s.Pods < 1 || s.RacksPerPod < 1 || s.HostsPerRack < 1 || s.Planes < 1 || s.SpinesPerPlane < 1 {
		return nil, fmt.Errorf("topo: fabric needs at least one of each of pods, racks per pod, hosts per rack, planes, spines per plane; got %+v", s)
	}
	racks := s.Pods * s.RacksPerPod
	hosts := racks * s.HostsPerRack
	tor0 := hosts
	fab0 := tor0 + racks
	spine0 := fab0 + s.Pods*s.Planes
	total := spine0 + s.Planes*s.SpinesPerPlane
	nodes := make([]Node, total)
	var links []Link
	for id := range nodes {
		nodes[id] = Node{ID: id, Kind: Switch, Rack: -1, Pod: -1}
	}
	for r := 0; r < racks; r++ {
		pod := r / s.RacksPerPod
		nodes[tor0+r].Rack, nodes[tor0+r].Pod = r, pod
		for h := 0; h < s.HostsPerRack; h++ {
			id := r*s.HostsPerRack + h
			nodes[id] = Node{ID: id, Kind: Host, Rack: r, Pod: pod}
			links = append(links, Link{A: id, B: tor0 + r, Bandwidth: s.HostBandwidth, Delay: s.Delay})
		}
	}
	for r := 0; r < racks; r++ {
		pod := r / s.RacksPerPod
		for p := 0; p < s.Planes; p++ {
			links = append(links, Link{A: tor0 + r, B: fab0 + pod*s.Planes + p, Bandwidth: s.FabricBandwidth, Delay: s.Delay})
		}
	}
	for pod := 0; pod < s.Pods; pod++ {
		for p := 0; p < s.Planes; p++ {
			nodes[fab0+pod*s.Planes+p].Pod = pod
			for k := 0; k < s.SpinesPerPlane; k++ {
				links = append(links, Link{A: fab0 + pod*s.Planes + p, B: spine0 + p*s.SpinesPerPlane + k, Bandwidth: s.FabricBandwidth, Delay: s.Delay})
			}
		}
	}
	name := fmt.Sprintf("fabric-%dx%dx%d-%gto1", s.Pods, s.RacksPerPod, s.HostsPerRack, s.Oversubscription())
	return New(name, nodes, links)
}

// ParkingLotSpec describes a parking lot: a chain of Hops links from host 0
// (the foreground source) through Hops-1 switches to host 1 (the foreground
// destination), with BackgroundHosts extra hosts attached to every switch,
// or, with GroupHosts set, with background hosts attached in Groups.
type ParkingLotSpec struct {
	Hops            int     `json:"hops,omitempty"`
	Bandwidths      []int64 `json:"bandwidths,omitempty"`     // per hop along the chain, bps; empty: all Bandwidth
	Bandwidth       int64   `json:"bandwidth,omitempty"`      // default 10 Gbps
	HostBandwidth   int64   `json:"host_bandwidth,omitempty"` // background host links, bps (default Bandwidth)
	Delay           int64   `json:"delay,omitempty"`          // every link, ns (default 1 us)
	BackgroundHosts int     `json:"background_hosts,omitempty"`
	// GroupHosts, when positive, replaces BackgroundHosts (which must then
	// be 0): every group of Groups has GroupHosts hosts on its switch,
	// linked with the group's delay. m3's path-level simulations attach
	// each background flow to a group whose delay is its route's off the
	// path, so that its base round trip is the real one.
	GroupHosts int         `json:"group_hosts,omitempty"`
	Groups     []HostGroup `json:"groups,omitempty"`
}

// HostGroup is a group of background hosts of a parking lot: on chain
// switch Switch (0-based from the source), linked with delay Delay (ns).
type HostGroup struct {
	Switch int   `json:"switch"`
	Delay  int64 `json:"delay"`
}

// BackgroundHost is the id of background host j at switch i (0-based along
// the chain from the source), without GroupHosts.
func (s ParkingLotSpec) BackgroundHost(i, j int) int { return 2 + i*s.BackgroundHosts + j }

// GroupHost is the id of host j of group g (Groups[g]), with GroupHosts.
func (s ParkingLotSpec) GroupHost(g, j int) int { return 1 + s.Hops + g*s.GroupHosts + j }

// ChainPairs lists host pairs in chain order: from the source or a
// switch's background host to a background host of a later switch or the
// destination, so that paths of every length from 1 to Hops share links.
// It lists BackgroundHosts' hosts, not those of Groups.
func (s ParkingLotSpec) ChainPairs() [][2]int {
	type point struct{ pos, host int } // pos: -1 before switch 0, Hops-1 after the last
	pts := []point{{-1, 0}, {s.Hops - 1, 1}}
	for i := 0; i < s.Hops-1; i++ {
		for j := 0; j < s.BackgroundHosts; j++ {
			pts = append(pts, point{i, s.BackgroundHost(i, j)})
		}
	}
	var pairs [][2]int
	for _, a := range pts {
		for _, b := range pts {
			if a.pos < b.pos {
				pairs = append(pairs, [2]int{a.host, b.host})
			}
		}
	}
	return pairs
}

// Switch is the id of switch i along the chain.
func (s ParkingLotSpec) Switch(i int) int {
	if s.GroupHosts > 0 {
		return 2 + i
	}
	return 2 + (s.Hops-1)*s.BackgroundHosts + i
}

// ParkingLot builds a parking lot. Node ids: 0 source, 1 destination, then
// background hosts switch by switch (see BackgroundHost), then switches;
// with GroupHosts, the switches come before the background hosts, which
// follow group by group (see GroupHost). Links: the chain's from the
// source, then the background hosts' in the order of their ids.
func ParkingLot(s ParkingLotSpec) (*Network, error) {
	if s.Hops < 1 {
		return nil, fmt.Errorf("topo: parking lot needs at least 1 hop, got %d", s.Hops)
	}
	if s.Bandwidth == 0 {
		s.Bandwidth = 10 * Gbps
	}
	if s.HostBandwidth == 0 {
		s.HostBandwidth = s.Bandwidth
	}
	if s.Delay == 0 {
		s.Delay = Microsecond
	}
	if len(s.Bandwidths) == 0 {
		for i := 0; i < s.Hops; i++ {
			s.Bandwidths = append(s.Bandwidths, s.Bandwidth)
		}
	}
	if len(s.Bandwidths) != s.Hops {
		return nil, fmt.Errorf("topo: parking lot has %d hops but %d bandwidths", s.Hops, len(s.Bandwidths))
	}
	sw := s.Hops - 1
	switch {
	case s.BackgroundHosts < 0 || s.GroupHosts < 0:
		return nil, fmt.Errorf("topo: parking lot with %d background hosts and %d per group: must not be negative", s.BackgroundHosts, s.GroupHosts)
	case s.GroupHosts > 0 && s.BackgroundHosts > 0:
		return nil, fmt.Errorf("topo: parking lot with %d background hosts per switch and %d per group: choose one", s.BackgroundHosts, s.GroupHosts)
	case s.GroupHosts == 0 && len(s.Groups) > 0:
		return nil, fmt.Errorf("topo: parking lot with %d host groups needs group_hosts", len(s.Groups))
	}
	for g, hg := range s.Groups {
		if hg.Switch < 0 || hg.Switch >= sw || hg.Delay < 0 {
			return nil, fmt.Errorf("topo: parking lot host group %d on switch %d with delay %d ns: want a switch 0..%d and a delay >= 0", g, hg.Switch, hg.Delay, sw-1)
		}
	}
	background := sw*s.BackgroundHosts + len(s.Groups)*s.GroupHosts
	nodes := make([]Node, 2+background+sw)
	for id := range nodes {
		nodes[id] = Node{ID: id, Kind: Host, Rack: -1, Pod: -1}
	}
	for i := 0; i < sw; i++ {
		nodes[s.Switch(i)].Kind = Switch
	}
	chain := []int{0}
	for i := 0; i < sw; i++ {
		chain = append(chain, s.Switch(i))
	}
	chain = append(chain, 1)
	var links []Link
	for i := 0; i < s.Hops; i++ {
		links = append(links, Link{A: chain[i], B: chain[i+1], Bandwidth: s.Bandwidths[i], Delay: s.Delay})
	}
	for i := 0; i < sw; i++ {
		for j := 0; j < s.BackgroundHosts; j++ {
			links = append(links, Link{A: s.BackgroundHost(i, j), B: s.Switch(i), Bandwidth: s.HostBandwidth, Delay: s.Delay})
		}
	}
	for g, hg := range s.Groups {
		for j := 0; j < s.GroupHosts; j++ {
			links = append(links, Link{A: s.GroupHost(g, j), B: s.Switch(hg.Switch), Bandwidth: s.HostBandwidth, Delay: hg.Delay})
		}
	}
	return New(fmt.Sprintf("parkinglot-%dhop", s.Hops), nodes, links)
}

// DumbbellSpec describes a dumbbell: Senders hosts on a left switch,
// Receivers hosts on a right switch, and one bottleneck link between them.
type DumbbellSpec struct {
	Senders             int   `json:"senders"`
	Receivers           int   `json:"receivers"`
	HostBandwidth       int64 `json:"host_bandwidth,omitempty"`       // default 10 Gbps
	BottleneckBandwidth int64 `json:"bottleneck_bandwidth,omitempty"` // default 10 Gbps
	Delay               int64 `json:"delay,omitempty"`                // every link, ns (default 1 us)
}

// CrossPairs lists every (sender, receiver) pair, senders in order: the
// traffic that crosses the bottleneck.
func (s DumbbellSpec) CrossPairs() [][2]int {
	pairs := make([][2]int, 0, s.Senders*s.Receivers)
	for i := range s.Senders {
		for j := range s.Receivers {
			pairs = append(pairs, [2]int{i, s.Senders + j})
		}
	}
	return pairs
}

// Dumbbell builds a dumbbell. Node ids: senders 0..Senders-1, then
// receivers, then the left and right switches.
func Dumbbell(s DumbbellSpec) (*Network, error) {
	if s.Senders < 1 || s.Receivers < 1 {
		return nil, fmt.Errorf("topo: dumbbell needs at least one sender and one receiver, got %d and %d", s.Senders, s.Receivers)
	}
	if s.HostBandwidth == 0 {
		s.HostBandwidth = 10 * Gbps
	}
	if s.BottleneckBandwidth == 0 {
		s.BottleneckBandwidth = 10 * Gbps
	}
	if s.Delay == 0 {
		s.Delay = Microsecond
	}
	h := s.Senders + s.Receivers
	left, right := h, h+1
	nodes := make([]Node, h+2)
	var links []Link
	for id := range nodes {
		nodes[id] = Node{ID: id, Kind: Host, Rack: -1, Pod: -1}
		if id < s.Senders {
			links = append(links, Link{A: id, B: left, Bandwidth: s.HostBandwidth, Delay: s.Delay})
		} else if id < h {
			links = append(links, Link{A: id, B: right, Bandwidth: s.HostBandwidth, Delay: s.Delay})
		}
	}
	nodes[left].Kind, nodes[right].Kind = Switch, Switch
	links = append(links, Link{A: left, B: right, Bandwidth: s.BottleneckBandwidth, Delay: s.Delay})
	return New(fmt.Sprintf("dumbbell-%dx%d", s.Senders, s.Receivers), nodes, links)
}

// Racks returns, for a network whose hosts carry rack numbers, the hosts of
// each rack (index = rack number). Hosts without a rack are left out.
func (n *Network) Racks() [][]int {
	var racks [][]int
	for _, h := range n.hosts {
		r := n.Nodes[h].Rack
		if r < 0 {
			continue
		}
		for len(racks) <= r {
			racks = append(racks, nil)
		}
		racks[r] = append(racks[r], h)
	}
	return racks
}
