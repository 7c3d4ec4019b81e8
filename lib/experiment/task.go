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
// options, or a piece of a decomposed run (Kind). It is plain data, so
// that a goroutine, another process or a Slurm array element can run it
// alike.
type Task struct {
	Spec scenario.Spec `json:"spec"`
	// Kind, when set, is the task kind to run (Kinds: "parsimon-link",
	// "pfs-chunk") instead of an estimator.
	Kind      string `json:"kind,omitempty"`
	Estimator string `json:"estimator,omitempty"`
	// Options is the estimator's or kind's options as a JSON object, ""
	// for the defaults.
	Options string `json:"options,omitempty"`
}

// work returns what the task runs, its name ("parsimon", "pfs-chunk")
// and its options' canonical JSON ("" for options that are all
// defaults). A task whose Estimator names a kind is one written by a
// tailscope in which the kinds were estimators: it runs as that kind, so
// that such sweeps resume.
func (t Task) work() (name, opts string, k *kind, err error) {
	name = t.Estimator
	if t.Kind != "" {
		if t.Estimator != "" {
			return "", "", nil, fmt.Errorf("experiment: a task of kind %q names estimator %q too", t.Kind, t.Estimator)
		}
		name = t.Kind
	}
	if kd, ok := kinds[name]; ok {
		k = &kd
		opts, err = kd.options(t.Options)
	} else if t.Kind != "" {
		return "", "", nil, fmt.Errorf("experiment: unknown task kind %q (known: %s)", t.Kind, strings.Join(Kinds(), ", "))
	} else if name == "" || strings.ContainsAny(name, `/\@`) {
		return "", "", nil, fmt.Errorf("experiment: bad estimator name %q", name)
	} else {
		opts, err = estimator.Resolve(name, t.Options)
	}
	if err != nil {
		return "", "", nil, fmt.Errorf("experiment: %s: %w", name, err)
	}
	if opts, err = canonicalOptions(opts); err != nil {
		return "", "", nil, err
	}
	return name, opts, k, nil
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

// Key names the task's result: "<scenario id>/<estimator or kind>", with
// "@<hash of the options>" appended unless the options are all defaults.
// The scenario id hashes the spec and the options are resolved as the run
// records them (estimator.Resolve: Parsimon's default backend is named,
// for one), so equal keys mean equal work, and a result made with other
// defaults by an older tailscope is not taken for this task's.
func (t Task) Key() (string, error) {
	name, opts, _, err := t.work()
	if err != nil {
		return "", err
	}
	key := t.Spec.ID() + "/" + name
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
	name, _, k, err := t.work()
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
	var res *estimator.Result
	if k != nil {
		t1 := time.Now()
		if res, err = k.run(ctx, sc, t.Options); err == nil {
			res.Estimator, res.ScenarioID, res.WallSeconds = name, sc.ID, time.Since(t1).Seconds()
		}
	} else {
		res, err = estimator.Run(ctx, name, sc, t.Options)
	}
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
