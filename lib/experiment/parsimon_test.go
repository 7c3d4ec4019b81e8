package experiment

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/scenario"
)

// Parsimon's link simulations, grouped into a few tasks that read their
// flows from input files, run through the local pool and, where Slurm is
// up, as job-array elements, and give the in-process run's estimates bit
// for bit; run again in the same directory, no task runs twice.
func TestParsimonLinks(t *testing.T) {
	spec := scenario.PFSFabric(800, 0.5, 3)
	sc, err := scenario.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, variant := range []string{"parsimon", "parsimon-c"} {
		const opts = `{"workers":1}`
		want, err := estimator.RunParsimon(context.Background(), variant, sc, opts, nil)
		if err != nil {
			t.Fatal(err)
		}
		for name, ex := range testExecutors(t) {
			t.Run(variant+"/"+name, func(t *testing.T) {
				dir := t.TempDir()
				links := parsimonLinks(dir, ex, nil, tasks(5))
				for run := 0; run < 2; run++ {
					ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
					got, err := estimator.RunParsimon(ctx, variant, sc, opts, links)
					cancel()
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(got.Records, want.Records) || got.Extra["link_sims"] != want.Extra["link_sims"] {
						t.Errorf("run %d: %s link simulations as tasks give other estimates than %s in process",
							run, got.Extra["link_sims"], want.Extra["link_sims"])
					}
				}
				// Streamed to a frame, as "tailscope run --executor" writes
				// them, the records are the same again.
				path := filepath.Join(t.TempDir(), "records.parquet")
				if _, err := estimator.StreamParsimon(context.Background(), variant, sc, opts, links, path); err != nil {
					t.Fatal(err)
				}
				if got, _, err := frame.ReadRecords(path); err != nil || !reflect.DeepEqual(got, want.Records) {
					t.Errorf("streamed records differ from the in-process run's (%v)", err)
				}
				results, _ := filepath.Glob(filepath.Join(dir, KindParsimonLinks, "*.parquet"))
				if len(results) < 5 || len(results) > 6 {
					t.Errorf("%d task results for %s link simulations cut into about 5", len(results), want.Extra["link_sims"])
				}
				if n := doneOnce(t, dir); n != len(results) {
					t.Errorf("%d tasks done over two runs, want each of %d once", n, len(results))
				}
				if left, _ := os.ReadDir(filepath.Join(dir, KindParsimonLinks, LinkInputDir)); len(left) != 0 {
					t.Errorf("%d input files left after the run", len(left))
				}
			})
		}
	}
}

// doneOnce returns how many tasks the journal under dir says were done,
// failing the test if one was done twice.
func doneOnce(t *testing.T, dir string) int {
	t.Helper()
	j, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(string(j), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "done" {
			if seen[f[1]] {
				t.Errorf("task %s done twice", f[1])
			}
			seen[f[1]] = true
		}
	}
	return len(seen)
}

// stopAfter is an executor that cancels its run once n tasks finished:
// a kill at a known point, counted in tasks instead of timed.
type stopAfter struct {
	Executor
	n      int
	cancel context.CancelFunc
}

func (s stopAfter) Execute(ctx context.Context, dir string, tasks []Task, done func(int, error)) error {
	k := 0
	return s.Executor.Execute(ctx, dir, tasks, func(i int, err error) {
		done(i, err)
		if k++; k == s.n {
			s.cancel()
		}
	})
}

// A Parsimon run through the executor stopped after its n-th link task
// keeps those tasks' results, and run again it simulates only the rest
// and gives the in-process estimates.
func TestParsimonLinksResume(t *testing.T) {
	spec := scenario.PFSFabric(800, 0.5, 4)
	sc, err := scenario.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	const opts = `{"workers":1}`
	want, err := estimator.RunParsimon(context.Background(), "parsimon", sc, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3} {
		t.Run(strings.Repeat("I", n), func(t *testing.T) {
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err := estimator.RunParsimon(ctx, "parsimon", sc, opts, parsimonLinks(dir, stopAfter{Local{Workers: 1}, n, cancel}, nil, tasks(6)))
			if err == nil {
				t.Fatal("a run stopped after its first tasks succeeded")
			}
			results, _ := filepath.Glob(filepath.Join(dir, KindParsimonLinks, "*.parquet"))
			if len(results) != n {
				t.Fatalf("%d task results kept after a stop at the %d-th", len(results), n)
			}
			got, err := estimator.RunParsimon(context.Background(), "parsimon", sc, opts, parsimonLinks(dir, Local{Workers: 2}, nil, tasks(6)))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Records, want.Records) {
				t.Error("the resumed run gives other estimates than the in-process run")
			}
			all, _ := filepath.Glob(filepath.Join(dir, KindParsimonLinks, "*.parquet"))
			if d := doneOnce(t, dir); d != len(all) || len(all) <= n {
				t.Errorf("%d tasks done over both runs, %d results", d, len(all))
			}
		})
	}
}

// A damaged input file is refused by name before any simulation.
func TestParsimonLinksDamagedInput(t *testing.T) {
	spec := scenario.PFSFabric(300, 0.5, 5)
	sc, err := scenario.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, err = estimator.RunParsimon(context.Background(), "parsimon", sc, `{"workers":1}`, parsimonLinks(dir, corrupt{Local{}}, nil, tasks(2)))
	if err == nil || !strings.Contains(err.Error(), "SHA-256") || !strings.Contains(err.Error(), linkInputExt) {
		t.Fatalf("err = %v, want the damaged input named", err)
	}
}

// corrupt flips a byte of every task's input file, then runs the tasks.
type corrupt struct{ Executor }

func (c corrupt) Execute(ctx context.Context, dir string, tasks []Task, done func(int, error)) error {
	files, _ := filepath.Glob(filepath.Join(dir, KindParsimonLinks, LinkInputDir, "*"+linkInputExt))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		b[len(b)/2] ^= 1
		if err := os.WriteFile(f, b, 0o644); err != nil {
			return err
		}
	}
	return c.Executor.Execute(ctx, dir, tasks, done)
}

// LinkBatches keeps every simulation once, largest first, and closes a
// group once it holds 1/tasks of the packets.
func TestLinkBatches(t *testing.T) {
	tests := []struct {
		name    string
		packets []int64
		tasks   int
		want    [][]int
	}{
		{"one task", []int64{3, 1, 2}, 1, [][]int{{0, 2, 1}}},
		{"one per link", []int64{3, 1, 2}, 10, [][]int{{0}, {2}, {1}}},
		// total 20, target 10: the 12 alone, then 5+3+... until 10.
		{"large link alone", []int64{1, 12, 3, 4}, 2, [][]int{{1}, {3, 2, 0}}},
		{"even", []int64{5, 5, 5, 5}, 2, [][]int{{0, 1}, {2, 3}}},
		{"ties keep order", []int64{2, 2, 2}, 3, [][]int{{0}, {1}, {2}}},
		{"none", nil, 4, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := LinkBatches(tc.packets, tc.tasks)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("LinkBatches(%v, %d) = %v, want %v", tc.packets, tc.tasks, got, tc.want)
			}
			var all []int
			for _, g := range got {
				all = append(all, g...)
			}
			slices.Sort(all)
			for i, v := range all {
				if v != i {
					t.Fatalf("groups %v do not hold every simulation once", got)
				}
			}
		})
	}
}

// tasks cuts any run into n tasks.
func tasks(n int) func(int64) int { return func(int64) int { return n } }

// The number of link tasks follows the work: one per LinkTaskPackets,
// at least one, at most LinkTasks.
func TestLinkTasks(t *testing.T) {
	for _, tc := range []struct {
		total int64
		want  int
	}{{0, 1}, {1, 1}, {LinkTaskPackets, 1}, {LinkTaskPackets + 1, 2}, {100 * LinkTaskPackets, 100}, {1000 * LinkTaskPackets, LinkTasks}} {
		if got := linkTasks(tc.total); got != tc.want {
			t.Errorf("linkTasks(%d) = %d, want %d", tc.total, got, tc.want)
		}
	}
}
