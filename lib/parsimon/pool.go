package parsimon

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/tailscope/tailscope/lib/internal/pool"
	"github.com/tailscope/tailscope/lib/progress"
)

// RunTasks runs the link-level simulations of links on workers goroutines
// (GOMAXPROCS when workers <= 0), building each task as a worker takes it,
// and hands each result to done, one call at a time, as it finishes.
// Larger tasks start first, which shortens the tail of the pool. Every
// finished task is reported to p as "link sims". The first error stops
// the pool.
func RunTasks(ctx context.Context, links Links, backend Backend, workers int, p progress.Reporter, done func(i int, r *TaskResult) error) error {
	n := len(links.Channels)
	order, cost := make([]int, n), make([]int64, n)
	for i := range order {
		order[i], cost[i] = i, links.Packets(i)
	}
	sort.SliceStable(order, func(i, j int) bool { return cost[order[i]] > cost[order[j]] })
	var mu sync.Mutex
	err := pool.Run(ctx, n, pool.Options{Workers: workers, Order: order, Progress: p, What: "link sims"},
		func(ctx context.Context, i int) error {
			t, err := links.Task(i)
			if err != nil {
				return err
			}
			r, err := RunTask(ctx, t, backend)
			if err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			return done(i, r)
		})
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("parsimon: link simulations interrupted: %w", err)
	}
	return err
}
