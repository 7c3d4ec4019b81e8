package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// Slurm runs tasks as Slurm job arrays over a shared directory: it writes
// the tasks to a batch file, submits "sbatch --array", and every array
// element runs Command with "task run --batch <file> --index
// $SLURM_ARRAY_TASK_ID" appended (see RunArrayElement), writing its result
// and a status file. Execute polls the status files and squeue until the
// array is done. The results directory and Dir must be on a file system
// every node sees.
type Slurm struct {
	// Command is the worker command; default: this executable (the
	// tailscope binary, whose "task run" subcommand calls RunArrayElement).
	Command []string
	// Dir holds batch files, status files and logs; default <dir>/slurm.
	// An array's files are removed once all its elements succeeded.
	Dir string
	// Partition, when set, is passed to sbatch.
	Partition string
	// TimeLimit, when positive, limits each array element (sbatch --time,
	// whole minutes, at least one).
	TimeLimit time.Duration
	// CPUsPerTask, when positive, is passed to sbatch.
	CPUsPerTask int
	// MaxArray is the largest array submitted at once (default 1000, below
	// Slurm's default MaxArraySize of 1001); more tasks go in several
	// arrays.
	MaxArray int
	// Poll is the time between status checks (default 2 s).
	Poll time.Duration
}

// batch is what one job array's elements read: the results directory and
// their tasks, element i running Tasks[i].
type batch struct {
	Dir   string `json:"dir"`
	Tasks []Task `json:"tasks"`
}

// array is a submitted job array.
type array struct {
	job    string
	dir    string // batch directory: batch.json, job.sh, log/, status/
	first  int    // index of its first task in Execute's tasks
	n      int
	posted []bool // done called for element i
	left   int
	failed int
}

// Execute implements Executor.
func (s Slurm) Execute(ctx context.Context, dir string, tasks []Task, done func(i int, err error)) error {
	if _, err := exec.LookPath("sbatch"); err != nil {
		return errors.New("experiment: slurm: sbatch not found: install Slurm (scripts/slurm/up.sh) or use the local executor")
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	cmd := s.Command
	if len(cmd) == 0 {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("experiment: slurm: worker binary: %w", err)
		}
		cmd = []string{exe}
	}
	root := s.Dir
	if root == "" {
		root = filepath.Join(dir, "slurm")
	}
	if root, err = filepath.Abs(root); err != nil {
		return err
	}
	maxArray := s.MaxArray
	if maxArray <= 0 {
		maxArray = 1000
	}
	poll := s.Poll
	if poll <= 0 {
		poll = 2 * time.Second
	}
	stamp := time.Now().Format("20060102-150405.000")
	var arrays []*array
	cancel := func() {
		for _, a := range arrays {
			exec.Command("scancel", a.job).Run() // best effort: the jobs may be gone already
		}
	}
	for first := 0; first < len(tasks); first += maxArray {
		n := min(maxArray, len(tasks)-first)
		a := &array{dir: filepath.Join(root, fmt.Sprintf("%s-%d", stamp, first/maxArray)), first: first, n: n, posted: make([]bool, n), left: n}
		if err := s.submit(ctx, a, dir, tasks[first:first+n], cmd); err != nil {
			cancel()
			return err
		}
		arrays = append(arrays, a)
	}
	left := len(tasks)
	for left > 0 {
		select {
		case <-ctx.Done():
			cancel()
			return ctx.Err()
		case <-time.After(poll):
		}
		for _, a := range arrays {
			if a.left == 0 {
				continue
			}
			// Read the queue before the status files: an array gone from
			// the queue has written every status it ever will.
			gone, err := a.finished(ctx)
			if err != nil {
				cancel()
				return err
			}
			for i := 0; i < a.n; i++ {
				if a.posted[i] {
					continue
				}
				st, err := os.ReadFile(a.status(i))
				switch {
				case err == nil:
					terr := a.result(i, st)
					if terr != nil && !errors.Is(terr, ErrElsewhere) {
						a.failed++
					}
					a.posted[i], a.left = true, a.left-1
					left--
					done(a.first+i, terr)
				case !errors.Is(err, os.ErrNotExist):
					cancel()
					return fmt.Errorf("experiment: slurm: %w", err)
				case gone:
					a.posted[i], a.left, a.failed = true, a.left-1, a.failed+1
					left--
					done(a.first+i, fmt.Errorf("slurm job %s_%d ended without a status (killed, out of time or out of memory?)%s",
						a.job, i, logTail(a.log(i))))
				}
			}
			// An array that fully succeeded leaves only its results; a
			// failed one keeps its batch and logs for inspection.
			if a.left == 0 && a.failed == 0 {
				os.RemoveAll(a.dir)
			}
		}
	}
	return nil
}

func (a *array) status(i int) string { return filepath.Join(a.dir, "status", strconv.Itoa(i)) }

// elsewhereStatus starts the status of an element whose task another
// process was running (ErrElsewhere).
const elsewhereStatus = "elsewhere\n"

// result is the error of element i, given its status st: nil for an
// empty status, one wrapping ErrElsewhere for a task locked elsewhere.
func (a *array) result(i int, st []byte) error {
	if len(st) == 0 {
		return nil
	}
	if msg, ok := strings.CutPrefix(string(st), elsewhereStatus); ok {
		return statusError{fmt.Sprintf("slurm job %s_%d: %s", a.job, i, msg), ErrElsewhere}
	}
	return fmt.Errorf("slurm job %s_%d: %s (log %s)", a.job, i, st, a.log(i))
}

// statusError is an error read back from an element's status, wrapping
// the sentinel it was written for.
type statusError struct {
	msg string
	err error
}

func (e statusError) Error() string { return e.msg }
func (e statusError) Unwrap() error { return e.err }
func (a *array) log(i int) string   { return filepath.Join(a.dir, "log", strconv.Itoa(i)+".out") }

// submit writes the batch and its job script and submits the array.
func (s Slurm) submit(ctx context.Context, a *array, dir string, tasks []Task, cmd []string) error {
	for _, sub := range []string{"log", "status"} {
		if err := os.MkdirAll(filepath.Join(a.dir, sub), 0o755); err != nil {
			return fmt.Errorf("experiment: slurm: %w", err)
		}
	}
	b, err := json.Marshal(batch{Dir: dir, Tasks: tasks})
	if err != nil {
		return err
	}
	batchFile := filepath.Join(a.dir, "batch.json")
	if err := os.WriteFile(batchFile, b, 0o644); err != nil {
		return fmt.Errorf("experiment: slurm: %w", err)
	}
	var sh strings.Builder
	sh.WriteString("#!/bin/sh\n")
	fmt.Fprintf(&sh, "#SBATCH --job-name=tailscope\n#SBATCH --array=0-%d\n#SBATCH --output=%s\n", len(tasks)-1, filepath.Join(a.dir, "log", "%a.out"))
	fmt.Fprintf(&sh, "#SBATCH --chdir=%s\n", a.dir)
	if s.Partition != "" {
		fmt.Fprintf(&sh, "#SBATCH --partition=%s\n", s.Partition)
	}
	if s.TimeLimit > 0 {
		fmt.Fprintf(&sh, "#SBATCH --time=%d\n", max(1, int((s.TimeLimit+time.Minute-1)/time.Minute)))
	}
	if s.CPUsPerTask > 0 {
		fmt.Fprintf(&sh, "#SBATCH --cpus-per-task=%d\n", s.CPUsPerTask)
	}
	words := make([]string, 0, len(cmd)+4)
	for _, w := range append(append([]string(nil), cmd...), "task", "run", "--batch", batchFile) {
		words = append(words, shellQuote(w))
	}
	fmt.Fprintf(&sh, "exec %s --index \"$SLURM_ARRAY_TASK_ID\"\n", strings.Join(words, " "))
	script := filepath.Join(a.dir, "job.sh")
	if err := os.WriteFile(script, []byte(sh.String()), 0o755); err != nil {
		return fmt.Errorf("experiment: slurm: %w", err)
	}
	var out, stderr bytes.Buffer
	c := exec.CommandContext(ctx, "sbatch", "--parsable", script)
	c.Stdout, c.Stderr = &out, &stderr
	if err := c.Run(); err != nil {
		return fmt.Errorf("experiment: slurm: sbatch %s: %v: %s", script, err, strings.TrimSpace(stderr.String()))
	}
	// --parsable prints "jobid" or "jobid;cluster".
	a.job, _, _ = strings.Cut(strings.TrimSpace(out.String()), ";")
	if _, err := strconv.Atoi(a.job); err != nil {
		return fmt.Errorf("experiment: slurm: sbatch printed %q, not a job id", out.String())
	}
	return nil
}

// finished reports whether no element of the array is pending or running.
func (a *array) finished(ctx context.Context) (bool, error) {
	var out, stderr bytes.Buffer
	c := exec.CommandContext(ctx, "squeue", "--noheader", "--array", "--jobs", a.job, "--format", "%i")
	c.Stdout, c.Stderr = &out, &stderr
	if err := c.Run(); err != nil {
		// Once the controller purges a finished job, squeue calls its id
		// invalid.
		if strings.Contains(stderr.String(), "Invalid job id") {
			return true, nil
		}
		return false, fmt.Errorf("experiment: slurm: squeue: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(out.String()) == "", nil
}

// logTail quotes the end of an element's log for its error.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return " (no log " + path + ")"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	lines = lines[max(0, len(lines)-5):]
	return "; log " + path + ":\n  " + strings.Join(lines, "\n  ")
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// RunArrayElement runs element index of a Slurm batch file written by
// Slurm.Execute, then records its status: an empty status file on
// success, the error text otherwise (marked for a task another process is
// running: Task.Run). The status is renamed into place, so
// the poller never reads half of one. It is what "tailscope task run"
// does inside each array element.
func RunArrayElement(ctx context.Context, batchFile string, index int) error {
	raw, err := os.ReadFile(batchFile)
	if err != nil {
		return fmt.Errorf("experiment: slurm batch: %w", err)
	}
	var b batch
	if err := json.Unmarshal(raw, &b); err != nil {
		return fmt.Errorf("experiment: slurm batch %s: %w", batchFile, err)
	}
	if index < 0 || index >= len(b.Tasks) {
		return fmt.Errorf("experiment: slurm batch %s has %d tasks, no index %d", batchFile, len(b.Tasks), index)
	}
	runErr := b.Tasks[index].Run(ctx, b.Dir)
	msg := ""
	if runErr != nil {
		msg = runErr.Error()
	}
	if errors.Is(runErr, ErrElsewhere) {
		msg = elsewhereStatus + msg
	}
	status := filepath.Join(filepath.Dir(batchFile), "status", strconv.Itoa(index))
	tmp := status + ".tmp"
	if err := os.WriteFile(tmp, []byte(msg), 0o644); err != nil {
		return errors.Join(runErr, fmt.Errorf("experiment: slurm status: %w", err))
	}
	if err := os.Rename(tmp, status); err != nil {
		return errors.Join(runErr, fmt.Errorf("experiment: slurm status: %w", err))
	}
	return runErr
}

// WorkerMain is the "task" subcommand of a worker binary: "run --batch
// <file> --index <i>" runs one array element (RunArrayElement). Both the
// tailscope command and this package's tests use it as their Slurm
// worker entry point. Unless GOGC is set, it lets the heap grow to five
// times the live data between collections (GOGC=400): a worker holds one
// task's input, a few MB, and at the default GOGC=100 the collector ran
// every few MB of allocation (Parsimon's link tasks took 23% less CPU at
// 400).
func WorkerMain(ctx context.Context, args []string) error {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if len(args) == 0 || args[0] != "run" {
		return errors.New("usage: task run --batch <file> --index <i>")
	}
	fs := flag.NewFlagSet("task run", flag.ContinueOnError)
	batchFile := fs.String("batch", "", "batch file written by the Slurm executor")
	index := fs.Int("index", -1, "element to run ($SLURM_ARRAY_TASK_ID)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *batchFile == "" || *index < 0 {
		return errors.New("task run: --batch and --index are required")
	}
	return RunArrayElement(ctx, *batchFile, *index)
}
