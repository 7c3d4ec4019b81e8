package m3

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tailscope/tailscope/lib/flowsim"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/packetsim"
)

// TaskResult is a simulated training task: per flow of its parking lot,
// the size, hop span, foreground flag and the slowdowns flowSim and
// packetsim gave it. Features are derived from it at training time, so a
// change of feature design needs no new simulations.
type TaskResult struct {
	Task       Task
	Sizes      []int64
	First      []int
	Last       []int
	Foreground []bool
	FlowSim    []float64
	PacketSim  []float64
	// PacketSeconds and FlowSeconds are the simulators' wall times.
	PacketSeconds, FlowSeconds float64
}

// RunTask builds the task's parking lot and runs flowSim and packetsim on
// it; it stops with ctx's error soon after ctx is done.
func RunTask(ctx context.Context, t Task) (*TaskResult, error) {
	sim, err := t.Build()
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	fs, err := flowsim.Run(ctx, sim.Net, sim.Flows, t.Network, flowsim.Options{})
	if err != nil {
		return nil, fmt.Errorf("m3: task %d: %w", t.Index, err)
	}
	t1 := time.Now()
	ps, err := packetsim.Run(ctx, sim.Net, sim.Flows, t.Network, packetsim.Options{})
	if err != nil {
		return nil, fmt.Errorf("m3: task %d: %w", t.Index, err)
	}
	if len(ps.Records) != len(sim.Flows) {
		return nil, fmt.Errorf("m3: task %d: packetsim finished %d of %d flows", t.Index, len(ps.Records), len(sim.Flows))
	}
	r := &TaskResult{Task: t, First: sim.First, Last: sim.Last, Foreground: sim.Foreground,
		FlowSeconds: t1.Sub(t0).Seconds(), PacketSeconds: time.Since(t1).Seconds()}
	for i, f := range sim.Flows {
		r.Sizes = append(r.Sizes, f.Size)
		r.FlowSim = append(r.FlowSim, fs[i].Slowdown)
		r.PacketSim = append(r.PacketSim, ps.Records[i].Slowdown)
	}
	return r, nil
}

// Sample turns the result into a training sample. With windowCap its
// base is flowSim run again with the window cap (flowsim.Options); the
// stored FlowSim column is the plain fluid run's, so that one data set
// trains models of either base.
func (r *TaskResult) Sample(windowCap bool) (*Sample, error) {
	sim, err := r.Task.Build()
	if err != nil {
		return nil, err
	}
	if len(sim.Flows) != len(r.Sizes) {
		return nil, fmt.Errorf("m3: task %d: %d stored flows, the task builds %d", r.Task.Index, len(r.Sizes), len(sim.Flows))
	}
	base := r.FlowSim
	if windowCap {
		recs, err := flowsim.Run(context.Background(), sim.Net, sim.Flows, r.Task.Network, flowsim.Options{WindowCap: true})
		if err != nil {
			return nil, fmt.Errorf("m3: task %d: %w", r.Task.Index, err)
		}
		base = metrics.Slowdowns(recs)
	}
	s := NewSample(sim, r.Task.Network, base, r.PacketSim)
	s.WindowCap = windowCap
	return s, nil
}

// Write stores the result as a frame (Parquet or Arrow IPC by extension),
// the task as the frame's options; the write is atomic.
func (r *TaskResult) Write(path string) error {
	task, err := json.Marshal(r.Task)
	if err != nil {
		return err
	}
	n := len(r.Sizes)
	fg := make([]int64, n)
	for i, f := range r.Foreground {
		if f {
			fg[i] = 1
		}
	}
	t := &frame.Table{
		Columns: []frame.Column{
			frame.Int64Column("size_bytes", r.Sizes),
			frame.Int64Column("first_hop", toInt64(r.First)),
			frame.Int64Column("last_hop", toInt64(r.Last)),
			frame.Int64Column("foreground", fg),
			frame.Float64Column("flowsim_slowdown", r.FlowSim),
			frame.Float64Column("packetsim_slowdown", r.PacketSim),
		},
		Meta: frame.Meta{
			Estimator: "m3-task",
			Network:   fmt.Sprintf("parkinglot-%dhop", r.Task.Hops),
			Seed:      r.Task.Seed,
			Options:   string(task),
			// The simulators' time goes to the run log beside the frame,
			// so that a task's frame depends on the task alone.
			WallSeconds: r.PacketSeconds + r.FlowSeconds,
		},
	}
	return frame.WriteTable(path, t)
}

// ReadTaskResult reads a frame TaskResult.Write wrote.
func ReadTaskResult(path string) (*TaskResult, error) {
	t, err := frame.ReadTable(path)
	if err != nil {
		return nil, err
	}
	r := &TaskResult{}
	if err := json.Unmarshal([]byte(t.Meta.Options), &r.Task); err != nil {
		return nil, fmt.Errorf("m3: %s: task: %w", path, err)
	}
	var first, last, fg []int64
	for _, c := range []struct {
		name string
		dst  *[]int64
	}{{"size_bytes", &r.Sizes}, {"first_hop", &first}, {"last_hop", &last}, {"foreground", &fg}} {
		if *c.dst, err = t.Int64s(c.name); err != nil {
			return nil, fmt.Errorf("m3: %s: %w", path, err)
		}
	}
	if r.FlowSim, err = t.Float64s("flowsim_slowdown"); err != nil {
		return nil, fmt.Errorf("m3: %s: %w", path, err)
	}
	if r.PacketSim, err = t.Float64s("packetsim_slowdown"); err != nil {
		return nil, fmt.Errorf("m3: %s: %w", path, err)
	}
	for i := range fg {
		r.First, r.Last = append(r.First, int(first[i])), append(r.Last, int(last[i]))
		r.Foreground = append(r.Foreground, fg[i] == 1)
	}
	return r, nil
}

func toInt64(xs []int) []int64 {
	out := make([]int64, len(xs))
	for i, x := range xs {
		out[i] = int64(x)
	}
	return out
}
