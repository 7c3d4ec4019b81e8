package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// gateKind is a task kind for these tests: a task {"gate": name} tells
// the test it started, then waits for the test to release it with an
// outcome (nil: it writes its result) or for its context to end.
const gateKind = "test-gate"

type gate struct {
	started chan struct{}
	outcome chan error
}

var (
	gatesMu sync.Mutex
	gates   = map[string]*gate{}
	runs    = map[string]int{} // tasks run, by gate name
)

// newGate registers a gated task named name and returns it with its gate.
func newGate(t *testing.T, name string) (Task, *gate) {
	t.Helper()
	if _, ok := kinds[gateKind]; !ok {
		kinds[gateKind] = kind{options: func(o string) (string, error) { return o, nil }, write: runGate}
		t.Cleanup(func() { delete(kinds, gateKind) })
	}
	g := &gate{started: make(chan struct{}, 1), outcome: make(chan error, 1)}
	gatesMu.Lock()
	gates[name], runs[name] = g, 0
	gatesMu.Unlock()
	return Task{Kind: gateKind, Options: fmt.Sprintf(`{"gate":%q}`, name)}, g
}

func runGate(ctx context.Context, opts, path string) error {
	var o struct{ Gate string }
	if err := json.Unmarshal([]byte(opts), &o); err != nil {
		return err
	}
	gatesMu.Lock()
	g := gates[o.Gate]
	runs[o.Gate]++
	gatesMu.Unlock()
	g.started <- struct{}{}
	select {
	case err := <-g.outcome:
		if err != nil {
			return err
		}
		return os.WriteFile(path, []byte("done"), 0o644)
	case <-ctx.Done():
		return ctx.Err()
	}
}

func runsOf(name string) int {
	gatesMu.Lock()
	defer gatesMu.Unlock()
	return runs[name]
}

func lockPath(t *testing.T, dir string, task Task) string {
	t.Helper()
	p, err := task.ResultPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p + ".lock"
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// Two runners on one directory: while the first runs a task, the second
// skips it (running elsewhere), runs the rest, and says the sweep is
// incomplete; the task runs once, and its lock goes when it is done.
func TestSweepTwoRunners(t *testing.T) {
	dir := t.TempDir()
	slow, g := newGate(t, "slow")
	quick, gq := newGate(t, "quick")
	gq.outcome <- nil // runs straight through
	first := make(chan error, 1)
	var firstRep Report
	go func() {
		var err error
		firstRep, err = Sweep(context.Background(), dir, []Task{slow}, Local{}, nil)
		first <- err
	}()
	<-g.started
	if !exists(lockPath(t, dir, slow)) {
		t.Fatal("no lock file while the task runs")
	}
	rep, err := Sweep(context.Background(), dir, []Task{slow, quick}, Local{}, nil)
	if !errors.Is(err, ErrElsewhere) || !strings.Contains(err.Error(), "incomplete") {
		t.Errorf("second runner: error %v, want one saying the sweep is incomplete, wrapping ErrElsewhere", err)
	}
	if want := (Report{Total: 2, Ran: 1, Elsewhere: 1}); rep != want {
		t.Errorf("second runner: report %+v, want %+v", rep, want)
	}
	g.outcome <- nil
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if want := (Report{Total: 1, Ran: 1}); firstRep != want {
		t.Errorf("first runner: report %+v, want %+v", firstRep, want)
	}
	if n := runsOf("slow"); n != 1 {
		t.Errorf("the contested task ran %d times, want 1", n)
	}
	for _, task := range []Task{slow, quick} {
		if l := lockPath(t, dir, task); exists(l) {
			t.Errorf("%s left after the task finished", l)
		}
	}
	rep, err = Sweep(context.Background(), dir, []Task{slow, quick}, Local{}, nil)
	if want := (Report{Total: 2, Skipped: 2}); err != nil || rep != want {
		t.Errorf("third run: %+v, %v; want %+v, no error", rep, err, want)
	}
}

// A task that another process finished after the caller looked (its
// result exists once Run holds the lock) is not run again.
func TestRunFinishedMeanwhile(t *testing.T) {
	dir := t.TempDir()
	task, _ := newGate(t, "finished")
	p, err := task.ResultPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("done"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := task.Run(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	if n := runsOf("finished"); n != 0 {
		t.Errorf("a finished task ran %d times", n)
	}
	if l := lockPath(t, dir, task); exists(l) {
		t.Errorf("%s left behind", l)
	}
}

// The lock goes when the task fails and when it is cancelled.
func TestLockReleased(t *testing.T) {
	for _, c := range []struct {
		name    string
		outcome error // sent to the task; nil: cancel it instead
	}{
		{"failure", errors.New("task failed on purpose")},
		{"cancel", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			task, g := newGate(t, c.name)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- task.Run(ctx, dir) }()
			<-g.started
			if !exists(lockPath(t, dir, task)) {
				t.Fatal("no lock file while the task runs")
			}
			want := context.Canceled
			if c.outcome != nil {
				g.outcome <- c.outcome
				want = c.outcome
			} else {
				cancel()
			}
			if err := <-done; !errors.Is(err, want) {
				t.Fatalf("Run: %v, want %v", err, want)
			}
			if l := lockPath(t, dir, task); exists(l) {
				t.Errorf("%s left after a %s", l, c.name)
			}
		})
	}
}

// A lock of a process gone from this host is taken over, with a line in
// the journal; a lock of a live process, of another host, or that cannot
// be read is respected.
func TestStaleLock(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip("no true(1) to get a finished process's pid:", err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	deadPid := gone.ProcessState.Pid()
	// A process killed a moment ago that its parent has not reaped yet:
	// a zombie, which answers signals.
	zombie := exec.Command("true")
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { zombie.Wait() })
	zombiePid := zombie.Process.Pid
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", zombiePid))
		if err != nil {
			t.Skip("no /proc to see process states:", err)
		}
		if strings.Contains(string(b), ") Z") {
			break
		}
		runtime.Gosched()
	}
	for _, c := range []struct {
		name     string
		lock     string
		takeover bool
	}{
		{"gone here", fmt.Sprintf("%d %s\n", deadPid, host), true},
		{"zombie here", fmt.Sprintf("%d %s\n", zombiePid, host), true},
		{"own pid, not held", fmt.Sprintf("%d %s\n", os.Getpid(), host), true},
		{"live here", fmt.Sprintf("%d %s\n", os.Getppid(), host), false},
		{"other host", fmt.Sprintf("%d %s-elsewhere\n", deadPid, host), false},
		{"unreadable", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			task, g := newGate(t, "stale "+c.name)
			g.outcome <- nil
			l := lockPath(t, dir, task)
			if err := os.MkdirAll(filepath.Dir(l), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(l, []byte(c.lock), 0o644); err != nil {
				t.Fatal(err)
			}
			err := task.Run(context.Background(), dir)
			journal, _ := os.ReadFile(filepath.Join(dir, JournalFile))
			if !c.takeover {
				if !errors.Is(err, ErrElsewhere) || !strings.Contains(err.Error(), l) {
					t.Errorf("Run: %v, want an error naming %s, wrapping ErrElsewhere", err, l)
				}
				if got, _ := os.ReadFile(l); string(got) != c.lock {
					t.Errorf("the lock now holds %q, want %q untouched", got, c.lock)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pid := strings.Fields(c.lock)[0]; !strings.Contains(string(journal), "takeover") || !strings.Contains(string(journal), "pid "+pid+" ") {
				t.Errorf("journal %q has no takeover line naming pid %s", journal, pid)
			}
			if exists(l) {
				t.Errorf("%s left after the task finished", l)
			}
			if n := runsOf("stale " + c.name); n != 1 {
				t.Errorf("ran %d times, want 1", n)
			}
		})
	}
}

// A Slurm element that finds its task locked writes a status the poller
// reads back as ErrElsewhere, not as a failure.
func TestSlurmStatusElsewhere(t *testing.T) {
	dir := t.TempDir()
	task, g := newGate(t, "slurm")
	g.outcome <- nil
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	l := lockPath(t, dir, task)
	if err := os.MkdirAll(filepath.Dir(l), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(l, []byte(fmt.Sprintf("%d %s\n", os.Getppid(), host)), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &array{dir: filepath.Join(dir, "slurm", "a"), job: "7", n: 1}
	if err := os.MkdirAll(filepath.Join(a.dir, "status"), 0o755); err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(batch{Dir: dir, Tasks: []Task{task}})
	if err != nil {
		t.Fatal(err)
	}
	bf := filepath.Join(a.dir, "batch.json")
	if err := os.WriteFile(bf, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RunArrayElement(context.Background(), bf, 0); !errors.Is(err, ErrElsewhere) {
		t.Fatalf("RunArrayElement: %v, want ErrElsewhere", err)
	}
	st, err := os.ReadFile(a.status(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.result(0, st); !errors.Is(err, ErrElsewhere) || !strings.Contains(err.Error(), l) {
		t.Errorf("status read back as %v, want ErrElsewhere naming %s", err, l)
	}
	if err := a.result(0, []byte("boom")); err == nil || errors.Is(err, ErrElsewhere) {
		t.Errorf("a failure's status read back as %v", err)
	}
}

// A lock appears with its holder already in it (never empty, whatever
// moment a kill comes), exclusively, and leaves no file of its own beside.
func TestCreateLock(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "r.parquet.lock")
	first, second := holder{101, "a"}, holder{202, "b"}
	if err := create(lock, first); err != nil {
		t.Fatal(err)
	}
	if err := create(lock, second); !errors.Is(err, os.ErrExist) {
		t.Errorf("second create: %v, want ErrExist", err)
	}
	if h, err := readLock(lock); err != nil || h != first {
		t.Errorf("lock holds %v (%v), want %v", h, err, first)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files beside the lock, want none: %v", len(ents)-1, ents)
	}
}
