// Package m3 is an m3-style FCT estimator (Li et al., SIGCOMM'24): it
// decomposes a network's flows into paths, samples paths in proportion to
// their foreground flows, simulates each sampled path as a parking lot with
// flowSim (lib/flowsim), turns the flowSim slowdowns into feature maps, lets
// a learned model correct them towards packet-level behaviour, and pools
// the corrected per-path distributions into network-wide size-bucketed
// slowdown distributions.
//
// The model is a small ensemble of multilayer perceptrons written on
// gonum/mat, trained on path-level packet simulations (lib/packetsim) of
// parking lots; the trained one is embedded from datasets/models.
// Everything random flows from explicit seeds; training runs the members in
// parallel and is deterministic, and so are the parallel parts of Run.
package m3

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"

	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Decomposition groups a network's flows by route into paths (m3 Eq. 1)
// and indexes which flows cross each channel, so that any path's
// background flows (m3 Eq. 2) can be found without scanning every flow.
//
// Routes, paths and channel indexes live in a few flat arrays that all
// paths and channels share (offsets into one array each, built with
// counting sorts): on the 6,144-host fabric nearly every flow has a path
// of its own, and a slice per path, per flow and per channel cost more
// memory than the flows themselves. The slices its methods return are
// views into these arrays and must not be modified.
type Decomposition struct {
	hops     []int32 // every flow's route, flow after flow
	routeOff []int   // flow i's route is hops[routeOff[i]:routeOff[i+1]]
	flowPath []int32 // path of each flow
	first    []int32 // first flow of each path: its route is the path's
	pathOff  []int32 // path p's flows are pathFlows[pathOff[p]:pathOff[p+1]]
	// pathFlows holds the flows of path 0, then of path 1, ..., each
	// path's ascending.
	pathFlows []int32
	chanOff   []int   // flows crossing channel c: chanFlows[chanOff[c]:chanOff[c+1]]
	chanFlows []int32 // ascending within a channel
}

// chunk is the number of flows one job of a parallel loop over n flows
// handles on workers goroutines: about four jobs per worker, so that the
// last ones spread evenly, between 1024 and 65536 flows, so that a job's
// overhead vanishes.
func chunk(n, workers int) int {
	return min(max(n/(4*workers), 1024), 1<<16)
}

// Decompose routes every flow with net.Path and groups flows by route,
// spreading the routing over GOMAXPROCS goroutines. Paths are numbered in
// order of their first flow.
func Decompose(net *topo.Network, flows []workload.Flow) (*Decomposition, error) {
	return decompose(context.Background(), net, flows, runtime.GOMAXPROCS(0))
}

func decompose(ctx context.Context, net *topo.Network, flows []workload.Flow, workers int) (*Decomposition, error) {
	if net == nil {
		return nil, fmt.Errorf("m3: nil network")
	}
	if len(flows) > math.MaxInt32 {
		return nil, fmt.Errorf("m3: %d flows; at most %d are supported", len(flows), math.MaxInt32)
	}
	d := &Decomposition{routeOff: make([]int, len(flows)+1)}
	if err := d.route(ctx, net, flows, workers); err != nil {
		return nil, err
	}
	d.group()
	return d, d.indexChannels(ctx, len(net.Channels), workers)
}

// route fills hops and routeOff. Chunks of flows are routed in parallel
// into buffers of their own, then concatenated in flow order.
func (d *Decomposition) route(ctx context.Context, net *topo.Network, flows []workload.Flow, workers int) error {
	size := chunk(len(flows), workers)
	chunks := make([][]int32, (len(flows)+size-1)/size)
	err := parallel(ctx, workers, len(chunks), func(k int) error {
		lo, hi := k*size, min((k+1)*size, len(flows))
		buf := make([]int32, 0, 8*(hi-lo))
		var path []int
		for i := lo; i < hi; i++ {
			f := flows[i]
			var err error
			if path, err = net.AppendPath(path[:0], f.ID, f.Src, f.Dst); err != nil {
				return fmt.Errorf("m3: %w", err)
			}
			if len(path) > 255 {
				return fmt.Errorf("m3: flow %d has a route of %d hops; at most 255 are supported", f.ID, len(path))
			}
			for _, c := range path {
				buf = append(buf, int32(c))
			}
			// Lengths for now; turned into offsets below.
			d.routeOff[i+1] = len(path)
		}
		chunks[k] = buf
		return nil
	})
	if err != nil {
		return err
	}
	for i := range flows {
		d.routeOff[i+1] += d.routeOff[i]
	}
	d.hops = make([]int32, 0, d.routeOff[len(flows)])
	for k, c := range chunks {
		d.hops = append(d.hops, c...)
		chunks[k] = nil // let the buffer go while the rest is copied
	}
	return nil
}

// group numbers the distinct routes in order of their first flow and lays
// out each path's flows by a counting sort on the path.
func (d *Decomposition) group() {
	n := len(d.routeOff) - 1
	d.flowPath = make([]int32, n)
	idx := pathIndex{slots: make([]uint64, 1024)}
	for i := range n {
		route := d.Route(i)
		h := routeHash(route)
		p, ok := idx.find(d, h, route)
		if !ok {
			p = int32(len(d.first))
			d.first = append(d.first, int32(i))
			idx.insert(d, h, p)
		}
		d.flowPath[i] = p
	}
	d.pathOff = make([]int32, len(d.first)+1)
	for _, p := range d.flowPath {
		d.pathOff[p+1]++
	}
	for p := range d.first {
		d.pathOff[p+1] += d.pathOff[p]
	}
	next := slices.Clone(d.pathOff[:len(d.first)])
	d.pathFlows = make([]int32, n)
	for i, p := range d.flowPath {
		d.pathFlows[next[p]] = int32(i)
		next[p]++
	}
}

// indexChannels lays out the flows crossing each channel by a counting
// sort on the channel, in parallel: every job counts its chunk of flows
// per channel, the counts give each job its own positions in every
// channel's list (chunk order, so flows stay ascending), and the jobs fill
// them.
func (d *Decomposition) indexChannels(ctx context.Context, channels, workers int) error {
	n := len(d.routeOff) - 1
	jobs := max(1, min(workers, (n+chunk(n, workers)-1)/chunk(n, workers)))
	span := (n + jobs - 1) / jobs
	pos := make([][]int, jobs)
	err := parallel(ctx, workers, jobs, func(k int) error {
		pos[k] = make([]int, channels)
		for _, c := range d.hops[d.routeOff[min(k*span, n)]:d.routeOff[min((k+1)*span, n)]] {
			pos[k][c]++
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.chanOff = make([]int, channels+1)
	for c := range channels {
		at := d.chanOff[c]
		for k := range jobs {
			at, pos[k][c] = at+pos[k][c], at
		}
		d.chanOff[c+1] = at
	}
	d.chanFlows = make([]int32, d.chanOff[channels])
	return parallel(ctx, workers, jobs, func(k int) error {
		next := pos[k]
		for i := min(k*span, n); i < min((k+1)*span, n); i++ {
			for _, c := range d.Route(i) {
				d.chanFlows[next[c]] = int32(i)
				next[c]++
			}
		}
		return nil
	})
}

// routeHash mixes a route's channels (FNV-1a over the channel ids,
// finished by a splitmix64 step so that the low bits the index uses are
// well spread).
func routeHash(route []int32) uint64 {
	h := uint64(0xcbf29ce484222325)
	for _, c := range route {
		h = (h ^ uint64(uint32(c))) * 0x100000001b3
	}
	h ^= h >> 31
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>29
}

// pathIndex finds a path by its route: an open-addressing table whose
// slots hold the high half of the route's hash next to the path id plus
// one (0: empty), so that a probe compares routes only on a hash match.
// It is a map from routes to paths without a key per path: on millions of
// paths a map of string keys was the largest part of Decompose.
type pathIndex struct {
	slots []uint64 // length a power of two
	used  int
}

func (x *pathIndex) find(d *Decomposition, h uint64, route []int32) (int32, bool) {
	mask := uint64(len(x.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return 0, false
		}
		if s>>32 == h>>32 {
			p := int32(uint32(s)) - 1
			if slices.Equal(d.Route(int(d.first[p])), route) {
				return p, true
			}
		}
	}
}

// insert adds path p with route hash h, doubling the table beyond half
// full; the hashes of the paths already in it are recomputed from their
// routes.
func (x *pathIndex) insert(d *Decomposition, h uint64, p int32) {
	if 2*(x.used+1) > len(x.slots) {
		old := x.slots
		x.slots, x.used = make([]uint64, 2*len(old)), 0
		for _, s := range old {
			if s != 0 {
				q := int32(uint32(s)) - 1
				x.put(routeHash(d.Route(int(d.first[q]))), q)
			}
		}
	}
	x.put(h, p)
}

func (x *pathIndex) put(h uint64, p int32) {
	mask := uint64(len(x.slots) - 1)
	i := h & mask
	for x.slots[i] != 0 {
		i = (i + 1) & mask
	}
	x.slots[i] = h>>32<<32 | uint64(uint32(p+1))
	x.used++
}

// NumPaths is the number of distinct routes.
func (d *Decomposition) NumPaths() int { return len(d.first) }

// Channels returns the channels of path p, in order.
func (d *Decomposition) Channels(p int) []int32 { return d.Route(int(d.first[p])) }

// Foreground returns path p's foreground flows (m3 Eq. 1: those whose
// route is exactly the path) as ascending indices into the flows given to
// Decompose.
func (d *Decomposition) Foreground(p int) []int32 { return d.pathFlows[d.pathOff[p]:d.pathOff[p+1]] }

// FlowPath returns the path of flow i.
func (d *Decomposition) FlowPath(i int) int { return int(d.flowPath[i]) }

// Route returns the channels of flow i.
func (d *Decomposition) Route(i int) []int32 { return d.hops[d.routeOff[i]:d.routeOff[i+1]] }

// BackgroundFlow is a flow that shares at least one channel with a path
// without following it end to end (m3 Eq. 2). First and Last are the
// indices, along the path, of the first and last channel it shares.
type BackgroundFlow struct {
	Flow        int
	First, Last int
}

// Background returns path p's background flows in ascending flow order.
// A flow that shares channels First and Last but leaves the path in between
// (possible where ECMP paths diverge and meet again) is treated as if it
// stayed on the path from First to Last, as a parking lot can only express
// contiguous segments.
func (d *Decomposition) Background(p int) []BackgroundFlow {
	// The channels' flow lists are ascending: merge them, taking the
	// smallest head each time (a path has a handful of hops, so a scan
	// of the heads beats a heap), and fold a flow's hops into one span.
	// The foreground flows, ascending too, are skipped by walking their
	// list alongside, which spares a random read of every flow's path.
	chans, fg := d.Channels(p), d.Foreground(p)
	lists := make([][]int32, len(chans))
	total := 0
	for h, c := range chans {
		lists[h] = d.chanFlows[d.chanOff[c]:d.chanOff[c+1]]
		total += len(lists[h])
	}
	out := make([]BackgroundFlow, 0, total-len(lists)*len(fg))
	for {
		h := -1
		for k, l := range lists {
			if len(l) > 0 && (h < 0 || l[0] < lists[h][0]) {
				h = k
			}
		}
		if h < 0 {
			return out
		}
		f := lists[h][0]
		lists[h] = lists[h][1:]
		for len(fg) > 0 && fg[0] < f {
			fg = fg[1:]
		}
		if len(fg) > 0 && fg[0] == f {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Flow == int(f) {
			out[n-1].Last = h
			continue
		}
		out = append(out, BackgroundFlow{Flow: int(f), First: h, Last: h})
	}
}

// Sample draws n paths with replacement, each with probability
// proportional to its number of foreground flows (m3 §3.2), and returns
// how often each path was drawn (index: path). The draws come from seed
// alone.
func (d *Decomposition) Sample(n int, seed uint64) ([]int, error) {
	if n <= 0 {
		return nil, fmt.Errorf("m3: number of path samples must be positive, got %d", n)
	}
	if len(d.first) == 0 {
		return nil, fmt.Errorf("m3: no paths to sample (no flows)")
	}
	// pathOff[p+1] is the cumulative count of the flows of paths 0..p.
	cum := d.pathOff[1:]
	total := int(cum[len(cum)-1])
	r := rand.New(rand.NewPCG(seed, 0x6d33))
	counts := make([]int, len(d.first))
	for range n {
		u := int32(r.IntN(total))
		counts[sort.Search(len(cum), func(i int) bool { return cum[i] >= u+1 })]++
	}
	return counts, nil
}
