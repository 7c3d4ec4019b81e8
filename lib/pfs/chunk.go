package pfs

import (
	"fmt"
	"time"

	"github.com/tailscope/tailscope/lib/flowsim"
	"github.com/tailscope/tailscope/lib/metrics"
)

// ChunkResult is what one chunk produced: the records of its own flows
// and the bits each destination host received per bin within its window.
type ChunkResult struct {
	Index int `json:"index"`
	// Pos gives each record's index in the run's flows.
	Pos     []int            `json:"pos"`
	Records []metrics.Record `json:"records"`
	// Hosts and Bits: Bits[i][b] bits received by host Hosts[i] in bin b
	// (absolute bins of width BinNs).
	Hosts []int       `json:"hosts"`
	Bits  [][]float64 `json:"bits"`
	BinNs int64       `json:"bin_ns"`
	// WallSeconds is the chunk's run time. A chunk task's frame keeps it
	// in its run log (under ChunkTimer), not with the rest in the frame.
	WallSeconds float64 `json:"-"`
}

// RunChunk simulates one chunk with flowsim until all its flows, own and
// injected, have finished, metering the channels into hosts within the
// chunk's window.
func RunChunk(c *Chunk) (*ChunkResult, error) {
	t0 := time.Now()
	jobs := make([]flowsim.Job, 0, len(c.Flows)+len(c.Injected))
	for _, set := range [][]ChunkFlow{c.Flows, c.Injected} {
		for _, f := range set {
			jobs = append(jobs, flowsim.Job{ID: f.Flow.ID, Route: f.Route, Bytes: f.Bytes, CapBps: f.CapBps, Start: f.Start})
		}
	}
	var sinks, hosts []int
	for l, h := range c.Hosts {
		if h >= 0 {
			sinks, hosts = append(sinks, l), append(hosts, h)
		}
	}
	m := &flowsim.Meter{BinNs: c.BinNs, Links: sinks, From: c.From, To: c.To}
	finish, err := flowsim.Simulate(c.CapBps, jobs, m)
	if err != nil {
		return nil, fmt.Errorf("pfs: chunk %d: %w", c.Index, err)
	}
	res := &ChunkResult{Index: c.Index, Pos: make([]int, len(c.Flows)), Records: make([]metrics.Record, len(c.Flows)),
		Hosts: hosts, Bits: m.Bits, BinNs: c.BinNs}
	for i, f := range c.Flows {
		res.Pos[i] = f.Pos
		r := metrics.Record{FlowID: f.Flow.ID, Src: f.Flow.Src, Dst: f.Flow.Dst, Size: f.Flow.Size, Start: f.Flow.Start,
			Class: f.Flow.Class, Ideal: f.Ideal}
		flowsim.Complete(&r, finish[i], f.Bytes, f.MinBps)
		res.Records[i] = r
	}
	res.WallSeconds = time.Since(t0).Seconds()
	return res, nil
}

// Merge puts the chunks' results together: every flow's record in flow
// order (it is an error for a flow to have none or two) and the received
// bytes summed over chunks.
func (p *Plan) Merge(results []*ChunkResult) (*Result, error) {
	if len(results) != len(p.Chunks) {
		return nil, fmt.Errorf("pfs: %d chunk results for %d chunks", len(results), len(p.Chunks))
	}
	n := len(p.Window)
	res := &Result{Records: make([]metrics.Record, n), Received: newSeries(p.BinNs, p.Hosts), Chunks: len(p.Chunks),
		PrepSeconds: p.PrepSeconds, ChunkSeconds: make([]float64, len(results))}
	seen := make([]bool, n)
	for i, r := range results {
		if r == nil || r.Index != i {
			return nil, fmt.Errorf("pfs: result %d is missing or belongs to another chunk", i)
		}
		if r.BinNs != p.BinNs {
			return nil, fmt.Errorf("pfs: chunk %d metered %d ns bins, the plan %d ns", i, r.BinNs, p.BinNs)
		}
		for k, pos := range r.Pos {
			if pos < 0 || pos >= n || seen[pos] {
				return nil, fmt.Errorf("pfs: chunk %d reports flow %d, which another chunk reported or which does not exist", i, r.Records[k].FlowID)
			}
			seen[pos] = true
			res.Records[pos] = r.Records[k]
		}
		if err := res.Received.add(r.Hosts, r.Bits); err != nil {
			return nil, fmt.Errorf("pfs: chunk %d: %w", i, err)
		}
		res.ChunkSeconds[i] = r.WallSeconds
		res.Injected += len(p.Chunks[i].Injected)
	}
	for pos, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("pfs: no chunk reported flow %d", pos)
		}
	}
	return res, nil
}
