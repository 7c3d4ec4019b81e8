package pfs

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Chunk is one independent piece of a decomposed run: the flows of one
// pair group starting in one window of start time, the boundary flows
// carried into it, and the sub-topology they use with its (possibly
// background-reduced) capacities. It is plain data, so that it runs alike
// in a goroutine, another process or a Slurm array element.
type Chunk struct {
	Index  int `json:"index"`
	Window int `json:"window"` // temporal index
	Group  int `json:"group"`  // spatial index
	// From and To bound the time whose received bytes the chunk reports,
	// [From, To); To 0 means open-ended. Windows of one group tile time.
	From  int64 `json:"from_ns"`
	To    int64 `json:"to_ns"`
	BinNs int64 `json:"bin_ns"`
	// Channels maps the chunk's links to channel ids of the full network;
	// Hosts gives, per link, the host it leads into (-1 for a switch).
	Channels []int   `json:"channels"`
	Hosts    []int   `json:"hosts"`
	CapBps   []int64 `json:"cap_bps"` // per link, after any background reduction
	// Flows are the chunk's own flows, each reported; Injected the
	// boundary flows, which only load it.
	Flows    []ChunkFlow `json:"flows"`
	Injected []ChunkFlow `json:"injected"`
}

// ChunkFlow is a flow as a chunk simulates it.
type ChunkFlow struct {
	Pos    int           `json:"pos"` // index in the run's flows
	Flow   workload.Flow `json:"flow"`
	Route  []int         `json:"route"`    // chunk links
	Start  int64         `json:"start_ns"` // the flow's start, or the window's for an injected flow
	Bytes  int64         `json:"bytes"`    // wire bytes to send from Start
	CapBps int64         `json:"cap_bps"`  // host rate
	Ideal  int64         `json:"ideal_ns"` // ideal FCT on the full network
	MinBps int64         `json:"min_bps"`  // smallest nominal bandwidth on the path
}

// Plan is the pre-processing of a decomposed run.
type Plan struct {
	Options Options
	Chunks  []Chunk
	// Edges are the window boundaries T_0 < ... < T_n over the span of
	// starts; window w holds starts in [T_w, T_w+1), the last one also
	// T_n.
	Edges []int64
	// Groups is the number of pair groups used; Group gives each flow's.
	Groups int
	Group  []int
	// Window gives each flow's window, EstimatedEnd the time (ns) the
	// pre-processing expects it to finish sending.
	Window       []int
	EstimatedEnd []float64
	Hosts        []int // hosts the received-bytes series covers
	BinNs        int64
	PrepSeconds  float64
}

// binWidth is opts' bin width, or the span of starts / 200 rounded up to
// a microsecond.
func binWidth(flows []workload.Flow, bin int64) int64 {
	if bin > 0 || len(flows) == 0 {
		return max(bin, 1000)
	}
	span := flows[len(flows)-1].Start - flows[0].Start
	return max(1000, (span/200+999)/1000*1000)
}

// sinkChannels lists the channels among chans (every channel of net when
// chans is nil) that lead into a host, as positions in chans (channel ids
// when nil), with those hosts.
func sinkChannels(net *topo.Network, chans []int) (links, hosts []int) {
	n := len(chans)
	if chans == nil {
		n = len(net.Channels)
	}
	for i := 0; i < n; i++ {
		c := i
		if chans != nil {
			c = chans[i]
		}
		if d := net.Channels[c].Dst; net.IsHost(d) {
			links, hosts = append(links, i), append(hosts, d)
		}
	}
	return links, hosts
}

// routed is a flow after routing: its path (in a shared buffer), wire
// bits, rate cap, smallest bandwidth and ideal FCT.
type routed struct {
	path  []int32
	bits  float64
	cap   int64
	minBw int64
	ideal int64
}

// NewPlan pre-processes flows for the decomposition opts asks for: it
// routes them, estimates their activity, assigns them to chunks, picks the
// boundary flows of every window and the background reductions of every
// spatial chunk, and builds the chunks. Flows must pass workload.Check.
func NewPlan(net *topo.Network, flows []workload.Flow, cfg netcfg.Config, opts Options) (*Plan, error) {
	t0 := time.Now()
	if net == nil {
		return nil, fmt.Errorf("pfs: nil network")
	}
	if err := opts.check(); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("pfs: %w", err)
	}
	if len(flows) == 0 {
		return nil, fmt.Errorf("pfs: no flows")
	}
	if err := workload.Check(net, flows); err != nil {
		return nil, fmt.Errorf("pfs: %w", err)
	}
	o := opts.withDefaults()
	lo, hi := flows[0].Start, flows[len(flows)-1].Start
	span := hi - lo
	background := o.Spatial > 1 && o.Background != BackgroundNone
	if span == 0 && (o.Temporal > 1 || background) {
		return nil, fmt.Errorf("pfs: every flow starts at %d ns; temporal chunks and background loads need a span of start times", lo)
	}
	p := &Plan{Options: o, BinNs: binWidth(flows, o.BinNs)}
	_, p.Hosts = sinkChannels(net, nil)

	// Route, and sum the offered wire bits per channel.
	rs := make([]routed, len(flows))
	chBits := make([]float64, len(net.Channels))
	var buf []int
	paths := make([]int32, 0, 4*len(flows))
	for i, f := range flows {
		var err error
		if buf, err = net.AppendPath(buf[:0], f.ID, f.Src, f.Dst); err != nil {
			return nil, fmt.Errorf("pfs: %w", err)
		}
		if cap(paths)-len(paths) < len(buf) {
			paths = make([]int32, 0, max(4*(len(flows)-i), len(buf)))
		}
		r := routed{bits: float64(cfg.WireBytes(f.Size)) * 8, cap: o.HostRateBps}
		r.minBw = net.Channels[buf[0]].Bandwidth
		for _, c := range buf {
			paths = append(paths, int32(c))
			chBits[c] += r.bits
			r.minBw = min(r.minBw, net.Channels[c].Bandwidth)
		}
		r.path = paths[len(paths)-len(buf):]
		if r.cap == 0 {
			r.cap = net.Channels[buf[0]].Bandwidth
		}
		r.ideal = metrics.IdealFCT(net, buf, f.Size, cfg)
		rs[i] = r
	}

	// Estimated activity: processor sharing at each channel's leftover
	// capacity C(1 - rho), no less than MinShare of it (per channel once,
	// not per hop).
	leftover := make([]float64, len(net.Channels))
	for c, ch := range net.Channels {
		bw := float64(ch.Bandwidth)
		rho := 0.0
		if span > 0 {
			rho = chBits[c] / (bw * float64(span) / 1e9)
		}
		leftover[c] = bw * max(1-rho, o.MinShare)
	}
	p.EstimatedEnd = make([]float64, len(flows))
	for i, f := range flows {
		rate := float64(rs[i].cap)
		for _, c := range rs[i].path {
			rate = min(rate, leftover[c])
		}
		p.EstimatedEnd[i] = float64(f.Start) + rs[i].bits/rate*1e9
	}

	// Windows of start time.
	nw := o.Temporal
	p.Edges = make([]int64, nw+1)
	for w := range p.Edges {
		p.Edges[w] = lo + int64(float64(span)*float64(w)/float64(nw))
	}
	p.Edges[nw] = hi
	p.Window = make([]int, len(flows))
	for i, f := range flows {
		w := sort.Search(nw, func(w int) bool { return p.Edges[w+1] > f.Start })
		p.Window[i] = min(w, nw-1)
	}

	p.Group = groupPairs(flows, rs, o.Spatial)
	for _, g := range p.Group {
		p.Groups = max(p.Groups, g+1)
	}

	// Chunks: own flows, then boundary flows of later windows.
	ng := p.Groups
	p.Chunks = make([]Chunk, nw*ng)
	for w := 0; w < nw; w++ {
		for g := 0; g < ng; g++ {
			c := &p.Chunks[w*ng+g]
			c.Index, c.Window, c.Group, c.BinNs = w*ng+g, w, g, p.BinNs
			if w > 0 {
				c.From = p.Edges[w]
			}
			if w < nw-1 {
				c.To = p.Edges[w+1]
			}
		}
	}
	own, inj := make([]int, len(p.Chunks)), make([]int, len(p.Chunks))
	for i := range flows {
		own[p.Window[i]*ng+p.Group[i]]++
		for w := p.Window[i] + 1; w < nw && float64(p.Edges[w]) < p.EstimatedEnd[i]; w++ {
			inj[w*ng+p.Group[i]]++
		}
	}
	for ci := range p.Chunks {
		p.Chunks[ci].Flows = make([]ChunkFlow, 0, own[ci])
		p.Chunks[ci].Injected = make([]ChunkFlow, 0, inj[ci])
	}
	for i, f := range flows {
		g := p.Group[i]
		own := ChunkFlow{Pos: i, Flow: f, Start: f.Start, Bytes: int64(rs[i].bits / 8), CapBps: rs[i].cap, Ideal: rs[i].ideal, MinBps: rs[i].minBw}
		c := &p.Chunks[p.Window[i]*ng+g]
		c.Flows = append(c.Flows, own)
		end := p.EstimatedEnd[i]
		for w := p.Window[i] + 1; w < nw && float64(p.Edges[w]) < end; w++ {
			inj := own
			inj.Start = p.Edges[w]
			frac := (end - float64(inj.Start)) / (end - float64(f.Start))
			inj.Bytes = max(1, int64(math.Ceil(float64(own.Bytes)*frac)))
			p.Chunks[w*ng+g].Injected = append(p.Chunks[w*ng+g].Injected, inj)
		}
	}

	var bg *loads
	switch {
	case !background:
	case o.Background == BackgroundWindowed:
		bg = &loads{window: make([][]float64, nw)}
		for w := range bg.window {
			bg.window[w] = make([]float64, len(net.Channels))
		}
		for i, f := range flows {
			p.spread(float64(f.Start), p.EstimatedEnd[i], rs[i].bits, func(w int, bits float64) {
				for _, c := range rs[i].path {
					bg.window[w][c] += bits
				}
			})
		}
	default:
		bg = &loads{span: float64(span), total: chBits, group: make([]map[int32]float64, ng)}
		for g := range bg.group {
			bg.group[g] = map[int32]float64{}
		}
		for i := range flows {
			for _, c := range rs[i].path {
				bg.group[p.Group[i]][c] += rs[i].bits
			}
		}
	}
	local := make([]int32, len(net.Channels)) // chunk link + 1 of each channel, 0 if none yet
	for ci := range p.Chunks {
		p.build(net, &p.Chunks[ci], rs, bg, local)
	}
	p.PrepSeconds = time.Since(t0).Seconds()
	return p, nil
}

// spread splits bits sent uniformly over [start, end) among the windows
// it overlaps, calling add(window, bits in it); bits after the last edge
// count toward the last window.
func (p *Plan) spread(start, end, bits float64, add func(w int, bits float64)) {
	nw := len(p.Edges) - 1
	if !(end > start) {
		return
	}
	first := min(nw-1, sort.Search(nw, func(w int) bool { return float64(p.Edges[w+1]) > start }))
	for w := first; w < nw; w++ {
		a, b := max(start, float64(p.Edges[w])), min(end, float64(p.Edges[w+1]))
		if w == nw-1 {
			b = end
		}
		if b > a {
			add(w, bits*(b-a)/(end-start))
		}
		if end <= float64(p.Edges[w+1]) {
			return
		}
	}
}

// loads are the offered bits a background reduction works from: per
// window and channel (windowed), or over the span of starts per channel
// and per group and channel (offered).
type loads struct {
	window [][]float64
	span   float64
	total  []float64
	group  []map[int32]float64
}

// build fills a chunk's sub-topology, routes and capacities, reduced by
// the background loads bg when not nil. local is zeroed scratch of one
// entry per channel, left zeroed.
func (p *Plan) build(net *topo.Network, c *Chunk, rs []routed, bg *loads, local []int32) {
	hops := 0
	for _, set := range [][]ChunkFlow{c.Flows, c.Injected} {
		for _, cf := range set {
			hops += len(rs[cf.Pos].path)
		}
	}
	routes := make([]int, 0, hops)
	route := func(cf *ChunkFlow) {
		for _, ch := range rs[cf.Pos].path {
			if local[ch] == 0 {
				c.Channels = append(c.Channels, int(ch))
				local[ch] = int32(len(c.Channels))
			}
			routes = append(routes, int(local[ch]-1))
		}
		cf.Route = routes[len(routes)-len(rs[cf.Pos].path) : len(routes) : len(routes)]
	}
	for k := range c.Flows {
		route(&c.Flows[k])
	}
	for k := range c.Injected {
		route(&c.Injected[k])
	}
	for _, ch := range c.Channels {
		local[ch] = 0
	}
	c.Hosts = make([]int, len(c.Channels))
	c.CapBps = make([]int64, len(c.Channels))
	for l, ch := range c.Channels {
		c.Hosts[l] = -1
		if d := net.Channels[ch].Dst; net.IsHost(d) {
			c.Hosts[l] = d
		}
		c.CapBps[l] = net.Channels[ch].Bandwidth
	}
	if bg == nil {
		return
	}
	// Background reduction: the other groups' share of the offered bits
	// on each shared channel, over the span (offered) or in the chunk's
	// window as estimated (windowed).
	own, all := make([]float64, len(c.Channels)), make([]float64, len(c.Channels))
	length := float64(p.Edges[c.Window+1] - p.Edges[c.Window])
	if bg.window != nil {
		for _, set := range [][]ChunkFlow{c.Flows, c.Injected} {
			for _, cf := range set {
				p.spread(float64(cf.Start), p.EstimatedEnd[cf.Pos], float64(cf.Bytes)*8, func(w int, bits float64) {
					if w == c.Window {
						for _, l := range cf.Route {
							own[l] += bits
						}
					}
				})
			}
		}
		for l, ch := range c.Channels {
			all[l] = bg.window[c.Window][ch]
		}
	} else {
		length = bg.span
		for l, ch := range c.Channels {
			own[l], all[l] = bg.group[c.Group][int32(ch)], bg.total[ch]
		}
	}
	for l, ch := range c.Channels {
		bw := float64(net.Channels[ch].Bandwidth)
		capBits := bw * length / 1e9
		rhoOwn := own[l] / capBits
		rhoOther := max(0, all[l]-own[l]) / capBits
		share := 1 - rhoOther
		if rho := rhoOwn + rhoOther; rho >= 1 {
			share = rhoOwn / rho
		}
		c.CapBps[l] = max(1, int64(bw*max(share, p.Options.MinShare)))
	}
}

// groupPairs assigns source-destination pairs to at most n groups,
// balancing offered bytes: pairs in decreasing order of bytes (first
// appearance breaking ties) go to the group with the fewest bytes so far
// (the lowest index breaking ties). It returns each flow's group.
func groupPairs(flows []workload.Flow, rs []routed, n int) []int {
	type pair struct{ src, dst int }
	idx := map[pair]int{}
	var bytes []float64
	of := make([]int, len(flows))
	for i, f := range flows {
		k := pair{f.Src, f.Dst}
		j, ok := idx[k]
		if !ok {
			j = len(bytes)
			idx[k] = j
			bytes = append(bytes, 0)
		}
		bytes[j] += rs[i].bits
		of[i] = j
	}
	n = min(n, len(bytes))
	order := make([]int, len(bytes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return bytes[order[a]] > bytes[order[b]] })
	load := make([]float64, n)
	group := make([]int, len(bytes))
	for _, j := range order {
		g := 0
		for k := 1; k < n; k++ {
			if load[k] < load[g] {
				g = k
			}
		}
		group[j] = g
		load[g] += bytes[j]
	}
	for i := range of {
		of[i] = group[of[i]]
	}
	return of
}

// Order lists the chunk indices largest first (by flows and bytes
// carried), the order that shortens a worker pool's tail.
func (p *Plan) Order() []int {
	work := make([]float64, len(p.Chunks))
	for i, c := range p.Chunks {
		for _, set := range [][]ChunkFlow{c.Flows, c.Injected} {
			for _, f := range set {
				work[i] += 1 + float64(f.Bytes)/1e5
			}
		}
	}
	order := make([]int, len(p.Chunks))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return work[order[a]] > work[order[b]] })
	return order
}
