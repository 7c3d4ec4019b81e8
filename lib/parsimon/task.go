package parsimon

import (
	"context"
	"fmt"
	"time"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Kind is the shape of a link-level topology, set by which ends of the
// target channel are hosts (Parsimon Fig. 4).
type Kind int

const (
	// Uplink is a host-to-switch channel (Fig. 4 case A): the source host's
	// NIC is the bottleneck; destinations hang off the switch on inflated
	// links.
	Uplink Kind = iota
	// Core is a switch-to-switch channel (case B): sources feed the input
	// switch over their un-inflated first hops, destinations hang off the
	// output switch on inflated links.
	Core
	// Downlink is a switch-to-host channel (case C): sources feed the
	// switch over their un-inflated first hops.
	Downlink
	// Direct is a host-to-host channel: the link-level topology is the
	// channel alone.
	Direct
)

// String names the shape: uplink, core, downlink or direct.
func (k Kind) String() string {
	switch k {
	case Uplink:
		return "uplink"
	case Core:
		return "core"
	case Downlink:
		return "downlink"
	case Direct:
		return "direct"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// TaskNode is a node of a link-level topology.
type TaskNode struct {
	ID     int  `json:"id"`
	Switch bool `json:"switch"`
}

// TaskLink is a link of a link-level topology. Bandwidth is what the link
// simulation runs at (ACK-corrected, or inflated); NominalBandwidth is the
// bandwidth the link stands for in the full network, against which the
// flows' ideal FCTs (and so their delays) are measured.
type TaskLink struct {
	A                int   `json:"a"`
	B                int   `json:"b"`
	Bandwidth        int64 `json:"bandwidth_bps"`
	NominalBandwidth int64 `json:"nominal_bandwidth_bps"`
	Delay            int64 `json:"delay_ns"`
}

// Task is one link-level simulation: a small topology whose link 0 carries
// the target channel (node 0 to node 1, so the target is channel 0 of the
// small network), the flows crossing the target with their endpoints
// remapped into the small topology, the network model and the ECN
// threshold the target port has in the full network. It is plain data
// (JSON-serializable), so that it can run in a goroutine, another process
// or a Slurm array element alike.
type Task struct {
	Channel int             `json:"channel"` // target channel id in the full network
	Kind    Kind            `json:"kind"`
	Nodes   []TaskNode      `json:"nodes"`
	Links   []TaskLink      `json:"links"`
	KBytes  int64           `json:"k_bytes"` // ECN threshold of the target port
	Flows   []workload.Flow `json:"flows"`
	Config  netcfg.Config   `json:"config"`
	// WindowOnce takes the delay the window adds to a lone flow on the
	// link-level topology out of each flow's delay (Options.WindowOnce):
	// the records' Ideal then includes it.
	WindowOnce bool `json:"window_once,omitempty"`
}

// TaskResult is what a link-level simulation produced: per flow (in task
// order) its size and the delay the target channel added, max(FCT - ideal,
// 0) in nanoseconds, plus the simulation's wall time. It is what a
// "parsimon-links" task writes when link simulations run as separate
// tasks (lib/experiment).
type TaskResult struct {
	Channel     int     `json:"channel"`
	FlowIDs     []int   `json:"flow_ids"`
	Sizes       []int64 `json:"sizes"`
	Delays      []int64 `json:"delays_ns"`
	WallSeconds float64 `json:"wall_seconds"`
}

// Backend runs a task's link-level simulation and returns one record per
// flow in task order. Records need FlowID and FCT; ideal FCTs are computed
// by Task.Records.
type Backend func(ctx context.Context, t *Task) ([]metrics.Record, error)

// Network builds the task's link-level topology at simulation bandwidths
// (nominal false) or at nominal ones (nominal true).
func (t *Task) Network(nominal bool) (*topo.Network, error) {
	nodes := make([]topo.Node, len(t.Nodes))
	for i, n := range t.Nodes {
		nodes[i] = topo.Node{ID: n.ID, Kind: topo.Host, Rack: -1, Pod: -1}
		if n.Switch {
			nodes[i].Kind = topo.Switch
		}
	}
	links := make([]topo.Link, len(t.Links))
	for i, l := range t.Links {
		bw := l.Bandwidth
		if nominal {
			bw = l.NominalBandwidth
		}
		links[i] = topo.Link{A: l.A, B: l.B, Bandwidth: bw, Delay: l.Delay}
	}
	n, err := topo.New(fmt.Sprintf("link-%d", t.Channel), nodes, links)
	if err != nil {
		return nil, fmt.Errorf("parsimon: link-level topology of channel %d: %w", t.Channel, err)
	}
	return n, nil
}

// RunTask runs a link-level simulation with backend and turns its FCTs into
// the delays the target channel contributed (Records, then NewTaskResult).
func RunTask(ctx context.Context, t *Task, backend Backend) (*TaskResult, error) {
	t0 := time.Now()
	recs, err := t.Records(ctx, backend)
	if err != nil {
		return nil, err
	}
	return NewTaskResult(t.Channel, recs, time.Since(t0).Seconds()), nil
}

// Records runs the link-level simulation with backend and returns one
// record per flow, in task order, whose Ideal is the flow's ideal FCT on
// the nominal link-level topology (with WindowOnce, plus the delay its
// window adds to it alone on the simulated one): FCT - Ideal is the
// delay the target channel added.
func (t *Task) Records(ctx context.Context, backend Backend) ([]metrics.Record, error) {
	if backend == nil {
		return nil, fmt.Errorf("parsimon: task %d: nil backend", t.Channel)
	}
	nom, err := t.Network(true)
	if err != nil {
		return nil, err
	}
	recs, err := backend(ctx, t)
	if err != nil {
		return nil, fmt.Errorf("parsimon: link simulation of channel %d: %w", t.Channel, err)
	}
	if len(recs) != len(t.Flows) {
		return nil, fmt.Errorf("parsimon: link simulation of channel %d finished %d of %d flows", t.Channel, len(recs), len(t.Flows))
	}
	in, out := t.hops()
	var path []int
	var sim *topo.Network
	if t.WindowOnce {
		if sim, err = t.Network(false); err != nil {
			return nil, err
		}
	}
	for i := range recs {
		r, f := &recs[i], t.Flows[i]
		if r.FlowID != f.ID {
			return nil, fmt.Errorf("parsimon: link simulation of channel %d returned flow %d at position %d, want flow %d", t.Channel, r.FlowID, i, f.ID)
		}
		if path = t.path(path[:0], in, out, f); path == nil {
			if path, err = nom.AppendPath(path, f.ID, f.Src, f.Dst); err != nil {
				return nil, err
			}
		}
		r.Size, r.Ideal = f.Size, metrics.IdealFCT(nom, path, f.Size, t.Config)
		if sim != nil {
			r.Ideal += LoneWindowDelay(sim, path, f.Size, t.Config)
		}
		r.Slowdown = float64(r.FCT) / float64(r.Ideal)
	}
	return recs, nil
}

// hops indexes the channels of a link-level topology shaped as
// Decomposition.Task builds it: in[n] is the channel from node n into
// node 0, out[n] the one from node 1 to node n, -1 where there is none.
// Both are nil for a topology of another shape, where routing may find
// other paths: node IDs that are not their positions, link 0 not from
// node 0 to node 1, another link between them or one that neither
// enters node 0 nor leaves node 1, or a node with two links into node 0,
// two out of node 1, or one of each.
func (t *Task) hops() (in, out []int) {
	if len(t.Links) == 0 || t.Links[0].A != 0 || t.Links[0].B != 1 {
		return nil, nil
	}
	for i, n := range t.Nodes {
		if n.ID != i {
			return nil, nil
		}
	}
	in, out = make([]int, len(t.Nodes)), make([]int, len(t.Nodes))
	for i := range in {
		in[i], out[i] = -1, -1
	}
	for i, l := range t.Links[1:] {
		if l.A < 0 || l.A >= len(t.Nodes) || l.B < 0 || l.B >= len(t.Nodes) {
			return nil, nil
		}
		// Channel 2i runs from link i's A to its B (topo.New).
		var at *int
		switch {
		case l.A <= 1 && l.B <= 1:
			return nil, nil
		case l.B == 0:
			at = &in[l.A]
		case l.A == 1:
			at = &out[l.B]
		default:
			return nil, nil
		}
		if *at >= 0 {
			return nil, nil
		}
		*at = 2 * (i + 1)
		if in[l.A] >= 0 && out[l.A] >= 0 || in[l.B] >= 0 && out[l.B] >= 0 {
			return nil, nil
		}
	}
	return in, out
}

// path appends to buf f's path on a link-level topology indexed by hops
// (in, out): its source's link into node 0 (none if the source is node
// 0), the target (channel 0) and its destination's link out of node 1
// (none if it is node 1), the only path between two hosts there. Found
// so, not by routing, which was 3.5% of a run at millions of flows
// (perf). It returns nil where routing must decide (or refuse): another
// shape, or endpoints that are not such hosts.
func (t *Task) path(buf []int, in, out []int, f workload.Flow) []int {
	host := func(n int) bool { return n >= 0 && n < len(in) && !t.Nodes[n].Switch }
	if in == nil || !host(f.Src) || !host(f.Dst) || f.Src == f.Dst {
		return nil
	}
	if f.Src != 0 {
		if in[f.Src] < 0 {
			return nil
		}
		buf = append(buf, in[f.Src])
	}
	buf = append(buf, 0)
	if f.Dst != 1 {
		if out[f.Dst] < 0 {
			return nil
		}
		buf = append(buf, out[f.Dst])
	}
	return buf
}

// NewTaskResult is the result of channel's link simulation from its
// records (Task.Records): each flow's delay is max(FCT - Ideal, 0).
func NewTaskResult(channel int, recs []metrics.Record, wallSeconds float64) *TaskResult {
	res := &TaskResult{
		Channel:     channel,
		FlowIDs:     make([]int, len(recs)),
		Sizes:       make([]int64, len(recs)),
		Delays:      make([]int64, len(recs)),
		WallSeconds: wallSeconds,
	}
	for i, r := range recs {
		res.FlowIDs[i], res.Sizes[i], res.Delays[i] = r.FlowID, r.Size, max(r.FCT-r.Ideal, 0)
	}
	return res
}
