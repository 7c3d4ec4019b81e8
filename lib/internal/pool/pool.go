// Package pool is tailscope's one way to run independent jobs in
// parallel: a bounded number of goroutines, a context that the first
// error cancels, results that callers store by job index (so they come
// out in input order whatever the number of workers), an optional
// consumer that sees jobs in index order and may stop the run, and a
// progress report after every job.
package pool

import (
	"context"
	"errors"
	"runtime"
	"sync"

	"github.com/tailscope/tailscope/lib/progress"
)

// Options of a Run. The zero value runs jobs in index order on
// GOMAXPROCS goroutines.
type Options struct {
	// Workers is the number of goroutines; <= 0 means GOMAXPROCS.
	Workers int
	// Order is the order jobs start in, a permutation of 0..n-1 (for
	// example the largest first, which shortens the tail of the run);
	// nil means index order.
	Order []int
	// InOrder, when not nil, is called with every job's index in index
	// order, one call at a time, once the job and all before it have
	// finished without error. It returns stop true to end the run after
	// job i: no later job starts, running ones are cancelled and their
	// errors ignored. An error it returns fails job i.
	InOrder func(i int) (stop bool, err error)
	// Progress, when not nil, gets (finished jobs, n, What) after every
	// job.
	Progress progress.Reporter
	What     string
}

// Run calls job(ctx, i) for every i in [0, n). A failure of job i cancels
// the context of the running jobs numbered above i, and no job starts
// after it; the jobs below i that run finish, so Run returns the error of
// the lowest-numbered job that failed, else ctx's error if ctx ended
// before every needed job ran. After an InOrder stop at job k, jobs past
// k are cancelled and their errors ignored. With Order nil, the jobs
// below a failure have all started, so the outcome does not depend on the
// number of workers.
func Run(ctx context.Context, n int, o Options, job func(ctx context.Context, i int) error) error {
	if n <= 0 {
		return ctx.Err()
	}
	if o.Order != nil && len(o.Order) != n {
		return errors.New("pool: order does not have one entry per job")
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var (
		mu       sync.Mutex
		errs     = make([]error, n)
		finished = make([]bool, n)
		cancels  = map[int]context.CancelFunc{} // of the running jobs
		started  int
		done     int
		consumed int // InOrder has seen jobs [0, consumed)
		end      = n // jobs at or past end are not needed: the first failure, or the job after a stop
		stopped  bool
		wg       sync.WaitGroup
	)
	// cut makes jobs at or past e unneeded and cancels those running; mu
	// is held.
	cut := func(e int) {
		end = min(end, e)
		for j, c := range cancels {
			if j >= end {
				c()
			}
		}
	}
	// consume hands finished jobs to InOrder in index order; mu is held.
	consume := func() {
		for consumed < end && finished[consumed] {
			i := consumed
			consumed++
			stop, err := o.InOrder(i)
			switch {
			case err != nil:
				errs[i] = err
				cut(i)
			case stop:
				stopped = true
				cut(i + 1)
			}
		}
	}
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if end < n || ctx.Err() != nil || started == n {
					mu.Unlock()
					return
				}
				i := started
				if o.Order != nil {
					i = o.Order[started]
				}
				started++
				jctx, cancel := context.WithCancel(ctx)
				cancels[i] = cancel
				mu.Unlock()
				err := job(jctx, i)
				mu.Lock()
				cancel()
				delete(cancels, i)
				done++
				switch {
				case i >= end: // cancelled or not needed: its outcome does not count
				case err != nil:
					errs[i] = err
					cut(i)
				default:
					finished[i] = true
					if o.InOrder != nil {
						consume()
					}
				}
				progress.Report(o.Progress, done, n, o.What)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs[:end] {
		if err != nil {
			return err
		}
	}
	if stopped {
		return nil
	}
	if end < n {
		return errs[end]
	}
	return ctx.Err()
}
