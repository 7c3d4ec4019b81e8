package experiment

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
)

// ParsimonLinks returns a parsimon.LinkRunner that runs the link-level
// simulations of the Parsimon variant (with its options JSON) on spec as
// tasks of kind KindParsimonLink through exec, each writing its records
// under dir. Link simulations already done under dir are reused, so an interrupted
// Parsimon run resumes with the simulations it had not finished; on Slurm
// every link simulation is an array element.
func ParsimonLinks(dir string, spec scenario.Spec, variant, opts string, exec Executor, p progress.Reporter) parsimon.LinkRunner {
	return func(ctx context.Context, links []*parsimon.Task) ([]*parsimon.TaskResult, error) {
		var raw json.RawMessage
		if opts != "" {
			raw = json.RawMessage(opts)
		}
		tasks := make([]Task, len(links))
		for i, l := range links {
			b, err := json.Marshal(ParsimonLinkOptions{Variant: variant, Options: raw, Channel: l.Channel})
			if err != nil {
				return nil, fmt.Errorf("experiment: parsimon link options: %w", err)
			}
			tasks[i] = Task{Spec: spec, Kind: KindParsimonLink, Options: string(b)}
		}
		if _, err := Sweep(ctx, dir, tasks, exec, p); err != nil {
			return nil, err
		}
		results := make([]*parsimon.TaskResult, len(tasks))
		for i, t := range tasks {
			path, err := t.ResultPath(dir)
			if err != nil {
				return nil, err
			}
			recs, meta, err := frame.ReadRecords(path)
			if err != nil {
				return nil, fmt.Errorf("experiment: parsimon link of channel %d: %w", links[i].Channel, err)
			}
			if len(recs) != len(links[i].Flows) {
				return nil, fmt.Errorf("experiment: %s holds %d records for the %d flows of channel %d", path, len(recs), len(links[i].Flows), links[i].Channel)
			}
			wall, ok := meta.Timings[LinkSimTimer]
			if !ok {
				return nil, fmt.Errorf("experiment: %s: no link simulation time in its run log %s", path, frame.RunLogPath(path))
			}
			results[i] = parsimon.NewTaskResult(links[i].Channel, recs, wall)
		}
		return results, nil
	}
}
