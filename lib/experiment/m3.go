package experiment

import (
	"context"
	"encoding/json"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/progress"
)

// M3Tasks expresses m3's training data set o as one task of kind
// KindM3Task per training task, in index order.
func M3Tasks(o m3.GenOptions) ([]Task, error) {
	draws, err := o.Draws()
	if err != nil {
		return nil, err
	}
	tasks := make([]Task, len(draws))
	for i, d := range draws {
		b, err := json.Marshal(d)
		if err != nil {
			return nil, err
		}
		tasks[i] = Task{Kind: KindM3Task, Options: string(b)}
	}
	return tasks, nil
}

// GenerateM3Data simulates the training tasks of o whose frames are
// missing from data directory dir (under dir/m3.TaskKind, where
// m3.LoadData reads them) through exec, the local pool or Slurm arrays,
// reporting to p. Like every sweep it resumes: finished tasks are kept,
// and a task's frame depends on (seed, index, flows, space) alone. A
// directory holding task frames of an older tailscope is refused.
func GenerateM3Data(ctx context.Context, dir string, o m3.GenOptions, exec Executor, p progress.Reporter) (Report, error) {
	if _, err := m3.TaskFrames(dir); err != nil {
		return Report{}, err
	}
	tasks, err := M3Tasks(o)
	if err != nil {
		return Report{}, err
	}
	return Sweep(ctx, dir, tasks, exec, p)
}

func m3TaskOptions(opts string) (string, error) { return canonical(readDraw(opts)) }

func readDraw(opts string) (m3.TaskDraw, error) {
	var d m3.TaskDraw
	if err := estimator.DecodeOptions(opts, &d); err != nil {
		return d, err
	}
	return d.Canonical()
}

func runM3Task(ctx context.Context, opts, path string) error {
	d, err := readDraw(opts)
	if err != nil {
		return err
	}
	t, err := d.Task()
	if err != nil {
		return err
	}
	r, err := m3.RunTask(ctx, t)
	if err != nil {
		return err
	}
	return r.Write(path)
}
