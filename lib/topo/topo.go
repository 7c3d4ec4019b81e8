// Package topo holds data-center network topologies: hosts and switches,
// links between them (each a pair of directed channels with a bandwidth and a
// propagation delay), and deterministic per-flow ECMP routing over them.
//
// Every estimator in tailscope routes flows through the same Network, so a
// flow takes the same path in the packet simulator, in Parsimon's
// decomposition and in m3's path sampling.
package topo

import (
	"errors"
	"fmt"
	"strings"
)

// Kind says whether a node is a host (a traffic end point that never
// forwards) or a switch.
type Kind uint8

const (
	// Host is an end point: flows start and end at hosts.
	Host Kind = iota
	// Switch forwards packets; it never sources or sinks flows.
	Switch
)

// String returns "Host" or "Switch" (ParseKind reads them back).
func (k Kind) String() string {
	switch k {
	case Host:
		return "Host"
	case Switch:
		return "Switch"
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// ParseKind reads "Host" or "Switch" (any case).
func ParseKind(s string) (Kind, error) {
	switch strings.ToLower(s) {
	case "host":
		return Host, nil
	case "switch":
		return Switch, nil
	}
	return 0, fmt.Errorf("topo: unknown node kind %q (want Host or Switch)", s)
}

// Node is a host or a switch. Rack and Pod place hosts and top-of-rack
// switches in a fabric (traffic matrices are rack to rack); they are -1 where
// they do not apply.
type Node struct {
	ID   int
	Kind Kind
	Rack int
	Pod  int
}

// Link is a full-duplex link between nodes A and B.
type Link struct {
	ID        int
	A, B      int
	Bandwidth int64 // bits per second, each direction
	Delay     int64 // propagation delay, nanoseconds
}

// Channel is one direction of a link. Channel 2*l goes from link l's A to
// its B and channel 2*l+1 back.
type Channel struct {
	ID        int
	Link      int
	Src, Dst  int
	Bandwidth int64 // bits per second
	Delay     int64 // nanoseconds
}

// Network is a validated topology with its routing state. Create one with
// New or a builder; it is safe for concurrent use by readers (Path, Channels)
// but FailLink and RestoreLink must not run concurrently with them.
type Network struct {
	Name     string
	Nodes    []Node
	Links    []Link
	Channels []Channel

	out    [][]int32 // channel ids leaving each node, ascending
	failed []bool    // per link
	hosts  []int
	r      *router
}

// New validates nodes and links and builds the routing tables. Node ids must
// be 0..len(nodes)-1 (in any order), link ids are reassigned to their index.
func New(name string, nodes []Node, links []Link) (*Network, error) {
	n := &Network{Name: name}
	if len(nodes) == 0 {
		return nil, errors.New("topo: network has no nodes")
	}
	n.Nodes = make([]Node, len(nodes))
	seen := make([]bool, len(nodes))
	for _, nd := range nodes {
		if nd.ID < 0 || nd.ID >= len(nodes) {
			return nil, fmt.Errorf("topo: node id %d out of range: ids must be 0..%d", nd.ID, len(nodes)-1)
		}
		if seen[nd.ID] {
			return nil, fmt.Errorf("topo: duplicate node id %d", nd.ID)
		}
		if nd.Kind != Host && nd.Kind != Switch {
			return nil, fmt.Errorf("topo: node %d has unknown kind %d", nd.ID, nd.Kind)
		}
		seen[nd.ID] = true
		n.Nodes[nd.ID] = nd
	}
	type pair struct{ a, b int }
	pairs := make(map[pair]int, len(links))
	n.Links = make([]Link, len(links))
	n.Channels = make([]Channel, 2*len(links))
	n.out = make([][]int32, len(nodes))
	for i, l := range links {
		switch {
		case l.A < 0 || l.A >= len(nodes) || l.B < 0 || l.B >= len(nodes):
			return nil, fmt.Errorf("topo: link %d (%d-%d) names a node that does not exist", i, l.A, l.B)
		case l.A == l.B:
			return nil, fmt.Errorf("topo: link %d connects node %d to itself", i, l.A)
		case l.Bandwidth <= 0:
			return nil, fmt.Errorf("topo: link %d (%d-%d) has bandwidth %d bps; it must be positive", i, l.A, l.B, l.Bandwidth)
		case l.Delay < 0:
			return nil, fmt.Errorf("topo: link %d (%d-%d) has negative delay %d ns", i, l.A, l.B, l.Delay)
		}
		p := pair{min(l.A, l.B), max(l.A, l.B)}
		if j, dup := pairs[p]; dup {
			return nil, fmt.Errorf("topo: links %d and %d both connect nodes %d and %d", j, i, p.a, p.b)
		}
		pairs[p] = i
		l.ID = i
		n.Links[i] = l
		n.Channels[2*i] = Channel{ID: 2 * i, Link: i, Src: l.A, Dst: l.B, Bandwidth: l.Bandwidth, Delay: l.Delay}
		n.Channels[2*i+1] = Channel{ID: 2*i + 1, Link: i, Src: l.B, Dst: l.A, Bandwidth: l.Bandwidth, Delay: l.Delay}
		n.out[l.A] = append(n.out[l.A], int32(2*i))
		n.out[l.B] = append(n.out[l.B], int32(2*i+1))
	}
	for _, nd := range n.Nodes {
		if nd.Kind == Host {
			n.hosts = append(n.hosts, nd.ID)
		}
	}
	if len(n.hosts) < 2 {
		return nil, fmt.Errorf("topo: network has %d hosts; at least 2 are needed", len(n.hosts))
	}
	n.failed = make([]bool, len(links))
	if err := n.reroute(); err != nil {
		return nil, err
	}
	return n, nil
}

// Hosts returns the ids of the hosts in ascending order. The slice is shared:
// do not modify it.
func (n *Network) Hosts() []int { return n.hosts }

// IsHost reports whether node id is a host.
func (n *Network) IsHost(id int) bool {
	return id >= 0 && id < len(n.Nodes) && n.Nodes[id].Kind == Host
}

// Out returns the ids of the channels leaving node id, failed ones included.
func (n *Network) Out(id int) []int {
	o := make([]int, len(n.out[id]))
	for i, c := range n.out[id] {
		o[i] = int(c)
	}
	return o
}

// Reverse returns the channel that runs opposite to channel c on its link.
func (n *Network) Reverse(c int) int { return c ^ 1 }

// Failed reports whether link l has been failed.
func (n *Network) Failed(l int) bool { return n.failed[l] }

// FailLink takes link l out of service: routes are recomputed over the
// remaining shortest paths, as in Parsimon's link-failure study (App. B).
// It returns an error, and leaves the link up, if that would disconnect
// two hosts.
func (n *Network) FailLink(l int) error {
	if l < 0 || l >= len(n.Links) {
		return fmt.Errorf("topo: no link %d", l)
	}
	if n.failed[l] {
		return nil
	}
	n.failed[l] = true
	if err := n.reroute(); err != nil {
		n.failed[l] = false
		if err2 := n.reroute(); err2 != nil {
			panic(err2) // the network was routable before
		}
		return fmt.Errorf("topo: failing link %d (%d-%d): %w", l, n.Links[l].A, n.Links[l].B, err)
	}
	return nil
}

// RestoreLink puts a failed link back into service.
func (n *Network) RestoreLink(l int) error {
	if l < 0 || l >= len(n.Links) {
		return fmt.Errorf("topo: no link %d", l)
	}
	if !n.failed[l] {
		return nil
	}
	n.failed[l] = false
	return n.reroute()
}

// Summary describes the network in one line: node, host, switch and link
// counts.
func (n *Network) Summary() string {
	return fmt.Sprintf("%s: %d nodes (%d hosts, %d switches), %d links",
		n.Name, len(n.Nodes), len(n.hosts), len(n.Nodes)-len(n.hosts), len(n.Links))
}

// CountKinds returns the number of hosts and switches.
func (n *Network) CountKinds() (hosts, switches int) {
	return len(n.hosts), len(n.Nodes) - len(n.hosts)
}
