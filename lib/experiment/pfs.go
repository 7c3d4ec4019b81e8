package experiment

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tailscope/tailscope/lib/pfs"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
)

// PFSTasks expresses a pfs decomposition of spec as one task of kind
// KindPFSChunk per chunk. plan must be pfs.NewPlan of the built spec with opts.
func PFSTasks(spec scenario.Spec, opts pfs.Options, plan *pfs.Plan) ([]Task, error) {
	tasks := make([]Task, len(plan.Chunks))
	for i := range plan.Chunks {
		b, err := json.Marshal(pfs.ChunkOptions{Options: opts, Chunk: i})
		if err != nil {
			return nil, err
		}
		tasks[i] = Task{Spec: spec, Kind: KindPFSChunk, Options: string(b)}
	}
	return tasks, nil
}

// RunPFS runs a pfs decomposition of the built scenario sc with its chunks
// as tasks (on sc.Spec) through exec (the local pool or Slurm arrays), each
// writing its chunk frame under dir, and merges them. Chunk frames already
// under dir are reused, so an interrupted run resumes. The result's
// WallSeconds covers planning, the sweep and the merge, like pfs.Run's;
// chunk times are the tasks' own.
func RunPFS(ctx context.Context, dir string, sc *scenario.Scenario, opts pfs.Options, exec Executor, p progress.Reporter) (*pfs.Result, error) {
	t0 := time.Now()
	plan, err := pfs.NewPlan(sc.Net, sc.Flows, sc.Spec.Network, opts)
	if err != nil {
		return nil, err
	}
	tasks, err := PFSTasks(sc.Spec, opts, plan)
	if err != nil {
		return nil, err
	}
	if _, err := Sweep(ctx, dir, tasks, exec, p); err != nil {
		return nil, err
	}
	results := make([]*pfs.ChunkResult, len(tasks))
	for i, t := range tasks {
		path, err := t.ResultPath(dir)
		if err != nil {
			return nil, err
		}
		if results[i], err = pfs.ReadChunk(path); err != nil {
			return nil, fmt.Errorf("experiment: pfs chunk %d: %w", i, err)
		}
	}
	res, err := plan.Merge(results)
	if err != nil {
		return nil, err
	}
	res.WallSeconds = time.Since(t0).Seconds()
	return res, nil
}
