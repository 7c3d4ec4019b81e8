package experiment

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
)

// TestMain lets the test binary double as a worker: "task run ..." is a
// Slurm array element (TestSlurmSweep), and childSweepEnv set runs the
// sweep the kill test interrupts.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "task" {
		if err := WorkerMain(context.Background(), os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if dir := os.Getenv(childSweepEnv); dir != "" {
		if _, err := Sweep(context.Background(), dir, smallTasks(nil), Local{Workers: 1}, nil); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const childSweepEnv = "TAILSCOPE_EXPERIMENT_CHILD_SWEEP"

// smallTasks is a sweep of 8 small fabric scenarios (300 flows) through
// packetsim and flowsim: 16 tasks of 0.05-0.4 s each.
func smallTasks(t *testing.T) []Task {
	sp := DefaultSpace()
	sp.Flows = []int{300}
	specs, err := Sample(sp, 8, 7)
	if err == nil {
		var tasks []Task
		if tasks, err = Tasks(specs, []string{"packetsim", "flowsim"}, nil); err == nil {
			return tasks
		}
	}
	if t == nil {
		panic(err)
	}
	t.Fatal(err)
	return nil
}

// journalLines counts the journal's "start" and "done" lines per key.
func journalLines(t *testing.T, dir string) (starts, dones map[string]int) {
	t.Helper()
	starts, dones, _ = journalTakeovers(t, dir)
	return starts, dones
}

// journalTakeovers is journalLines with the keys of the tasks whose stale
// locks were taken over.
func journalTakeovers(t *testing.T, dir string) (starts, dones map[string]int, takeovers []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	starts, dones = map[string]int{}, map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "start":
			starts[f[1]]++
		case len(f) == 4 && f[0] == "done":
			dones[f[1]]++
		case len(f) > 2 && f[0] == "takeover":
			takeovers = append(takeovers, f[1])
		case line != "":
			t.Fatalf("malformed journal line %q", line)
		}
	}
	return starts, dones, takeovers
}

// sameResults checks that every task has the same records and metadata
// (wall time aside) under both directories.
func sameResults(t *testing.T, tasks []Task, dirA, dirB string) {
	t.Helper()
	for _, task := range tasks {
		pa, _ := task.ResultPath(dirA)
		pb, _ := task.ResultPath(dirB)
		ra, ma, err := frame.ReadRecords(pa)
		if err != nil {
			t.Fatal(err)
		}
		rb, mb, err := frame.ReadRecords(pb)
		if err != nil {
			t.Fatal(err)
		}
		ma.WallSeconds, mb.WallSeconds = 0, 0
		if !reflect.DeepEqual(ra, rb) || !reflect.DeepEqual(ma, mb) {
			t.Errorf("%s: results differ between %s and %s", pa, dirA, dirB)
		}
	}
}

// The sweep's results are the estimators' own results, and a second run
// finds everything done and runs nothing.
func TestSweepRunsMissingTasksOnce(t *testing.T) {
	tasks := smallTasks(t)[:6]
	dir := t.TempDir()
	var log bytes.Buffer
	rep, err := Sweep(context.Background(), dir, tasks, Local{Workers: 2}, progress.NewLine(&log, "sweep"))
	if err != nil {
		t.Fatal(err)
	}
	if rep != (Report{Total: 6, Ran: 6}) {
		t.Errorf("first run: %+v", rep)
	}
	if !strings.HasSuffix(log.String(), "sweep 6/6 done, ETA 0s\n") {
		t.Errorf("progress log %q", log.String())
	}
	// A second implementation of a task: build and run directly.
	for _, task := range tasks[:2] {
		sc, err := scenario.Build(task.Spec)
		if err != nil {
			t.Fatal(err)
		}
		want, err := estimator.Run(context.Background(), task.Estimator, sc, "")
		if err != nil {
			t.Fatal(err)
		}
		p, _ := task.ResultPath(dir)
		got, meta, err := frame.ReadRecords(p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want.Records) || meta.ScenarioID != sc.ID || meta.Estimator != task.Estimator || meta.Spec != task.Spec.JSON() {
			t.Errorf("%s: sweep result differs from a direct run (%d vs %d records, meta %+v)", p, len(got), len(want.Records), meta)
		}
	}
	rep, err = Sweep(context.Background(), dir, tasks, Local{Workers: 2}, nil)
	if err != nil || rep != (Report{Total: 6, Skipped: 6}) {
		t.Errorf("second run: %+v, %v", rep, err)
	}
	starts, dones := journalLines(t, dir)
	for _, task := range tasks {
		key, _ := task.Key()
		if starts[key] != 1 || dones[key] != 1 {
			t.Errorf("%s started %d and done %d times, want once", key, starts[key], dones[key])
		}
	}
	// Extending the sweep runs only the new tasks; one worker gives the
	// same results as two.
	// Its progress weighs the tasks by their flows.
	var w workLog
	more := smallTasks(t)[:8]
	more[7].Spec.Workload.Flows *= 3
	rep, err = Sweep(context.Background(), dir, more, Local{}, &w)
	if err != nil || rep != (Report{Total: 8, Skipped: 6, Ran: 2}) {
		t.Errorf("extended run: %+v, %v", rep, err)
	}
	flows := func(ts []Task) (n float64) {
		for _, t := range ts {
			n += float64(t.Spec.Workload.Flows)
		}
		return n
	}
	if want := [][2]float64{{flows(more[:6]), flows(more)}, {flows(more[:7]), flows(more)}, {flows(more), flows(more)}}; !reflect.DeepEqual(w, workLog(want)) {
		t.Errorf("work reported %v, want %v (flows done of all)", w, want)
	}
	serial := t.TempDir()
	if _, err := Sweep(context.Background(), serial, tasks, Local{Workers: 1}, nil); err != nil {
		t.Fatal(err)
	}
	sameResults(t, tasks, dir, serial)
}

// workLog records the work of each report.
type workLog [][2]float64

func (w *workLog) Progress(done, total int, what string) {}

func (w *workLog) ProgressWork(done, total int, work, totalWork float64, what string) {
	*w = append(*w, [2]float64{work, totalWork})
}

// A failing task is reported with its key and does not stop the others.
func TestSweepReportsFailures(t *testing.T) {
	tasks := smallTasks(t)[:3]
	tasks[1].Spec.Topology.Preset = "meta64"
	dir := t.TempDir()
	rep, err := Sweep(context.Background(), dir, tasks, Local{}, nil)
	key, _ := tasks[1].Key()
	if err == nil || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), `unknown fabric preset "meta64"`) {
		t.Errorf("err = %v, want the failing task's key and cause", err)
	}
	if rep != (Report{Total: 3, Ran: 2, Failed: 1}) {
		t.Errorf("report %+v", rep)
	}
	if done, _ := tasks[1].Done(dir); done {
		t.Error("a failed task left a result")
	}
	if _, err := Sweep(context.Background(), dir, append(tasks, tasks[0]), Local{}, nil); err == nil || !strings.Contains(err.Error(), "appears twice") {
		t.Errorf("duplicate task: err = %v", err)
	}
	if _, err := Tasks(nil, []string{"ns4"}, nil); err == nil || !strings.Contains(err.Error(), `unknown estimator "ns4"`) {
		t.Errorf("unknown estimator: err = %v", err)
	}
}

// Kill a sweep (SIGKILL, no chance to clean up) once some results exist,
// start it again: it completes with the results of an uninterrupted sweep
// and does not redo any task finished before the kill.
func TestKillAndResume(t *testing.T) {
	tasks := smallTasks(t)
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childSweepEnv+"="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		_, dones := journalLines(t, dir)
		if len(dones) >= 4 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no 4 results within a minute; child stderr: %s", stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("the sweep finished before it could be killed")
	}
	var finished []string
	for _, task := range tasks {
		if ok, err := task.Done(dir); err != nil {
			t.Fatal(err)
		} else if ok {
			key, _ := task.Key()
			finished = append(finished, key)
		}
	}
	if len(finished) < 4 || len(finished) == len(tasks) {
		t.Fatalf("%d of %d results after the kill, want some but not all", len(finished), len(tasks))
	}
	before, _ := journalLines(t, dir)

	rep, err := Sweep(context.Background(), dir, tasks, Local{Workers: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Skipped != len(finished) || rep.Ran != len(tasks)-len(finished) || rep.Failed != 0 {
		t.Errorf("resumed run %+v, want %d skipped and %d run", rep, len(finished), len(tasks)-len(finished))
	}
	// The task running when the child was killed left its lock (if the
	// kill came between tasks, none): taken over by the resumed run.
	after, dones, takeovers := journalTakeovers(t, dir)
	if len(takeovers) > 1 || len(takeovers) == 1 && slices.Contains(finished, takeovers[0]) {
		t.Errorf("stale locks taken over: %v, want at most the one task unfinished at the kill", takeovers)
	}
	for _, key := range finished {
		if after[key] != before[key] {
			t.Errorf("%s was finished before the kill but started again", key)
		}
	}
	for key, n := range dones {
		if n != 1 {
			t.Errorf("%s done %d times", key, n)
		}
	}
	if len(dones) > len(tasks) {
		t.Errorf("%d tasks done, the sweep has %d", len(dones), len(tasks))
	}
	ref := t.TempDir()
	if _, err := Sweep(context.Background(), ref, tasks, Local{Workers: 1}, nil); err != nil {
		t.Fatal(err)
	}
	sameResults(t, tasks, dir, ref)
	t.Logf("killed after %d of %d tasks; resumed run ran %d", len(finished), len(tasks), rep.Ran)
}
