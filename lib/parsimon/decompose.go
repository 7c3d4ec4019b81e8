package parsimon

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/tailscope/tailscope/lib/internal/pool"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// DefaultInflation is how much faster than the downstream path's slowest
// channel the inflated links of a link-level topology run (REFERENCE.md).
const DefaultInflation = 10

// Decomposition assigns every flow to the directed channels of its ECMP
// path (Parsimon §3.1) and knows the ACK load each channel carries, from
// which it builds the link-level simulation of any channel.
type Decomposition struct {
	Net   *topo.Network
	Flows []workload.Flow
	Cfg   netcfg.Config
	// AckBps is, per channel, the rate of the ACKs that cross it: the ACKs
	// of the flows on the reverse channel, ceil(size/payload) ACKs of
	// AckBytes per flow, spread over the span of those flows' starts.
	AckBps []float64

	pathOff []int32 // flow i's path is paths[pathOff[i]:pathOff[i+1]]
	paths   []int32
	// The flows crossing channel c are onFlows[onOff[c]:onOff[c+1]], in
	// flow order: one array laid out by a counting sort, not a growing
	// slice per channel.
	onOff   []int
	onFlows []int32
	packets []int64 // data packets per channel, summed over its flows
	bytes   []int64 // payload bytes per channel, summed over its flows
}

// Decompose routes flows over net, on GOMAXPROCS goroutines. Flows must
// pass workload.Check. It stops with an error wrapping ctx.Err() once ctx
// is done: routing millions of flows takes seconds.
func Decompose(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config) (*Decomposition, error) {
	return decompose(ctx, net, flows, cfg, 0)
}

// decompose is Decompose routing on workers goroutines (<= 0:
// GOMAXPROCS); the decomposition does not depend on them.
func decompose(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, workers int) (*Decomposition, error) {
	if net == nil {
		return nil, fmt.Errorf("parsimon: nil network")
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("parsimon: %w", err)
	}
	if err := linkLevel(cfg); err != nil {
		return nil, err
	}
	if err := workload.Check(net, flows); err != nil {
		return nil, fmt.Errorf("parsimon: %w", err)
	}
	if len(flows) >= math.MaxInt32 {
		return nil, fmt.Errorf("parsimon: %d flows; at most %d are supported", len(flows), math.MaxInt32-1)
	}
	d := &Decomposition{
		Net: net, Flows: flows, Cfg: cfg,
		pathOff: make([]int32, len(flows)+1),
		onOff:   make([]int, len(net.Channels)+1),
		packets: make([]int64, len(net.Channels)),
		bytes:   make([]int64, len(net.Channels)),
	}
	// Routing is most of the cost (seconds at millions of flows): chunks
	// of flows are routed on the workers and merged in flow order as
	// they finish, so the paths are held once.
	const chunk = 1 << 16
	parts := make([]routed, (len(flows)+chunk-1)/chunk)
	collect := func(k int) (bool, error) {
		r, base := parts[k], int32(len(d.paths))
		parts[k] = routed{}
		prev := int32(0)
		for j, end := range r.ends {
			i := k*chunk + j
			f := flows[i]
			p := cfg.Packets(f.Size)
			for _, c := range r.paths[prev:end] {
				d.onOff[c+1]++
				d.packets[c] += p
				d.bytes[c] += f.Size
			}
			d.pathOff[i+1] = base + end
			prev = end
		}
		d.paths = append(d.paths, r.paths...)
		return false, nil
	}
	err := pool.Run(ctx, len(parts), pool.Options{Workers: workers, InOrder: collect}, func(ctx context.Context, k int) error {
		var err error
		parts[k], err = route(ctx, net, flows[k*chunk:min(len(flows), (k+1)*chunk)])
		return err
	})
	if err != nil {
		if e := interrupted(ctx); e != nil {
			return nil, e
		}
		return nil, err
	}
	for c := range net.Channels {
		d.onOff[c+1] += d.onOff[c]
	}
	d.onFlows = make([]int32, len(d.paths))
	next := slices.Clone(d.onOff[:len(net.Channels)])
	for i := range flows {
		for _, c := range d.Path(i) {
			d.onFlows[next[c]] = int32(i)
			next[c]++
		}
	}
	d.AckBps = make([]float64, len(net.Channels))
	for c := range net.Channels {
		rev := d.On(net.Reverse(c))
		if len(rev) < 2 {
			continue // no span of starts, no rate
		}
		span := flows[rev[len(rev)-1]].Start - flows[rev[0]].Start
		if span <= 0 {
			continue
		}
		acks := d.packets[net.Reverse(c)] // one ACK per data packet
		d.AckBps[c] = float64(acks*cfg.AckBytes*8) * 1e9 / float64(span)
	}
	return d, nil
}

// routed is a chunk of flows routed: flow j's path is paths[ends[j-1]:ends[j]].
type routed struct {
	paths []int32
	ends  []int32
}

// route routes flows over net, looking at ctx every ctxEvery flows.
func route(ctx context.Context, net *topo.Network, flows []workload.Flow) (routed, error) {
	r := routed{paths: make([]int32, 0, 4*len(flows)), ends: make([]int32, len(flows))}
	var buf []int
	for j, f := range flows {
		if j%ctxEvery == 0 {
			if err := interrupted(ctx); err != nil {
				return routed{}, err
			}
		}
		var err error
		if buf, err = net.AppendPath(buf[:0], f.ID, f.Src, f.Dst); err != nil {
			return routed{}, fmt.Errorf("parsimon: %w", err)
		}
		for _, c := range buf {
			r.paths = append(r.paths, int32(c))
		}
		r.ends[j] = int32(len(r.paths))
	}
	return r, nil
}

// loads is metrics.LinkLoads of the decomposed flows from the bytes
// Decompose counted, without routing them again (2% of a run at millions
// of flows, perf).
func (d *Decomposition) loads() (metrics.Loads, error) {
	if len(d.Flows) < 2 {
		return metrics.LinkLoads(d.Net, d.Flows) // its error
	}
	// Flows are in start order (workload.Check).
	return metrics.ChannelLoads(d.Net, d.bytes, d.Flows[len(d.Flows)-1].Start-d.Flows[0].Start)
}

// linkLevel refuses what no link-level simulation can model, whatever
// its backend: a link-level topology holds one port of each switch, so
// the other ports' share of a shared buffer and their pauses are not
// there to simulate.
func linkLevel(cfg netcfg.Config) error {
	if cfg.SharedBuffer() {
		return fmt.Errorf("parsimon: a shared switch buffer and PFC are not modelled: each link-level simulation sees one port of a switch (use buffer_bytes, a buffer per port, or packetsim)")
	}
	return nil
}

// Path returns the channels of flow index i's path (shared: do not modify).
func (d *Decomposition) Path(i int) []int32 { return d.paths[d.pathOff[i]:d.pathOff[i+1]] }

// On returns the indices (into Flows) of the flows crossing channel c, in
// flow order (shared: do not modify).
func (d *Decomposition) On(c int) []int32 {
	lo, hi := d.onOff[c], d.onOff[c+1]
	return d.onFlows[lo:hi:hi]
}

// Available is channel c's bandwidth left to data after the ACK correction
// (Parsimon §3.2), never below half the nominal bandwidth: a rate estimated
// from a few flows starting close together must not starve the link.
func (d *Decomposition) Available(c int) int64 {
	bw := d.Net.Channels[c].Bandwidth
	return max(bw-int64(d.AckBps[c]+0.5), bw/2)
}

// Kind returns the link-level topology shape of channel c.
func (d *Decomposition) Kind(c int) Kind {
	ch := d.Net.Channels[c]
	a, b := d.Net.IsHost(ch.Src), d.Net.IsHost(ch.Dst)
	switch {
	case a && b:
		return Direct
	case a:
		return Uplink
	case b:
		return Downlink
	}
	return Core
}

// end is a source or destination host of a link-level topology with the
// link that attaches it: the slowest bandwidth and longest delay seen over
// the flows it carries (ECMP may give one host several paths).
type end struct {
	host              int
	node              int
	bw, nominal, dlay int64
}

// Task builds the link-level simulation of channel c (Parsimon §3.2,
// Fig. 4): node 0 and node 1 are the channel's ends and link 0 the channel
// itself at its ACK-corrected bandwidth. When node 0 is a switch, every
// source host gets its own link to it at the bandwidth of its first hop
// (ACK-corrected, not inflated) with the summed propagation delay of the
// hops before c; when node 1 is a switch, every destination host gets a
// link from it at inflation times the slowest bandwidth after c, with the
// summed delay of the hops after c. Round-trip times are thereby those of
// the full network. It returns nil for a channel no flow crosses.
func (d *Decomposition) Task(c int, inflation float64) (*Task, error) {
	if c < 0 || c >= len(d.Net.Channels) {
		return nil, fmt.Errorf("parsimon: no channel %d (the network has %d)", c, len(d.Net.Channels))
	}
	if inflation < 1 {
		return nil, fmt.Errorf("parsimon: inflation factor %g; it must be >= 1", inflation)
	}
	on := d.On(c)
	if len(on) == 0 {
		return nil, nil
	}
	ch := d.Net.Channels[c]
	kind := d.Kind(c)
	t := &Task{
		Channel: c, Kind: kind, Config: d.Cfg,
		KBytes: d.Cfg.KBytesFor(ch.Bandwidth),
		Nodes:  []TaskNode{{ID: 0, Switch: kind == Core || kind == Downlink}, {ID: 1, Switch: kind == Core || kind == Uplink}},
		Links:  []TaskLink{{A: 0, B: 1, Bandwidth: d.Available(c), NominalBandwidth: ch.Bandwidth, Delay: ch.Delay}},
		Flows:  make([]workload.Flow, len(on)),
	}
	// A channel's flows and paths lie scattered over the run's: gathered
	// first in a loop of independent loads, their cache misses overlap,
	// which they did not in the long loop below (a third of this
	// function's time at 683k flows, perf).
	at := make([]int32, len(on)) // where each flow's path starts
	for j, i := range on {
		t.Flows[j] = d.Flows[i]
		at[j] = d.pathOff[i]
	}
	var srcs, dsts []end
	// The ends by host, +1 (0: none yet), for hosts of the full network;
	// only on a switch's side.
	var srcIdx, dstIdx []int32
	if t.Nodes[0].Switch {
		srcIdx = make([]int32, len(d.Net.Nodes))
	}
	if t.Nodes[1].Switch {
		dstIdx = make([]int32, len(d.Net.Nodes))
	}
	for j, i := range on {
		f := &t.Flows[j]
		path := d.paths[at[j]:d.pathOff[i+1]]
		k := 0
		for path[k] != int32(c) {
			k++
		}
		if t.Nodes[0].Switch {
			first := int(path[0])
			var delay int64
			for _, h := range path[:k] {
				delay += d.Net.Channels[h].Delay
			}
			e := end{host: f.Src, bw: d.Available(first), nominal: d.Net.Channels[first].Bandwidth, dlay: delay}
			srcs = merge(srcs, srcIdx, e)
		}
		if t.Nodes[1].Switch {
			var delay int64
			slowest := int64(math.MaxInt64)
			for _, h := range path[k+1:] {
				delay += d.Net.Channels[h].Delay
				slowest = min(slowest, d.Net.Channels[h].Bandwidth)
			}
			bw := int64(math.Round(inflation * float64(slowest)))
			dsts = merge(dsts, dstIdx, end{host: f.Dst, bw: bw, nominal: bw, dlay: delay})
		}
	}
	next := 2
	for i := range srcs {
		srcs[i].node = next
		t.Nodes = append(t.Nodes, TaskNode{ID: next})
		t.Links = append(t.Links, TaskLink{A: next, B: 0, Bandwidth: srcs[i].bw, NominalBandwidth: srcs[i].nominal, Delay: srcs[i].dlay})
		next++
	}
	for i := range dsts {
		dsts[i].node = next
		t.Nodes = append(t.Nodes, TaskNode{ID: next})
		t.Links = append(t.Links, TaskLink{A: 1, B: next, Bandwidth: dsts[i].bw, NominalBandwidth: dsts[i].nominal, Delay: dsts[i].dlay})
		next++
	}
	for j := range t.Flows {
		f := &t.Flows[j]
		src, dst := 0, 1
		if t.Nodes[0].Switch {
			src = srcs[srcIdx[f.Src]-1].node
		}
		if t.Nodes[1].Switch {
			dst = dsts[dstIdx[f.Dst]-1].node
		}
		f.Src, f.Dst = src, dst
	}
	return t, nil
}

// merge adds e to ends, or folds it into the entry for the same host
// (slowest bandwidth, longest delay).
// idx[host] is its entry's index + 1, 0 if it has none.
func merge(ends []end, idx []int32, e end) []end {
	i := idx[e.host]
	if i == 0 {
		idx[e.host] = int32(len(ends) + 1)
		return append(ends, e)
	}
	o := &ends[i-1]
	o.bw, o.nominal, o.dlay = min(o.bw, e.bw), min(o.nominal, e.nominal), max(o.dlay, e.dlay)
	return ends
}
