package pfs

import (
	"encoding/json"
	"fmt"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// ChunkOptions are a decomposition and the index of one of its chunks: the
// options of lib/experiment's pfs-chunk task kind, which runs one chunk as
// an experiment task (a local pool worker or a Slurm array element). Each
// such task repeats the pre-processing, which is deterministic, so every
// element derives the same plan on its own.
type ChunkOptions struct {
	Options
	Chunk int `json:"chunk"`
}

// RunPlannedChunk plans flows with o.Options and runs chunk o.Chunk.
func RunPlannedChunk(net *topo.Network, flows []workload.Flow, cfg netcfg.Config, o ChunkOptions) (*ChunkResult, *Plan, error) {
	p, err := NewPlan(net, flows, cfg, o.Options)
	if err != nil {
		return nil, nil, err
	}
	if o.Chunk < 0 || o.Chunk >= len(p.Chunks) {
		return nil, nil, fmt.Errorf("pfs: chunk %d does not exist: the plan has chunks 0..%d", o.Chunk, len(p.Chunks)-1)
	}
	r, err := RunChunk(&p.Chunks[o.Chunk])
	return r, p, err
}

// ExtraKey is the frame metadata key ("tailscope.extra.pfs_chunk") under
// which a chunk task stores its result apart from the records.
const ExtraKey = "pfs_chunk"

// ChunkTimer names a chunk task's run time in its frame's run log
// (frame.Meta.Timings).
const ChunkTimer = "chunk_s"

// Extra encodes the result, without its records (they go into the record
// frame), for a frame's metadata.
func (r *ChunkResult) Extra() (string, error) {
	c := *r
	c.Records = nil
	b, err := json.Marshal(&c)
	if err != nil {
		return "", fmt.Errorf("pfs: chunk %d: %w", r.Index, err)
	}
	return string(b), nil
}

// ReadChunk reads a chunk task's record frame back into its result.
func ReadChunk(path string) (*ChunkResult, error) {
	recs, meta, err := frame.ReadRecords(path)
	if err != nil {
		return nil, err
	}
	s, ok := meta.Extra[ExtraKey]
	if !ok {
		return nil, fmt.Errorf("pfs: %s is not a pfs-chunk frame (no %s metadata)", path, ExtraKey)
	}
	var r ChunkResult
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return nil, fmt.Errorf("pfs: %s: %w", path, err)
	}
	if len(r.Pos) != len(recs) {
		return nil, fmt.Errorf("pfs: %s holds %d records for %d flow positions", path, len(recs), len(r.Pos))
	}
	r.Records, r.WallSeconds = recs, meta.Timings[ChunkTimer]
	return &r, nil
}
