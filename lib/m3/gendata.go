package m3

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/tailscope/tailscope/lib/internal/pool"
	"github.com/tailscope/tailscope/lib/progress"
)

// GenOptions describe a training-data run: tasks 0..Tasks-1 drawn by
// RandomTaskIn(Space, Seed, i, Flows), of which this process runs those with
// i % Shards == Shard (a Slurm array element runs one shard) on Workers
// goroutines.
type GenOptions struct {
	Tasks, Flows  int
	Seed          uint64
	Workers       int
	Shard, Shards int
	// Space is the configuration space (Spaces; "" is "dctcp").
	Space string
	// Progress, when set, gets every finished task.
	Progress progress.Reporter
}

// TaskFile is the file task i's result is written to in a data directory.
func TaskFile(dir string, i int) string {
	return filepath.Join(dir, fmt.Sprintf("task-%06d.parquet", i))
}

// GenerateData runs the tasks of o whose result file does not exist yet in
// dir and writes one frame per task (atomically, so an interrupted run
// resumes where it stopped). It returns how many tasks it ran.
func GenerateData(dir string, o GenOptions) (int, error) {
	switch {
	case o.Tasks <= 0 || o.Flows <= 0:
		return 0, fmt.Errorf("m3: gendata needs positive tasks and flows, got %d and %d", o.Tasks, o.Flows)
	case o.Shards <= 0 || o.Shard < 0 || o.Shard >= o.Shards:
		return 0, fmt.Errorf("m3: gendata shard %d of %d is impossible", o.Shard, o.Shards)
	case o.Workers <= 0:
		return 0, fmt.Errorf("m3: gendata needs at least one worker, got %d", o.Workers)
	}
	if _, err := RandomTaskIn(o.Space, o.Seed, 0, o.Flows); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, fmt.Errorf("m3: %w", err)
	}
	var todo []int
	for i := o.Shard; i < o.Tasks; i += o.Shards {
		if _, err := os.Stat(TaskFile(dir, i)); errors.Is(err, os.ErrNotExist) {
			todo = append(todo, i)
		}
	}
	var (
		mu   sync.Mutex
		done int
	)
	err := pool.Run(context.Background(), len(todo), pool.Options{Workers: o.Workers}, func(_ context.Context, k int) error {
		i := todo[k]
		t, err := RandomTaskIn(o.Space, o.Seed, i, o.Flows)
		if err != nil {
			return err
		}
		r, err := RunTask(t)
		if err == nil {
			err = r.Write(TaskFile(dir, i))
		}
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		done++
		progress.Report(o.Progress, done, len(todo), fmt.Sprintf("task %d: %d hops, %s, %s, load %.2f: packetsim %.2f s",
			i, r.Task.Hops, r.Task.Network.CC, r.Task.Sizes.Dist, r.Task.MaxLoad, r.PacketSeconds))
		return nil
	})
	return done, err
}
