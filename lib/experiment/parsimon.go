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
	return func(ctx context.Context, links parsimon.Links, done func(int, *parsimon.TaskResult) error) error {
		var raw json.RawMessage
		if opts != "" {
			raw = json.RawMessage(opts)
		}
		tasks := make([]Task, len(links.Channels))
		for i, c := range links.Channels {
			b, err := json.Marshal(ParsimonLinkOptions{Variant: variant, Options: raw, Channel: c})
			if err != nil {
				return fmt.Errorf("experiment: parsimon link options: %w", err)
			}
			tasks[i] = Task{Spec: spec, Kind: KindParsimonLink, Options: string(b)}
		}
		if _, err := Sweep(ctx, dir, tasks, exec, p); err != nil {
			return err
		}
		for i, t := range tasks {
			path, err := t.ResultPath(dir)
			if err != nil {
				return err
			}
			recs, meta, err := frame.ReadRecords(path)
			if err != nil {
				return fmt.Errorf("experiment: parsimon link of channel %d: %w", links.Channels[i], err)
			}
			wall, ok := meta.Timings[LinkSimTimer]
			if !ok {
				return fmt.Errorf("experiment: %s: no link simulation time in its run log %s", path, frame.RunLogPath(path))
			}
			if err := done(i, parsimon.NewTaskResult(links.Channels[i], recs, wall)); err != nil {
				return fmt.Errorf("experiment: %s: %w", path, err)
			}
		}
		return nil
	}
}
