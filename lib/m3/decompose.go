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
// parallel and is deterministic.
package m3

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Path is one distinct route (sequence of channels) of a network together
// with its foreground flows: the flows whose route is exactly this one
// (m3 Eq. 1).
type Path struct {
	Channels []int
	Flows    []int // indices into the flows given to Decompose, ascending
}

// Decomposition groups a network's flows by route and indexes which flows
// cross each channel, so that any path's background flows (m3 Eq. 2) can be
// found without scanning every flow.
type Decomposition struct {
	Paths    []Path
	FlowPath []int   // path index of each flow
	routes   [][]int // channels of each flow
	onChan   [][]int // flows crossing each channel, ascending
}

// Decompose routes every flow with net.Path and groups flows by route.
// Paths are numbered in order of their first flow.
func Decompose(net *topo.Network, flows []workload.Flow) (*Decomposition, error) {
	if net == nil {
		return nil, fmt.Errorf("m3: nil network")
	}
	d := &Decomposition{
		FlowPath: make([]int, len(flows)),
		routes:   make([][]int, len(flows)),
		onChan:   make([][]int, len(net.Channels)),
	}
	index := map[string]int{}
	var key strings.Builder
	for i, f := range flows {
		route, err := net.Path(f.ID, f.Src, f.Dst)
		if err != nil {
			return nil, fmt.Errorf("m3: %w", err)
		}
		d.routes[i] = route
		key.Reset()
		for _, c := range route {
			key.WriteString(strconv.Itoa(c))
			key.WriteByte(',')
		}
		if len(route) > 255 {
			return nil, fmt.Errorf("m3: flow %d has a route of %d hops; at most 255 are supported", f.ID, len(route))
		}
		p, ok := index[key.String()]
		if !ok {
			p = len(d.Paths)
			index[key.String()] = p
			d.Paths = append(d.Paths, Path{Channels: route})
		}
		d.Paths[p].Flows = append(d.Paths[p].Flows, i)
		d.FlowPath[i] = p
		for _, c := range route {
			d.onChan[c] = append(d.onChan[c], i)
		}
	}
	return d, nil
}

// Route returns the channels of flow i.
func (d *Decomposition) Route(i int) []int { return d.routes[i] }

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
	// Keys flow<<8 | hop sort into flow order with hops ascending within a
	// flow; paths have far fewer than 256 hops.
	var keys []uint64
	for h, c := range d.Paths[p].Channels {
		for _, f := range d.onChan[c] {
			if d.FlowPath[f] != p {
				keys = append(keys, uint64(f)<<8|uint64(h))
			}
		}
	}
	slices.Sort(keys)
	var out []BackgroundFlow
	for _, k := range keys {
		f, h := int(k>>8), int(k&0xff)
		if n := len(out); n > 0 && out[n-1].Flow == f {
			out[n-1].Last = h
			continue
		}
		out = append(out, BackgroundFlow{Flow: f, First: h, Last: h})
	}
	return out
}

// Sample draws n paths with replacement, each with probability
// proportional to its number of foreground flows (m3 §3.2), and returns
// how often each path was drawn (index: path). The draws come from seed
// alone.
func (d *Decomposition) Sample(n int, seed uint64) ([]int, error) {
	if n <= 0 {
		return nil, fmt.Errorf("m3: number of path samples must be positive, got %d", n)
	}
	if len(d.Paths) == 0 {
		return nil, fmt.Errorf("m3: no paths to sample (no flows)")
	}
	cum := make([]int, len(d.Paths))
	total := 0
	for i, p := range d.Paths {
		total += len(p.Flows)
		cum[i] = total
	}
	r := rand.New(rand.NewPCG(seed, 0x6d33))
	counts := make([]int, len(d.Paths))
	for range n {
		u := r.IntN(total)
		counts[sort.SearchInts(cum, u+1)]++
	}
	return counts, nil
}
