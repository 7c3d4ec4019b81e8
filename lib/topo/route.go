package topo

import (
	"fmt"
)

// router holds shortest-path state over the alive channels. Hosts never
// forward, so distances are kept between switches only; a host's distance
// follows from its attachment switches.
type router struct {
	swIdx    []int32 // node id -> switch index, -1 for hosts
	switches []int   // switch index -> node id
	dist     []int16 // S*S hop counts between switches, unreachable = -1
	// The next hops from switch u toward target switch t, the channels
	// u->v (v a switch) with dist(v,t) == dist(u,t)-1, are list
	// l = lists[u] + nhRef[u*S+t]: nh[nhOff[l]:nhOff[l+1]] (nhRef is
	// unused where dist(u,t) <= 0). A switch has few distinct lists (a
	// fabric switch's uplinks serve every target above it), so each is
	// stored once, and the per-pair table holds 16-bit indices: on the
	// 6,144-host fabric a list per pair took 4.7 MB and a cache miss per
	// hop, the distinct lists take 66 KB.
	nhRef []uint16
	lists []int32
	nhOff []int32
	nh    []int32
	// chSw is the switch index of each channel's destination, -1 for a
	// host, and chDst its node id: the channel table's 48-byte entries
	// cost a cache miss per hop on a large fabric.
	chSw, chDst []int32
}

const unreachable = -1

func (n *Network) alive(c int32) bool { return !n.failed[c>>1] }

func (n *Network) reroute() error {
	r := &router{swIdx: make([]int32, len(n.Nodes))}
	for _, nd := range n.Nodes {
		r.swIdx[nd.ID] = -1
		if nd.Kind == Switch {
			r.swIdx[nd.ID] = int32(len(r.switches))
			r.switches = append(r.switches, nd.ID)
		}
	}
	r.chSw = make([]int32, len(n.Channels))
	r.chDst = make([]int32, len(n.Channels))
	for i, c := range n.Channels {
		r.chSw[i], r.chDst[i] = r.swIdx[c.Dst], int32(c.Dst)
	}
	S := len(r.switches)
	if S > 1<<16 {
		// The routing tables hold S*S entries and 16-bit list indices.
		return fmt.Errorf("topo: %d switches: routing supports at most 65,536", S)
	}
	r.dist = make([]int16, S*S)
	for i := range r.dist {
		r.dist[i] = unreachable
	}
	queue := make([]int32, 0, S)
	for s := 0; s < S; s++ {
		row := r.dist[s*S : (s+1)*S]
		row[s] = 0
		queue = append(queue[:0], int32(s))
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			for _, c := range n.out[r.switches[u]] {
				if !n.alive(c) {
					continue
				}
				v := r.chSw[c]
				if v >= 0 && row[v] == unreachable {
					row[v] = row[u] + 1
					queue = append(queue, v)
				}
			}
		}
	}
	// Distances are symmetric (every link is two channels), so dist(v,t)
	// is read from row t.
	r.nhRef = make([]uint16, S*S)
	r.lists = make([]int32, S)
	r.nhOff = []int32{0}
	var cand []int32
	var key []byte
	local := map[string]uint16{}
	for u := 0; u < S; u++ {
		r.lists[u] = int32(len(r.nhOff) - 1)
		clear(local)
		for t := 0; t < S; t++ {
			d := r.dist[t*S+u]
			if d <= 0 {
				continue
			}
			cand, key = cand[:0], key[:0]
			for _, c := range n.out[r.switches[u]] {
				if v := r.chSw[c]; v >= 0 && n.alive(c) && r.dist[t*S+int(v)] == d-1 {
					cand = append(cand, c)
					key = append(key, byte(c), byte(c>>8), byte(c>>16), byte(c>>24))
				}
			}
			l, ok := local[string(key)]
			if !ok {
				// At most S-1 lists per switch, and S <= 1<<16.
				l = uint16(len(local))
				local[string(key)] = l
				r.nh = append(r.nh, cand...)
				r.nhOff = append(r.nhOff, int32(len(r.nh)))
			}
			r.nhRef[u*S+t] = l
		}
	}
	n.r = r
	return n.checkConnected()
}

// checkConnected reports a host with no working link, or hosts that cannot
// reach each other.
func (n *Network) checkConnected() error {
	r := n.r
	S := len(r.switches)
	first := -1 // a switch some host attaches to
	for _, h := range n.hosts {
		up := 0
		for _, c := range n.out[h] {
			if n.alive(c) {
				up++
				if s := r.chSw[c]; s >= 0 && first < 0 {
					first = int(s)
				}
			}
		}
		if up == 0 {
			return fmt.Errorf("topo: host %d is disconnected (no working link)", h)
		}
	}
	for _, h := range n.hosts {
		ok := false
		direct := 0
		for _, c := range n.out[h] {
			if !n.alive(c) {
				continue
			}
			if s := r.chSw[c]; s >= 0 {
				ok = ok || r.dist[int(s)*S+first] >= 0
			} else {
				direct++
			}
		}
		// A host linked only to other hosts is fine in a two-host network.
		if !ok && !(first < 0 && direct == len(n.hosts)-1) {
			return fmt.Errorf("topo: host %d cannot reach the rest of the network", h)
		}
	}
	return nil
}

// hash mixes a flow id and a node id into the ECMP choice at that node
// (splitmix64 finalizer): deterministic, and independent across hops.
func hash(flow, node int) uint64 {
	x := uint64(flow)*0x9E3779B97F4A7C15 ^ uint64(node)*0xBF58476D1CE4E5B9
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return x
}

// Path returns the channels flow id takes from host src to host dst: a
// shortest path through switches, with one equal-cost next hop chosen at
// every node by hashing the flow id with the node (per-flow ECMP).
func (n *Network) Path(flow, src, dst int) ([]int, error) {
	return n.AppendPath(nil, flow, src, dst)
}

// AppendPath is Path appending to buf, for callers that route many flows.
func (n *Network) AppendPath(buf []int, flow, src, dst int) ([]int, error) {
	buf, _, err := n.AppendFixedPath(buf, flow, src, dst)
	return buf, err
}

// AppendFixedPath is AppendPath that also reports whether the path is
// fixed: the same for every flow from src to dst, because no node on the
// way has a choice of equal-cost next hops. Callers routing many flows
// can reuse a fixed path instead of routing each flow.
func (n *Network) AppendFixedPath(buf []int, flow, src, dst int) (path []int, fixed bool, err error) {
	if !n.IsHost(src) {
		return buf, false, fmt.Errorf("topo: flow %d: source %d is not a host of %s", flow, src, n.Name)
	}
	if !n.IsHost(dst) {
		return buf, false, fmt.Errorf("topo: flow %d: destination %d is not a host of %s", flow, dst, n.Name)
	}
	if src == dst {
		return buf, false, fmt.Errorf("topo: flow %d: source and destination are both host %d", flow, src)
	}
	r := n.r
	S := len(r.switches)
	var pick [64]int32
	cand := pick[:0]
	for _, c := range n.out[src] {
		if n.alive(c) && int(r.chDst[c]) == dst {
			cand = append(cand, c)
		}
	}
	if len(cand) > 0 {
		return append(buf, int(cand[hash(flow, src)%uint64(len(cand))])), len(cand) == 1, nil
	}
	// Target: the destination's attachment switch nearest to the source
	// (ties broken by the hash); then first hops toward it.
	best := int16(-1)
	var targets [8]int32
	tg := targets[:0]
	for _, c := range n.out[dst] {
		if !n.alive(c) {
			continue
		}
		t := r.chSw[c]
		if t < 0 {
			continue
		}
		d := n.hostDist(src, int(t))
		switch {
		case d < 0:
		case best < 0 || d < best:
			best, tg = d, append(tg[:0], t)
		case d == best:
			tg = append(tg, t)
		}
	}
	if best < 0 {
		return buf, false, fmt.Errorf("topo: flow %d: no route from host %d to host %d", flow, src, dst)
	}
	t := int(tg[hash(flow, dst)%uint64(len(tg))])
	for _, c := range n.out[src] {
		if !n.alive(c) {
			continue
		}
		if v := r.chSw[c]; v >= 0 && r.dist[t*S+int(v)] == best-1 {
			cand = append(cand, c)
		}
	}
	c := cand[hash(flow, src)%uint64(len(cand))]
	fixed = len(tg) == 1 && len(cand) == 1
	buf = append(buf, int(c))
	for u := r.chSw[c]; int(u) != t; {
		l := r.lists[u] + int32(r.nhRef[int(u)*S+t])
		nh := r.nh[r.nhOff[l]:r.nhOff[l+1]]
		c = nh[hash(flow, r.switches[u])%uint64(len(nh))]
		fixed = fixed && len(nh) == 1
		buf = append(buf, int(c))
		u = r.chSw[c]
	}
	for _, c := range n.out[r.switches[t]] {
		if n.alive(c) && int(r.chDst[c]) == dst {
			return append(buf, int(c)), fixed, nil
		}
	}
	panic("topo: target switch lost its link to the destination")
}

// hostDist is the number of switch-to-switch hops from host h's nearest
// attachment switch to switch t, or -1.
func (n *Network) hostDist(h, t int) int16 {
	r := n.r
	S := len(r.switches)
	best := int16(-1)
	for _, c := range n.out[h] {
		if !n.alive(c) {
			continue
		}
		if v := r.chSw[c]; v >= 0 {
			if d := r.dist[t*S+int(v)]; d >= 0 && (best < 0 || d < best) {
				best = d
			}
		}
	}
	if best < 0 {
		return -1
	}
	return best + 1
}

// MaxHostDelay returns the largest propagation delay, in nanoseconds, of
// a route between two hosts (each pair's route of flow 0; the equal-cost
// routes of the presets have equal delays): half the base RTT the HPCC
// ns-3 fork gives every flow. Pairs without a route count for nothing.
func (n *Network) MaxHostDelay() int64 {
	var most int64
	var path []int
	for _, a := range n.hosts {
		for _, b := range n.hosts {
			if a == b {
				continue
			}
			var err error
			if path, err = n.AppendPath(path[:0], 0, a, b); err != nil {
				continue
			}
			var d int64
			for _, c := range path {
				d += n.Channels[c].Delay
			}
			most = max(most, d)
		}
	}
	return most
}
