package dscale

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Methods of downscaling.
const (
	Delays   = "d" // DSCALEd: keep congested links, fixed delays for the rest
	Sampling = "s" // DSCALEs: sample groups, rescale capacities and delays
)

// Options choose a replica.
type Options struct {
	// Method is Delays (default) or Sampling.
	Method string `json:"method,omitempty"`
	// Alpha is DSCALEs's largest sampling factor, in (0, 1] (default 0.5).
	Alpha float64 `json:"alpha,omitempty"`
	// Seed drives the sampling of flows.
	Seed uint64 `json:"seed,omitempty"`
}

// Group is a flow group of the original network that the replica keeps.
type Group struct {
	Path []int // its channels in the original network
	// Kept are its channels from its first congested one to its last
	// whose links the replica keeps (a link stays when either direction
	// is congested), in path order.
	Kept  []int
	Flows int // its flows in the original workload
	// Sampled is how many of them the replica runs.
	Sampled int
	Bits    float64 // offered wire bits
	// UpNs and DownNs are DSCALEd's fixed delays on the group's access and
	// egress links: the propagation and (full-packet) transmission delays
	// of the removed channels before its first congested channel and
	// after its last, less the serialization those links repeat; removed
	// channels between congested ones add to UpNs (or, without an access
	// link, DownNs), as DSCALE adds fixed delays at the source. MidNs is
	// what was moved so.
	UpNs, MidNs, DownNs float64
	RTTNs               float64 // original round-trip propagation delay
	Alpha               float64 // DSCALEs sampling factor (1 for DSCALEd)
	Src, Dst            int     // the group's hosts in the replica
	Route               []int   // its channels in the replica
}

// Replica is a downscaled network with the traffic it runs.
type Replica struct {
	Method string
	Alpha  float64 // DSCALEs's alpha (0 for DSCALEd)
	Net    *topo.Network
	// Flows are the replica's flows, keeping their original ids, starts
	// and sizes, in start order; Orig and Group give, per replica flow, its
	// index in the original flows and its group.
	Flows  []workload.Flow
	Orig   []int
	Group  []int
	Groups []Group
	// GroupOf gives each original flow's kept group (whether sampled or
	// not), -1 for flows of dropped groups.
	GroupOf []int
	// Channel maps each kept original channel to its replica channel;
	// Factor is each replica channel's capacity over the original's (1
	// for DSCALEd).
	Channel map[int]int
	Factor  map[int]float64
	// Config is the network model the replica runs with, and KBytes the
	// ECN thresholds of the kept ports (their original thresholds: queue
	// sizes are what a replica preserves).
	Config       netcfg.Config
	KBytes       map[int]int64
	OrigFlows    int // flows in the original workload
	OrigLinks    int // links of the original network
	BuildSeconds float64
}

// fullPacket is the wire size of a full data packet.
func fullPacket(cfg netcfg.Config) float64 { return float64(cfg.PayloadBytes + cfg.HeaderBytes) }

// hopNs is a removed channel's share of a packet's delay: propagation plus
// one full packet's serialization.
func hopNs(ch topo.Channel, cfg netcfg.Config) float64 {
	return float64(ch.Delay) + fullPacket(cfg)*8e9/float64(ch.Bandwidth)
}

// Build makes the replica of flows on net that keeps the congested
// channels. Both methods drop the groups that cross no congested channel,
// keep every link one of whose channels is congested, give each kept
// group a source host attached to its first congested channel and a
// destination host after its last (the original hosts where those
// channels touch them), and join kept channels that were not adjacent by
// shared connector links (no delay, 100 times the fastest rate). Routes
// are pinned (Paths). DSCALEd gives the access links the delays of the
// removed channels (Group.UpNs, DownNs), so that every group keeps its
// propagation and transmission delays, at the original first and last
// hops' rates. DSCALEs samples group g with probability alpha_g, gives
// kept link l capacity Factor_l C_l and every kept link one delay
// (Solve), and its access links no delay, at the original rates scaled
// like the link they feed. A replica whose pieces are far apart is
// bridged into one network by links no route uses.
func Build(net *topo.Network, flows []workload.Flow, cfg netcfg.Config, congested []int, o Options) (*Replica, error) {
	t0 := time.Now()
	if o.Method == "" {
		o.Method = Delays
	}
	if o.Method != Delays && o.Method != Sampling {
		return nil, fmt.Errorf("dscale: unknown method %q (d or s)", o.Method)
	}
	if o.Method == Sampling && o.Alpha == 0 {
		o.Alpha = 0.5
	}
	if err := workload.Check(net, flows); err != nil {
		return nil, fmt.Errorf("dscale: %w", err)
	}
	isCong := make([]bool, len(net.Channels))
	keptLink := make([]bool, len(net.Links))
	for _, c := range congested {
		if c < 0 || c >= len(net.Channels) {
			return nil, fmt.Errorf("dscale: congested channel %d does not exist (%d channels)", c, len(net.Channels))
		}
		isCong[c], keptLink[c>>1] = true, true
	}
	all, err := groupPaths(net, flows, cfg)
	if err != nil {
		return nil, err
	}
	r := &Replica{Method: o.Method, Channel: map[int]int{}, Factor: map[int]float64{}, KBytes: map[int]int64{},
		Config: cfg, OrigFlows: len(flows), OrigLinks: len(net.Links)}
	var kept []group
	for _, g := range all {
		first, last := -1, -1
		for i, c := range g.path {
			if isCong[c] {
				last = i
				if first < 0 {
					first = i
				}
			}
		}
		if first < 0 {
			continue
		}
		var k []int
		for _, c := range g.path[first : last+1] {
			if keptLink[c>>1] {
				k = append(k, c)
			}
		}
		kept = append(kept, g)
		G := Group{Path: g.path, Kept: k, Flows: len(g.flows), Bits: g.bits, Alpha: 1}
		for _, c := range g.path {
			G.RTTNs += 2 * float64(net.Channels[c].Delay)
		}
		r.Groups = append(r.Groups, G)
	}
	if len(r.Groups) == 0 {
		return nil, fmt.Errorf("dscale: no flow crosses a congested channel (%d congested)", len(congested))
	}
	if o.Method == Sampling {
		r.Alpha = o.Alpha
		demands := make([]Demand, len(r.Groups))
		for i, g := range r.Groups {
			links := make([]int, len(g.Kept))
			for k, c := range g.Kept {
				links[k] = c >> 1
			}
			demands[i] = Demand{RTTNs: g.RTTNs, Kept: links, Bits: g.Bits}
		}
		sol, err := Solve(demands, o.Alpha)
		if err != nil {
			return nil, err
		}
		minAlpha := 1.0
		for i := range r.Groups {
			r.Groups[i].Alpha = sol.Alpha[i]
			minAlpha = min(minAlpha, sol.Alpha[i])
		}
		// Timeouts stretch with the slowest clock.
		r.Config.DCTCP.MinRTONanos = int64(math.Ceil(float64(cfg.DCTCP.MinRTONanos) / minAlpha))
		if err := r.assemble(net, cfg, sol.Factor, sol.DelayNs); err != nil {
			return nil, err
		}
	} else if err := r.assemble(net, cfg, nil, 0); err != nil {
		return nil, err
	}
	r.sample(flows, kept, o.Seed)
	r.BuildSeconds = time.Since(t0).Seconds()
	return r, nil
}

// assemble builds the replica network and the groups' routes. factor and
// delay are DSCALEs's link factors and common delay (nil for DSCALEd).
func (r *Replica) assemble(net *topo.Network, cfg netcfg.Config, factor map[int]float64, delayNs float64) error {
	var nodes []topo.Node
	var links []topo.Link
	id := map[int]int{} // original node -> replica node
	node := func(orig int) int {
		if n, ok := id[orig]; ok {
			return n
		}
		n := len(nodes)
		id[orig] = n
		nd := net.Nodes[orig]
		nodes = append(nodes, topo.Node{ID: n, Kind: nd.Kind, Rack: -1, Pod: -1})
		return n
	}
	virtual := func() int {
		n := len(nodes)
		nodes = append(nodes, topo.Node{ID: n, Kind: topo.Host, Rack: -1, Pod: -1})
		return n
	}
	// Kept links first: replica link i carries the i-th kept link.
	linkOf := map[int]int{} // original link -> replica link
	for _, g := range r.Groups {
		for _, c := range g.Kept {
			l := c >> 1
			if _, ok := linkOf[l]; ok {
				continue
			}
			ol := net.Links[l]
			nl := topo.Link{A: node(ol.A), B: node(ol.B), Bandwidth: ol.Bandwidth, Delay: ol.Delay}
			if factor != nil {
				nl.Bandwidth = max(1, int64(math.Round(float64(ol.Bandwidth)*factor[l])))
				nl.Delay = int64(math.Round(delayNs))
			}
			linkOf[l] = len(links)
			links = append(links, nl)
		}
	}
	fastest := int64(0)
	for _, ch := range net.Channels {
		fastest = max(fastest, ch.Bandwidth)
	}
	connBw := 100 * fastest // connectors are transparent
	type end struct {
		host, at int
		bw       int64
		ns       int64
	}
	ends := map[end]int{}     // virtual host by what it stands for
	conns := map[[2]int]int{} // connector link by its replica nodes
	attach := func(e end) int {
		if h, ok := ends[e]; ok {
			return h
		}
		h := virtual()
		ends[e] = h
		links = append(links, topo.Link{A: h, B: e.at, Bandwidth: e.bw, Delay: e.ns})
		return h
	}
	type hop struct{ a, b int } // replica channel by its replica nodes
	want := make([][]hop, len(r.Groups))
	for gi := range r.Groups {
		g := &r.Groups[gi]
		p, k := g.Path, g.Kept
		first, last := slices.Index(p, k[0]), slices.Index(p, k[len(k)-1])
		// DSCALEs's access links run at the rate of the link they feed (or
		// leave), scaled like it, so that a source's bursts meet the link
		// as they did.
		scale := func(bw int64, c int) int64 { return max(1, int64(math.Round(float64(bw)*factor[c>>1]))) }
		// DSCALEd's fixed delays: the removed channels before, between and
		// after the kept ones, less the serialization the access links
		// repeat (they run at the first and last hops' rates).
		var route []hop
		for i := 0; i < first; i++ {
			g.UpNs += hopNs(net.Channels[p[i]], cfg)
		}
		for i := first + 1; i < last; i++ {
			if slices.Index(k, p[i]) < 0 {
				g.MidNs += hopNs(net.Channels[p[i]], cfg)
			}
		}
		for i := last + 1; i < len(p); i++ {
			g.DownNs += hopNs(net.Channels[p[i]], cfg)
		}
		srcBw, dstBw := net.Channels[p[0]].Bandwidth, net.Channels[p[len(p)-1]].Bandwidth
		if first > 0 {
			g.UpNs -= fullPacket(cfg) * 8e9 / float64(srcBw)
		}
		if last < len(p)-1 {
			g.DownNs -= fullPacket(cfg) * 8e9 / float64(dstBw)
		}
		// Connectors are shared and carry no delay: the middle segments'
		// delay goes to the group's own access link (DSCALE adds fixed
		// delays at the source), or its egress link.
		switch {
		case g.MidNs == 0:
		case first > 0:
			g.UpNs, g.MidNs = g.UpNs+g.MidNs, 0
		case last < len(p)-1:
			g.DownNs, g.MidNs = g.DownNs+g.MidNs, 0
		default:
			return fmt.Errorf("dscale: a group from host %d to host %d has congested first and last hops and removed links between: no access link can carry their delay", net.Channels[p[0]].Src, net.Channels[p[len(p)-1]].Dst)
		}
		if factor != nil {
			g.UpNs, g.DownNs = 0, 0
		}
		if first == 0 {
			g.Src = node(net.Channels[p[0]].Src)
		} else {
			e := end{host: net.Channels[p[0]].Src, at: node(net.Channels[k[0]].Src), bw: srcBw, ns: int64(math.Round(g.UpNs))}
			if factor != nil {
				e.bw = scale(srcBw, k[0])
			}
			g.Src = attach(e)
			route = append(route, hop{g.Src, e.at})
		}
		for i, c := range k {
			route = append(route, hop{node(net.Channels[c].Src), node(net.Channels[c].Dst)})
			if i+1 == len(k) || slices.Index(p, k[i+1]) == slices.Index(p, c)+1 {
				continue
			}
			u, v := node(net.Channels[c].Dst), node(net.Channels[k[i+1]].Src)
			key := [2]int{min(u, v), max(u, v)}
			if _, ok := conns[key]; !ok {
				conns[key] = len(links)
				links = append(links, topo.Link{A: u, B: v, Bandwidth: connBw})
			}
			route = append(route, hop{u, v})
		}
		if last == len(p)-1 {
			g.Dst = node(net.Channels[p[last]].Dst)
		} else {
			e := end{host: -1 - net.Channels[p[len(p)-1]].Dst, at: node(net.Channels[k[len(k)-1]].Dst), bw: dstBw, ns: int64(math.Round(g.DownNs))}
			if factor != nil {
				e.bw = scale(dstBw, k[len(k)-1])
			}
			g.Dst = attach(e) // host -1-h: destinations and sources never share a virtual host
			route = append(route, hop{e.at, g.Dst})
		}
		want[gi] = route
	}
	links = bridge(nodes, links, connBw)
	rn, err := topo.New("dscale"+r.Method+"-"+net.Name, nodes, links)
	if err != nil {
		return fmt.Errorf("dscale: replica topology: %w", err)
	}
	r.Net = rn
	chanOf := map[hop]int{}
	for _, ch := range rn.Channels {
		chanOf[hop{ch.Src, ch.Dst}] = ch.ID
	}
	for gi := range r.Groups {
		g := &r.Groups[gi]
		for _, h := range want[gi] {
			g.Route = append(g.Route, chanOf[h])
		}
	}
	for l, rl := range linkOf {
		for d := 0; d < 2; d++ {
			oc, rc := 2*l+d, 2*rl
			if net.Channels[oc].Src != net.Links[l].A {
				rc++
			}
			r.Channel[oc] = rc
			r.KBytes[rc] = cfg.KBytesFor(net.Channels[oc].Bandwidth)
			r.Factor[rc] = float64(rn.Channels[rc].Bandwidth) / float64(net.Channels[oc].Bandwidth)
		}
	}
	return nil
}

// sample picks the replica's flows: every flow of a kept group for
// DSCALEd, each with probability alpha_g for DSCALEs.
func (r *Replica) sample(flows []workload.Flow, kept []group, seed uint64) {
	gOf := make([]int, len(flows))
	for i := range gOf {
		gOf[i] = -1
	}
	for gi, g := range kept {
		for _, i := range g.flows {
			gOf[i] = gi
		}
	}
	r.GroupOf = gOf
	rng := rand.New(rand.NewPCG(seed, 0x05ca1e))
	for i, f := range flows {
		gi := gOf[i]
		if gi < 0 {
			continue
		}
		g := &r.Groups[gi]
		if g.Alpha < 1 && rng.Float64() >= g.Alpha {
			continue
		}
		g.Sampled++
		r.Flows = append(r.Flows, workload.Flow{ID: f.ID, Src: g.Src, Dst: g.Dst, Size: f.Size, Start: f.Start, Class: f.Class})
		r.Orig = append(r.Orig, i)
		r.Group = append(r.Group, gi)
	}
}

// Paths are the replica flows' routes, for packetsim.Options.Paths: the
// replica's links join pieces of the original, and routing over them
// could take other paths than the groups' own.
func (r *Replica) Paths() [][]int {
	p := make([][]int, len(r.Flows))
	for i := range r.Flows {
		p[i] = r.Groups[r.Group[i]].Route
	}
	return p
}

// bridge joins the pieces of a replica that share no link (congested links
// far apart) with links of bandwidth bw between their first switches: the
// network must be connected, and pinned routes never use these links.
func bridge(nodes []topo.Node, links []topo.Link, bw int64) []topo.Link {
	parent := make([]int, len(nodes))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(x int) int {
		if parent[x] != x {
			parent[x] = find(parent[x])
		}
		return parent[x]
	}
	for _, l := range links {
		parent[find(l.A)] = find(l.B)
	}
	hub := -1 // first switch of the first piece
	joined := map[int]bool{}
	for _, n := range nodes {
		if n.Kind != topo.Switch {
			continue
		}
		root := find(n.ID)
		switch {
		case hub < 0:
			hub = n.ID
			joined[root] = true
		case !joined[root]:
			joined[root] = true
			links = append(links, topo.Link{A: hub, B: n.ID, Bandwidth: bw})
		}
	}
	return links
}
