package experiment

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tailscope/tailscope/internal/cputime"
	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
)

// Task is one unit of a sweep: one estimator on one scenario with given
// options, or work of another kind (Kind: a piece of a decomposed run, an
// m3 training task). It is plain data, so
// that a goroutine, another process or a Slurm array element can run it
// alike.
type Task struct {
	Spec scenario.Spec `json:"spec"`
	// Kind, when set, is the task kind to run (Kinds: "m3-task",
	// "parsimon-links", "pfs-chunk") instead of an estimator.
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
		if kd.write != nil && !reflect.ValueOf(t.Spec).IsZero() {
			return "", "", nil, fmt.Errorf("experiment: a task of kind %q runs no scenario, but names one", name)
		}
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
// a "done <key> <wall seconds> <CPU seconds>" line: a record of the work
// actually done and what it cost (ReadJournal). A "takeover <key> ..."
// line says a run took over the lock a killed process left (Task.Run).
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
// "@<hash of the options>" appended unless the options resolve to the
// estimator's defaults. Options are resolved as the run records them
// (estimator.Resolve: Parsimon's default backend is named, m3's model is
// pinned by its digest), so equal keys of non-default options mean equal
// work; a result under a key without a hash records in its frame (and
// the journal in its done line) what the defaults were, and is not taken
// for this task's when they have changed since (Done). A task of a kind
// that needs no scenario (KindM3Task) has the zero Spec and the key
// "<kind>/<longer hash of the options>": many such tasks share a
// directory.
func (t Task) Key() (string, error) {
	keys, err := t.Keys()
	if err != nil {
		return "", err
	}
	return keys[0], nil
}

// Keys lists the keys under which the task's result may be found: Key
// first and, for an estimator whose default options resolve to something
// (Parsimon, m3), the key an older tailscope gave those defaults,
// "<scenario id>/<estimator>@<hash of the resolved defaults>". The hash
// covers what the defaults resolved to (m3's model digest), so a result
// under the older key is reused only while the defaults are still those.
func (t Task) Keys() ([]string, error) {
	name, opts, k, err := t.work()
	if err != nil {
		return nil, err
	}
	if k != nil && k.write != nil {
		h := sha256.Sum256([]byte(opts))
		return []string{name + "/" + hex.EncodeToString(h[:8])}, nil
	}
	key := t.Spec.ID() + "/" + name
	if opts == "" {
		return []string{key}, nil
	}
	hashed := key + "@" + optionsHash(opts)
	if k == nil {
		hashed = key + "@" + optionsHash(estimator.KeyOptions(name, opts))
		if def, ok := defaultOptions(name); ok && def == opts {
			return []string{key, hashed}, nil
		}
	}
	return []string{hashed}, nil
}

// optionsHash is the short hash of canonical options JSON that keys name
// options by.
func optionsHash(opts string) string {
	h := sha256.Sum256([]byte(opts))
	return hex.EncodeToString(h[:4])
}

// defaultOptions returns the canonical options estimator name's defaults
// resolve to ("" for none); ok is false for a name that is no estimator
// or whose defaults do not resolve here.
func defaultOptions(name string) (opts string, ok bool) {
	if estimator.Check(name) != nil {
		return "", false
	}
	opts, err := estimator.Resolve(name, "")
	if err != nil {
		return "", false
	}
	if opts, err = canonicalOptions(opts); err != nil {
		return "", false
	}
	return opts, true
}

// ResultPath is where the task's record frame is under dir: for a task
// on a scenario, <scenario directory>/<estimator>[@<options hash>].parquet
// in the scenario's directory (ScenarioDir), the file name being the
// key's part after the scenario ID; for a task of a kind that runs no
// scenario, <dir>/<key>.parquet. While the file of today's key does not
// exist, the file an older tailscope wrote under the task's older key
// (Keys) is found instead, so that sweeps finished before keys of
// default options became readable are still resumed. With default
// options this is the layout of "tailscope run",
// <dir>/<scenario directory>/<estimator>.parquet, which "tailscope plot
// summary" and "tailscope compare" read.
func (t Task) ResultPath(dir string) (string, error) {
	keys, err := t.Keys()
	if err != nil {
		return "", err
	}
	if _, _, k, _ := t.work(); k != nil && k.write != nil {
		return filepath.Join(dir, filepath.FromSlash(keys[0])+".parquet"), nil
	}
	sd := ScenarioDir(dir, t.Spec)
	file := func(key string) string { return filepath.Join(sd, key[strings.LastIndexByte(key, '/')+1:]+".parquet") }
	path := file(keys[0])
	if len(keys) > 1 {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			if old := file(keys[1]); pathExists(old) {
				return old, nil
			}
		}
	}
	return path, nil
}

// ScenarioDir is the directory of spec's results under dir:
// <dir>/<spec.DirName()>, the scenario's name and key parameters before
// its ID, or <dir>/<scenario id>, the name older versions of tailscope
// gave it, while only that one exists: a sweep or run begun by one of
// them resumes in its own directory.
func ScenarioDir(dir string, spec scenario.Spec) string {
	named := filepath.Join(dir, spec.DirName())
	if old := filepath.Join(dir, spec.ID()); !pathExists(named) && pathExists(old) {
		return old
	}
	return named
}

// pathExists reports whether path exists (an error other than its absence
// counts as existence: the caller's use of the path then reports it).
func pathExists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}

// Records reads the record frame of the task, finished under dir, with
// its metadata.
func (t Task) Records(dir string) ([]metrics.Record, frame.Meta, error) {
	path, err := t.ResultPath(dir)
	if err != nil {
		return nil, frame.Meta{}, err
	}
	return frame.ReadRecords(path)
}

// Done reports whether the task's result exists under dir. Results are
// renamed into place only when complete, so existence means completeness.
// A result under a key without a hash (Key) counts only if the options
// its frame records are what the task's resolve to now: after m3's model
// is retrained or Parsimon's default backend changes, the task is not
// done.
func (t Task) Done(dir string) (bool, error) {
	p, err := t.ResultPath(dir)
	if err != nil {
		return false, err
	}
	_, err = os.Stat(p)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	stale, err := t.stale(p)
	return !stale && err == nil, err
}

// stale reports whether the result at path, under a key without a hash,
// was made with options other than those the task's resolve to now.
func (t Task) stale(path string) (bool, error) {
	keys, err := t.Keys()
	if err != nil || len(keys) < 2 || filepath.Base(path) != keys[0][strings.LastIndexByte(keys[0], '/')+1:]+".parquet" {
		return false, err
	}
	_, opts, _, err := t.work()
	if err != nil {
		return false, err
	}
	m, err := frame.ReadMeta(path)
	if err != nil {
		return false, fmt.Errorf("experiment: %w", err)
	}
	got, err := canonicalOptions(m.Options)
	if err != nil {
		return true, nil
	}
	return got != opts, nil
}

// Run builds the task's scenario, runs its estimator and writes the record
// frame under dir (temporary file, then rename: killing Run at any moment
// leaves either no result or a complete one). An estimator writes its
// records as they are produced (estimator.Stream), and one that streams
// (estimator.Streams) also takes the flows as they are drawn, so that a
// task of millions of flows holds neither in memory. The journal's done line carries the process's CPU
// time over the task, the task's own when tasks run one at a time.
//
// Run holds the task's lock, <result>.lock, while it works, so that two
// processes sharing dir (two sweeps over parts of one directory, Slurm
// elements on a shared file system) never run one task at once: a task
// locked by a live process is left to it, and Run returns an error
// wrapping ErrElsewhere. A lock left by a process gone from this host is
// taken over, saying so on stderr and in the journal. The lock goes when
// Run returns, whether the task succeeded, failed or was cancelled; a
// task another process finished meanwhile is not run again.
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
	release, takeover, err := lockTask(path)
	if err != nil {
		return fmt.Errorf("experiment: %s: %w", key, err)
	}
	defer release()
	if takeover != "" {
		fmt.Fprintf(os.Stderr, "experiment: %s: %s\n", key, takeover)
		if err := journal(dir, "takeover "+key+" "+takeover); err != nil {
			return err
		}
	}
	// Another process may have finished it since the caller looked.
	if ok, err := t.Done(dir); ok || err != nil {
		return err
	}
	if _, err := os.Stat(path); err == nil {
		fmt.Fprintf(os.Stderr, "experiment: %s: the result there was made with other default options; running again\n", key)
	}
	t0, cpu0 := time.Now(), cputime.Used()
	if err := journal(dir, "start "+key); err != nil {
		return err
	}
	if err := t.run(ctx, path, name, k); err != nil {
		return fmt.Errorf("experiment: %s: %w", key, err)
	}
	return journal(dir, doneLine(key, Cost{time.Since(t0).Seconds(), (cputime.Used() - cpu0).Seconds()}))
}

// run runs the task's estimator (name) or kind (k) and writes its frame
// at path.
func (t Task) run(ctx context.Context, path, name string, k *kind) error {
	if k != nil && k.write != nil {
		return k.write(ctx, t.Options, path)
	}
	if k == nil {
		build := scenario.Build
		if estimator.Streams(name) {
			build = scenario.BuildNet
		}
		sc, err := build(t.Spec)
		if err != nil {
			return err
		}
		// A task is a measurement, its records set against a baseline's:
		// it answers where the accuracy atlas would make the estimator
		// refuse, and its frame says so. Commands that answer users
		// check estimator.Answers before they make tasks (whatif).
		_, err = estimator.Stream(estimator.Measuring(ctx), name, sc, t.Options, path)
		return err
	}
	sc, err := scenario.Build(t.Spec)
	if err != nil {
		return err
	}
	t1 := time.Now()
	res, err := k.run(ctx, sc, t.Options)
	if err != nil {
		return err
	}
	res.Estimator, res.ScenarioID, res.WallSeconds = name, sc.ID, time.Since(t1).Seconds()
	return res.Write(path, sc)
}

// Cost is what a task's last execution cost, from the journal.
type Cost struct {
	WallSeconds float64
	// CPUSeconds is the process's CPU time over the task: the task's own
	// when tasks run one at a time (Local with one worker, Slurm); NaN
	// for journal lines written before CPU time was recorded.
	CPUSeconds float64
}

// ReadJournal returns the cost of every task done under dir by key (see
// Task.Key), from the journal's last done line of each; a sweep without a
// journal has none. A done line of a key without a hash carries the hash
// of the options the defaults resolved to ("options=<hash>"): when they
// resolve to others now (m3's model retrained), the cost is returned
// under "<key>@<hash>", the key of those options, not under the key of
// today's defaults. A line an older tailscope wrote with the hash in its
// key is returned under the key without it when that hash is today's
// defaults', so such a journal (a committed archive) is recognised as it
// stands.
func ReadJournal(dir string) (map[string]Cost, error) {
	b, err := os.ReadFile(filepath.Join(dir, JournalFile))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Cost{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("experiment: journal: %w", err)
	}
	costs := map[string]Cost{}
	defaults := map[string]string{} // estimator -> hash of its resolved defaults, "" for none
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "done" {
			continue
		}
		c := Cost{CPUSeconds: math.NaN()}
		hash := ""
		var perr error
		switch len(f) {
		case 5:
			var ok bool
			if hash, ok = strings.CutPrefix(f[4], optionsField); !ok || hash == "" || strings.Contains(f[1], "@") {
				perr = fmt.Errorf("want %s<hash> after the CPU seconds, on a key without one", optionsField)
			}
			fallthrough
		case 4:
			var cerr error
			c.CPUSeconds, cerr = strconv.ParseFloat(f[3], 64)
			perr = errors.Join(perr, cerr)
			fallthrough
		case 3:
			var werr error
			c.WallSeconds, werr = strconv.ParseFloat(f[2], 64)
			perr = errors.Join(perr, werr)
		default:
			perr = errors.New("want done, key, wall and CPU seconds and, for default options, their hash")
		}
		if perr != nil {
			return nil, fmt.Errorf("experiment: %s line %d %q: %w", filepath.Join(dir, JournalFile), i+1, line, perr)
		}
		costs[journalKey(f[1], hash, defaults)] = c
	}
	return costs, nil
}

// optionsField prefixes the hash of resolved default options in a done
// line.
const optionsField = "options="

// journalKey is the key under which ReadJournal returns a done line's
// cost: key as written, with the hash of the options it names (in the
// key, or hash from the line) dropped when it is the hash of today's
// defaults of its estimator and appended when it is not. defaults caches
// those hashes by estimator.
func journalKey(key, hash string, defaults map[string]string) string {
	base, name := key, key[strings.LastIndexByte(key, '/')+1:]
	if n, h, ok := strings.Cut(name, "@"); ok {
		base, name, hash = strings.TrimSuffix(key, "@"+h), n, h
	}
	if hash == "" {
		return key
	}
	def, seen := defaults[name]
	if !seen {
		if opts, ok := defaultOptions(name); ok && opts != "" {
			def = optionsHash(opts)
		}
		defaults[name] = def
	}
	if def == hash {
		return base
	}
	return base + "@" + hash
}

// doneLine is the journal's done line of the task key and its cost, with
// the hash of today's default options where key names them without one.
func doneLine(key string, c Cost) string {
	line := fmt.Sprintf("done %s %.3f %.3f", key, c.WallSeconds, c.CPUSeconds)
	if name := key[strings.LastIndexByte(key, '/')+1:]; !strings.Contains(name, "@") {
		if opts, ok := defaultOptions(name); ok && opts != "" {
			line += " " + optionsField + optionsHash(opts)
		}
	}
	return line
}

// WriteJournal writes a journal holding one done line per key of costs,
// in key order, to dir, replacing any journal there (a temporary file
// renamed into place): the record of tasks whose results are kept
// elsewhere, such as an archive of their summaries, read back by
// ReadJournal. Keys as ReadJournal returns them are written so that it
// returns them alike.
func WriteJournal(dir string, costs map[string]Cost) error {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(costs)) {
		b.WriteString(doneLine(k, costs[k]) + "\n")
	}
	path := filepath.Join(dir, JournalFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("experiment: journal: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("experiment: journal: %w", err)
	}
	return nil
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
