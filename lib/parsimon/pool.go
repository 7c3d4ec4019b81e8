package parsimon

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sort"
	"sync"
	"time"
)

// RunTasks runs link-level simulations on a pool of workers goroutines
// (runtime.NumCPU() when workers <= 0) and returns their results in task
// order, so the outcome does not depend on the number of workers. Larger
// tasks start first, which shortens the tail of the pool. When progress is
// not nil it receives lines like "link sims 120/352, ETA 3s", at most about
// one a second plus a final one. The first error stops the pool.
func RunTasks(ctx context.Context, tasks []*Task, backend Backend, workers int, progress io.Writer) ([]*TaskResult, error) {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = max(1, min(workers, len(tasks)))
	order := make([]int, len(tasks))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return work(tasks[order[i]]) > work(tasks[order[j]]) })

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make([]*TaskResult, len(tasks))
	jobs := make(chan int)
	var (
		mu       sync.Mutex
		firstErr error
		done     int
		t0       = time.Now()
		last     time.Time
	)
	report := func() {
		elapsed := time.Since(t0)
		eta := time.Duration(float64(elapsed) / float64(done) * float64(len(tasks)-done))
		fmt.Fprintf(progress, "link sims %d/%d, ETA %s\n", done, len(tasks), eta.Round(time.Second))
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				res, err := RunTask(ctx, tasks[i], backend)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
					cancel()
				}
				results[i] = res
				done++
				if progress != nil && (done == len(tasks) || time.Since(last) >= time.Second) {
					last = time.Now()
					report()
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, i := range order {
		select {
		case jobs <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("parsimon: link simulations interrupted: %w", err)
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
