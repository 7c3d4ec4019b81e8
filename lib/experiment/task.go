package experiment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/scenario"
)

// Task is one unit of a sweep: one estimator on one scenario with given
// options. It is plain data, so that a goroutine, another process or a
// Slurm array element can run it alike.
type Task struct {
	Spec      scenario.Spec `json:"spec"`
	Estimator string        `json:"estimator"`
	// Options is the estimator's options as a JSON object, "" for its
	// defaults.
	Options string `json:"options,omitempty"`
}

// JournalFile is the file, under a sweep's directory, to which every task
// execution appends a "start <key>" line and, once its result is in place,
// a "done <key> <seconds>" line: a record of the work actually done.
const JournalFile = "journal.log"

// canonicalOptions compacts the options JSON so that spacing does not
// change a task's key; "{}" means the defaults, like "".
func canonicalOptions(opts string) (string, error) {
	opts = strings.TrimSpace(opts)
	if opts == "" {
		return "", nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(opts)); err != nil {
		return "", fmt.Errorf("experiment: options %s: %w", opts, err)
	}
	if b.String() == "{}" {
		return "", nil
	}
	return b.String(), nil
}

// Key names the task's result: "<scenario id>/<estimator>", with
// "@<hash of the options>" appended when options are set. The scenario id
// hashes the spec, so equal keys mean equal work.
func (t Task) Key() (string, error) {
	if t.Estimator == "" || strings.ContainsAny(t.Estimator, `/\@`) {
		return "", fmt.Errorf("experiment: bad estimator name %q", t.Estimator)
	}
	opts, err := canonicalOptions(t.Options)
	if err != nil {
		return "", err
	}
	key := t.Spec.ID() + "/" + t.Estimator
	if opts != "" {
		h := sha256.Sum256([]byte(opts))
		key += "@" + hex.EncodeToString(h[:4])
	}
	return key, nil
}

// ResultPath is where the task's record frame goes under dir:
// <dir>/<key>.parquet. With default options this is the layout of
// "tailscope run", <dir>/<scenario id>/<estimator>.parquet, which
// "tailscope plot summary" reads.
func (t Task) ResultPath(dir string) (string, error) {
	key, err := t.Key()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.FromSlash(key)+".parquet"), nil
}

// Done reports whether the task's result exists under dir. Results are
// renamed into place only when complete, so existence means completeness.
func (t Task) Done(dir string) (bool, error) {
	p, err := t.ResultPath(dir)
	if err != nil {
		return false, err
	}
	_, err = os.Stat(p)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// Run builds the task's scenario, runs its estimator and writes the record
// frame under dir (temporary file, then rename: killing Run at any moment
// leaves either no result or a complete one).
func (t Task) Run(ctx context.Context, dir string) error {
	key, err := t.Key()
	if err != nil {
		return err
	}
	path, err := t.ResultPath(dir)
	if err != nil {
		return err
	}
	opts, err := canonicalOptions(t.Options)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	t0 := time.Now()
	if err := journal(dir, "start "+key); err != nil {
		return err
	}
	sc, err := scenario.Build(t.Spec)
	if err != nil {
		return fmt.Errorf("experiment: %s: %w", key, err)
	}
	res, err := estimator.Run(ctx, t.Estimator, sc, opts)
	if err != nil {
		return fmt.Errorf("experiment: %s: %w", key, err)
	}
	if err := res.Write(path, sc); err != nil {
		return fmt.Errorf("experiment: %s: %w", key, err)
	}
	return journal(dir, fmt.Sprintf("done %s %.3f", key, time.Since(t0).Seconds()))
}

// journal appends one line to the sweep's journal. O_APPEND writes of a
// short line land whole even with several writers (local workers, array
// elements on one file system).
func journal(dir, line string) error {
	f, err := os.OpenFile(filepath.Join(dir, JournalFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("experiment: journal: %w", err)
	}
	_, err = f.WriteString(line + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("experiment: journal: %w", err)
	}
	return nil
}

// Tasks crosses scenarios with estimators: every estimator on every spec,
// scenario by scenario. options maps an estimator name to its options
// JSON; estimators not in it run with their defaults.
func Tasks(specs []scenario.Spec, estimators []string, options map[string]string) ([]Task, error) {
	if err := estimator.Check(estimators...); err != nil {
		return nil, fmt.Errorf("experiment: %w", err)
	}
	for e := range options {
		if estimator.Check(e) != nil {
			return nil, fmt.Errorf("experiment: options for unknown estimator %q", e)
		}
	}
	var tasks []Task
	for _, s := range specs {
		for _, e := range estimators {
			tasks = append(tasks, Task{Spec: s, Estimator: e, Options: options[e]})
		}
	}
	return tasks, nil
}
