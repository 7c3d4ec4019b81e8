package experiment

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/tailscope/tailscope/lib/internal/pool"
	"github.com/tailscope/tailscope/lib/progress"
)

// Executor runs tasks, each writing its own result under dir (Task.Run),
// and calls done once per task as it finishes, with the task's index and
// error, from one goroutine at a time. It returns when every task has
// finished or ctx is done; task failures go to done, not to the return
// value, which is for failures of the executor itself.
type Executor interface {
	Execute(ctx context.Context, dir string, tasks []Task, done func(i int, err error)) error
}

// Local runs tasks on a pool of goroutines in this process.
type Local struct {
	// Workers is the number of tasks run at once (default 1: estimators
	// may use every core themselves).
	Workers int
}

// Execute implements Executor. A failed task does not stop the others.
func (l Local) Execute(ctx context.Context, dir string, tasks []Task, done func(i int, err error)) error {
	var mu sync.Mutex
	return pool.Run(ctx, len(tasks), pool.Options{Workers: max(1, l.Workers)}, func(ctx context.Context, i int) error {
		err := tasks[i].Run(ctx, dir)
		mu.Lock()
		defer mu.Unlock()
		done(i, err)
		return nil
	})
}

// Report is the outcome of a sweep.
type Report struct {
	Total   int // tasks in the sweep
	Skipped int // already done before this run
	Ran     int // run now, successfully
	Failed  int // run now, failed
	// Elsewhere counts the tasks skipped because another live process
	// holds their lock (Task.Run): not done yet, so the sweep is
	// incomplete.
	Elsewhere int
}

// weight is the task's share of a sweep's work for the ETA: its flows, at
// least one (a task of a flows file, or of a kind that draws none, counts
// as one).
func (t Task) weight() float64 { return float64(max(t.Spec.Workload.Flows, 1)) }

// Sweep runs the tasks whose results are missing under dir through exec
// and reports progress to p (which may be nil). Finished results are never
// redone, so a sweep killed at any moment and started again completes with
// the same results and no repeated work. Failed tasks do not stop the
// others; their errors are returned together. Several processes may run
// parts of one sweep directory at once: a task that another process is
// running (its lock is held) is skipped and counted in Report.Elsewhere,
// and then Sweep returns an error saying the sweep is incomplete, so that
// a script does not take it for done.
func Sweep(ctx context.Context, dir string, tasks []Task, exec Executor, p progress.Reporter) (Report, error) {
	rep := Report{Total: len(tasks)}
	var todo []Task
	seen := map[string]bool{}
	for _, t := range tasks {
		key, err := t.Key()
		if err != nil {
			return rep, err
		}
		if seen[key] {
			return rep, fmt.Errorf("experiment: task %s appears twice in the sweep", key)
		}
		seen[key] = true
		ok, err := t.Done(dir)
		if err != nil {
			return rep, err
		}
		if ok {
			rep.Skipped++
		} else {
			todo = append(todo, t)
		}
	}
	// The ETA weighs each task by its flows: a design's tasks run from a
	// thousand flows to a million.
	var work, totalWork float64
	for _, t := range tasks {
		totalWork += t.weight()
	}
	for _, t := range todo {
		work -= t.weight()
	}
	work += totalWork
	skipped := ""
	if rep.Skipped > 0 {
		skipped = fmt.Sprintf("%d already done, skipped", rep.Skipped)
	}
	progress.ReportWork(p, rep.Skipped, rep.Total, work, totalWork, skipped)
	if len(todo) == 0 {
		return rep, nil
	}
	var errs []error
	err := exec.Execute(ctx, dir, todo, func(i int, err error) {
		var what []string
		switch {
		case errors.Is(err, ErrElsewhere):
			rep.Elsewhere++
			errs = append(errs, err)
			what = append(what, "skipped "+err.Error())
		case err != nil:
			rep.Failed++
			errs = append(errs, err)
		default:
			rep.Ran++
		}
		work += todo[i].weight()
		if rep.Failed > 0 {
			what = append(what, fmt.Sprintf("%d failed", rep.Failed))
		}
		if rep.Elsewhere > 0 {
			what = append(what, fmt.Sprintf("%d running elsewhere", rep.Elsewhere))
		}
		progress.ReportWork(p, rep.Skipped+rep.Ran+rep.Failed+rep.Elsewhere, rep.Total, work, totalWork, strings.Join(what, "; "))
	})
	if err != nil {
		errs = append([]error{err}, errs...)
	}
	if rep.Elsewhere > 0 {
		errs = append(errs, fmt.Errorf("experiment: %d of %d tasks under %s are running in other processes: the sweep is incomplete until they finish (run it again then)", rep.Elsewhere, rep.Total, dir))
	}
	return rep, errors.Join(errs...)
}
