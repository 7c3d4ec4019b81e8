package estimator

import (
	"context"
	"strconv"

	"github.com/tailscope/tailscope/lib/pfs"
	"github.com/tailscope/tailscope/lib/scenario"
)

// pfs runs a whole decomposed flowsim run in this process; pfs-chunk runs
// one chunk of it (options: the decomposition plus "chunk"), so that the
// chunks of a run can be swept as tasks through any executor and merged
// with pfs.ReadChunk and Plan.Merge ("tailscope pfs run --executor").
func init() {
	register(pfs.Name, func(ctx context.Context, sc *scenario.Scenario, opts []byte) (*Result, error) {
		var o pfs.Options
		if err := decode(opts, &o); err != nil {
			return nil, err
		}
		res, err := pfs.Run(ctx, sc.Net, sc.Flows, sc.Spec.Network, o)
		if err != nil {
			return nil, err
		}
		return &Result{Records: res.Records, Options: encode(o), Extra: map[string]string{
			"chunks":   strconv.Itoa(res.Chunks),
			"injected": strconv.Itoa(res.Injected),
			"workers":  strconv.Itoa(res.Workers),
		}, Timings: map[string]float64{
			"prep_s":     res.PrepSeconds,
			"merge_s":    res.MergeSeconds,
			"critical_s": res.CriticalSeconds(),
			"sum_s":      res.SumSeconds(),
		}}, nil
	})
	register("pfs-chunk", func(ctx context.Context, sc *scenario.Scenario, opts []byte) (*Result, error) {
		var o pfs.ChunkOptions
		if err := decode(opts, &o); err != nil {
			return nil, err
		}
		res, plan, err := pfs.RunPlannedChunk(sc.Net, sc.Flows, sc.Spec.Network, o)
		if err != nil {
			return nil, err
		}
		extra, err := res.Extra()
		if err != nil {
			return nil, err
		}
		return &Result{Records: res.Records, Options: encode(o), Extra: map[string]string{
			pfs.ExtraKey: extra,
			"chunks":     strconv.Itoa(len(plan.Chunks)),
		}, Timings: map[string]float64{
			"prep_s":       plan.PrepSeconds,
			pfs.ChunkTimer: res.WallSeconds,
		}}, nil
	})
}
