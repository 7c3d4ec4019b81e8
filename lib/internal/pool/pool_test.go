package pool

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tailscope/tailscope/lib/progress"
)

// Results land at their job's index whatever the workers and start order,
// no more than Workers jobs run at once, and every job reports progress.
func TestRunOrderAndLimit(t *testing.T) {
	const n = 40
	reversed := make([]int, n)
	for i := range reversed {
		reversed[i] = n - 1 - i
	}
	for _, tc := range []struct {
		workers int
		order   []int
	}{{1, nil}, {3, nil}, {8, reversed}, {0, nil}, {100, reversed}} {
		t.Run(fmt.Sprintf("workers=%d,reversed=%v", tc.workers, tc.order != nil), func(t *testing.T) {
			out := make([]int, n)
			var running, most atomic.Int32
			var reports []int
			var started []int
			var mu sync.Mutex
			err := Run(context.Background(), n, Options{Workers: tc.workers, Order: tc.order,
				Progress: progress.Func(func(done, total int, what string) {
					if total != n || what != "squares" {
						t.Errorf("report %d/%d %q", done, total, what)
					}
					reports = append(reports, done)
				}), What: "squares"},
				func(_ context.Context, i int) error {
					mu.Lock()
					started = append(started, i)
					mu.Unlock()
					r := running.Add(1)
					for m := most.Load(); r > m && !most.CompareAndSwap(m, r); m = most.Load() {
					}
					out[i] = i * i
					running.Add(-1)
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range out {
				if v != i*i {
					t.Fatalf("out[%d] = %d, want %d", i, v, i*i)
				}
			}
			if tc.workers > 0 && int(most.Load()) > tc.workers {
				t.Errorf("%d jobs ran at once, limit %d", most.Load(), tc.workers)
			}
			if tc.workers == 1 {
				want := tc.order
				if want == nil {
					for i := range n {
						want = append(want, i)
					}
				}
				if !slices.Equal(started, want) {
					t.Errorf("one worker started %v, want %v", started, want)
				}
			}
			if len(reports) != n || reports[n-1] != n || !slices.IsSorted(reports) {
				t.Errorf("progress reports %v, want 1..%d", reports, n)
			}
		})
	}
}

// The first failure cancels the others and is the error returned, not the
// cancellations it caused; with one worker no job after it starts; of two
// failures the lower-numbered one is returned.
func TestRunErrors(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		name    string
		workers int
		fail    []int
		want    string
	}{
		{"one failure, one worker", 1, []int{3}, "job 3: boom"},
		{"one failure, four workers", 4, []int{3}, "job 3: boom"},
		{"two failures, one worker", 1, []int{2, 5}, "job 2: boom"},
		{"two failures, three workers", 3, []int{1, 2}, "job 1: boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ran atomic.Int32
			err := Run(context.Background(), 20, Options{Workers: tc.workers}, func(ctx context.Context, i int) error {
				ran.Add(1)
				if slices.Contains(tc.fail, i) {
					return fmt.Errorf("job %d: %w", i, boom)
				}
				if i > tc.fail[0] {
					<-ctx.Done() // in flight when the failure comes: cancelled
					return ctx.Err()
				}
				return nil
			})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if tc.workers == 1 && int(ran.Load()) != tc.fail[0]+1 {
				t.Errorf("%d jobs ran, want %d: none after the failure", ran.Load(), tc.fail[0]+1)
			}
		})
	}
	if err := Run(context.Background(), 3, Options{Order: []int{0, 1}}, func(context.Context, int) error { return nil }); err == nil {
		t.Error("an order of 2 for 3 jobs: no error")
	}
}

// A cancelled parent ends the run with its error.
func TestRunParentCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int32
	err := Run(ctx, 50, Options{Workers: 2}, func(ctx context.Context, i int) error {
		if ran.Add(1) == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || ran.Load() >= 50 {
		t.Errorf("error %v after %d of 50 jobs, want context.Canceled before the end", err, ran.Load())
	}
}

// InOrder sees jobs in index order and its stop is the same for any
// number of workers: the first prefix whose sum reaches 100 (0+1+...+14 =
// 105). Failures of jobs past the stop do not count, even when they come
// before the stop is known.
func TestRunInOrderStop(t *testing.T) {
	for _, workers := range []int{1, 2, 7, 20} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			out := make([]int, 1000)
			var seen []int
			sum := 0
			err := Run(context.Background(), len(out), Options{Workers: workers,
				InOrder: func(i int) (bool, error) {
					seen = append(seen, i)
					sum += out[i]
					return sum >= 100, nil
				}},
				func(ctx context.Context, i int) error {
					if i >= 15 {
						return errors.New("not needed, must not count")
					}
					if i < 7 {
						// Slow, so that with 20 workers jobs past the
						// stop fail before the stop is known.
						select {
						case <-ctx.Done():
							return ctx.Err()
						case <-time.After(time.Millisecond):
						}
					}
					out[i] = i
					return nil
				})
			if err != nil {
				t.Fatal(err)
			}
			want := make([]int, 15)
			for i := range want {
				want[i] = i
			}
			if !slices.Equal(seen, want) || sum != 105 {
				t.Errorf("InOrder saw %v (sum %d), want 0..14 (sum 105)", seen, sum)
			}
		})
	}
	err := Run(context.Background(), 10, Options{Workers: 3, InOrder: func(i int) (bool, error) {
		if i == 4 {
			return false, errors.New("bad result 4")
		}
		return false, nil
	}}, func(context.Context, int) error { return nil })
	if err == nil || err.Error() != "bad result 4" {
		t.Errorf("InOrder error: %v", err)
	}
}
