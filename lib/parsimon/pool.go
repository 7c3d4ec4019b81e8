package parsimon

import (
	"context"
	"fmt"
	"sort"

	"github.com/tailscope/tailscope/lib/internal/pool"
	"github.com/tailscope/tailscope/lib/progress"
)

// RunTasks runs link-level simulations on workers goroutines
// (GOMAXPROCS when workers <= 0) and returns their results in task order,
// so the outcome does not depend on the number of workers. Larger tasks
// start first, which shortens the tail of the pool. Every finished task is
// reported to p as "link sims". The first error stops the pool.
func RunTasks(ctx context.Context, tasks []*Task, backend Backend, workers int, p progress.Reporter) ([]*TaskResult, error) {
	order := make([]int, len(tasks))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return work(tasks[order[i]]) > work(tasks[order[j]]) })
	results := make([]*TaskResult, len(tasks))
	err := pool.Run(ctx, len(tasks), pool.Options{Workers: workers, Order: order, Progress: p, What: "link sims"},
		func(ctx context.Context, i int) error {
			var err error
			results[i], err = RunTask(ctx, tasks[i], backend)
			return err
		})
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("parsimon: link simulations interrupted: %w", err)
		}
		return nil, err
	}
	return results, nil
}

// work estimates a task's cost: the packets it simulates.
func work(t *Task) int64 {
	var n int64
	for _, f := range t.Flows {
		n += t.Config.Packets(f.Size)
	}
	return n
}
