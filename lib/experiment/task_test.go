package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/pfs"
	"github.com/tailscope/tailscope/lib/scenario"
)

func TestTaskKeys(t *testing.T) {
	spec := scenario.Default()
	id := spec.ID()
	// The key of a pfs chunk as tailscope wrote it when pfs-chunk was an
	// estimator: the hash of the marshalled chunk options.
	chunk, err := json.Marshal(pfs.ChunkOptions{Options: pfs.Options{Temporal: 2}, Chunk: 1})
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(chunk)
	oldChunkKey := id + "/pfs-chunk@" + hex.EncodeToString(h[:4])
	tests := []struct {
		name      string
		task      Task
		want      string // key, or "" when sameAs names the expected twin
		sameAs    *Task
		differsOf *Task
		wantErr   string
	}{
		{name: "defaults keep the run layout", task: Task{Spec: spec, Estimator: "packetsim"}, want: id + "/packetsim"},
		{name: "empty object is the defaults", task: Task{Spec: spec, Estimator: "packetsim", Options: " {} "}, want: id + "/packetsim"},
		{name: "spacing does not matter",
			task:   Task{Spec: spec, Estimator: "packetsim", Options: `{ "stop_at_ns" : 5 }`},
			sameAs: &Task{Spec: spec, Estimator: "packetsim", Options: `{"stop_at_ns":5}`}},
		{name: "options change the key",
			task:      Task{Spec: spec, Estimator: "packetsim", Options: `{"stop_at_ns":5}`},
			differsOf: &Task{Spec: spec, Estimator: "packetsim", Options: `{"stop_at_ns":6}`}},
		{name: "bad options", task: Task{Spec: spec, Estimator: "packetsim", Options: `{"stop_at_ns":`}, wantErr: "options"},
		{name: "field order does not matter",
			task:   Task{Spec: spec, Estimator: "parsimon", Options: `{"bucket_size":50,"workers":1}`},
			sameAs: &Task{Spec: spec, Estimator: "parsimon", Options: `{"workers":1,"bucket_size":50}`}},
		// Defaults are named by the estimator alone, however spelled; a
		// result of Parsimon on another backend (packetsim, the default in
		// older versions) is not this one's.
		{name: "parsimon's defaults are readable", task: Task{Spec: spec, Estimator: "parsimon"}, want: id + "/parsimon"},
		{name: "m3's defaults are readable", task: Task{Spec: spec, Estimator: "m3"}, want: id + "/m3"},
		{name: "defaults spelled out are the defaults",
			task:   Task{Spec: spec, Estimator: "parsimon", Options: `{"backend":"linksim"}`},
			sameAs: &Task{Spec: spec, Estimator: "parsimon"}},
		{name: "parsimon on another backend",
			task:      Task{Spec: spec, Estimator: "parsimon", Options: `{"backend":"packetsim"}`},
			differsOf: &Task{Spec: spec, Estimator: "parsimon"}},
		{name: "link tasks are named by their input's digest",
			task: Task{Kind: KindParsimonLinks, Options: `{ "input" : "` + strings.Repeat("ab", 32) + `" }`},
			want: KindParsimonLinks + "/" + linksKey(strings.Repeat("ab", 32))},
		{name: "link tasks name no scenario", task: Task{Spec: spec, Kind: KindParsimonLinks, Options: `{"input":"` + strings.Repeat("ab", 32) + `"}`}, wantErr: "runs no scenario"},
		{name: "link task input is a digest", task: Task{Kind: KindParsimonLinks, Options: `{"input":"../x"}`}, wantErr: "not a SHA-256 digest"},
		{name: "pfs chunks keep their keys", task: Task{Spec: spec, Kind: KindPFSChunk, Options: string(chunk)}, want: oldChunkKey},
		{name: "a kind in the estimator field, as older sweeps wrote it",
			task: Task{Spec: spec, Estimator: KindPFSChunk, Options: string(chunk)}, want: oldChunkKey},
		{name: "kind and estimator", task: Task{Spec: spec, Kind: KindPFSChunk, Estimator: "flowsim"}, wantErr: `names estimator "flowsim" too`},
		{name: "unknown kind", task: Task{Spec: spec, Kind: "flowsim"}, wantErr: `unknown task kind "flowsim"`},
		{name: "path in estimator", task: Task{Spec: spec, Estimator: "../x"}, wantErr: `bad estimator name "../x"`},
		{name: "no estimator", task: Task{Spec: spec}, wantErr: `bad estimator name ""`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key, err := tc.task.Key()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want != "" && key != tc.want {
				t.Errorf("key %q, want %q", key, tc.want)
			}
			if tc.sameAs != nil {
				if twin, _ := tc.sameAs.Key(); twin != key {
					t.Errorf("key %q, want %q", key, twin)
				}
			}
			if tc.differsOf != nil {
				if other, _ := tc.differsOf.Key(); other == key || !strings.HasPrefix(key, id+"/") || !strings.Contains(key, "@") {
					t.Errorf("keys %q and %q", key, other)
				}
			}
		})
	}
	p, err := Task{Spec: spec, Estimator: "flowsim"}.ResultPath("out")
	if want := filepath.Join("out", spec.DirName(), "flowsim.parquet"); err != nil || p != want {
		t.Errorf("result path %q, %v; want %q", p, err, want)
	}
}

// Task kinds are not estimators: estimator.Names does not list them and
// the estimator registry refuses them.
func TestKindsAreNotEstimators(t *testing.T) {
	for _, k := range Kinds() {
		if estimator.Check(k) == nil {
			t.Errorf("task kind %s is an estimator too", k)
		}
	}
	for _, n := range estimator.Names() {
		if _, ok := kinds[n]; ok {
			t.Errorf("estimator.Names lists task kind %s", n)
		}
	}
}

func TestReadJournal(t *testing.T) {
	tests := []struct {
		name    string
		journal string
		want    map[string]Cost
		wantErr string
	}{
		{name: "no journal", want: map[string]Cost{}},
		{name: "starts only", journal: "start a/packetsim\n", want: map[string]Cost{}},
		{name: "wall and CPU", journal: "start a/packetsim\ndone a/packetsim 2.500 1.250\n",
			want: map[string]Cost{"a/packetsim": {WallSeconds: 2.5, CPUSeconds: 1.25}}},
		{name: "the last run counts", journal: "done a/m3 9 8\nstart a/m3\ndone a/m3 3 2\n",
			want: map[string]Cost{"a/m3": {WallSeconds: 3, CPUSeconds: 2}}},
		{name: "lines before CPU time was recorded", journal: "done a/m3 4.000\n",
			want: map[string]Cost{"a/m3": {WallSeconds: 4, CPUSeconds: math.NaN()}}},
		{name: "bad number", journal: "done a/m3 4 x\n", wantErr: "line 1"},
		{name: "too short", journal: "start a\ndone a/m3\n", wantErr: "line 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.journal != "" {
				if err := os.WriteFile(filepath.Join(dir, JournalFile), []byte(tc.journal), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := ReadJournal(dir)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			for k, w := range tc.want {
				g := got[k]
				if g.WallSeconds != w.WallSeconds || !(g.CPUSeconds == w.CPUSeconds || math.IsNaN(g.CPUSeconds) && math.IsNaN(w.CPUSeconds)) {
					t.Errorf("%s: got %+v, want %+v", k, g, w)
				}
			}
		})
	}
}

// A streaming estimator's task writes the records the estimator returns
// when it holds them all, and the journal records the task's cost.
func TestTaskStreams(t *testing.T) {
	spec := scenario.Default()
	spec.Workload.Flows = 3000
	task := Task{Spec: spec, Estimator: "packetsim"}
	dir := t.TempDir()
	if err := task.Run(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	path, _ := task.ResultPath(dir)
	got, _, err := frame.ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	want, err := estimator.Run(context.Background(), "packetsim", sc, "")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want.Records) {
		t.Errorf("the streamed task's %d records differ from the %d of estimator.Run", len(got), len(want.Records))
	}
	costs, err := ReadJournal(dir)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := task.Key()
	if c, ok := costs[key]; !ok || !(c.WallSeconds > 0) || !(c.CPUSeconds > 0) {
		t.Errorf("journal cost of %s: %+v, %v; want positive wall and CPU seconds", key, c, ok)
	}
}

// Lines of the committed large-scale archive's journal, written when the
// keys of default options carried the hash of what they resolved to.
const archivedJournal = `done 0060716db2fb/flowsim 1.418 1.415
done 0060716db2fb/m3@0aea2d84 5.845 6.627
done 0060716db2fb/packetsim 21.203 16.135
done 0060716db2fb/parsimon-c@d2832c8a 9.045 11.210
done 0060716db2fb/parsimon@d2832c8a 9.742 12.150
`

// Journals of older keys are read under today's keys while the defaults
// resolve to what they did; a done line whose defaults hash is another's
// (m3's model retrained) is kept apart, under the key of those options;
// WriteJournal writes what ReadJournal reads back.
func TestJournalKeys(t *testing.T) {
	spec := scenario.Default()
	id := spec.ID()
	m3Key := func(opts string) string {
		k, err := Task{Spec: spec, Estimator: "m3", Options: opts}.Key()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	otherModel := `{"model":"none"}`
	tests := []struct {
		name    string
		journal string
		want    map[string]Cost
	}{
		// Parsimon's defaults have changed since (sparse links bucketed
		// with a smaller B, window_once): its archived results are kept
		// under the key of the options they were made with.
		{"archive of older keys", archivedJournal, map[string]Cost{
			"0060716db2fb/flowsim":             {1.418, 1.415},
			"0060716db2fb/m3":                  {5.845, 6.627},
			"0060716db2fb/packetsim":           {21.203, 16.135},
			"0060716db2fb/parsimon-c@d2832c8a": {9.045, 11.210},
			"0060716db2fb/parsimon@d2832c8a":   {9.742, 12.150},
		}},
		{"older key of other defaults", "done " + id + "/m3@deadbeef 1 2\n", map[string]Cost{id + "/m3@deadbeef": {1, 2}}},
		{"defaults hash of today", "done " + id + "/m3 1 2 options=0aea2d84\n", map[string]Cost{id + "/m3": {1, 2}}},
		{"defaults hash of another model", "done " + id + "/m3 1 2 options=deadbeef\n", map[string]Cost{id + "/m3@deadbeef": {1, 2}}},
		{"explicit options keep their key", "done " + m3Key(otherModel) + " 1 2\n", map[string]Cost{m3Key(otherModel): {1, 2}}},
		{"later line wins across spellings", "done " + id + "/parsimon@2138130c 1 2\ndone " + id + "/parsimon 3 4 options=2138130c\n",
			map[string]Cost{id + "/parsimon": {3, 4}}},
		{"later line wins across spellings of older defaults", "done " + id + "/parsimon@d2832c8a 1 2\ndone " + id + "/parsimon 3 4 options=d2832c8a\n",
			map[string]Cost{id + "/parsimon@d2832c8a": {3, 4}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, JournalFile), []byte(tc.journal), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadJournal(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if err := WriteJournal(dir, got); err != nil {
				t.Fatal(err)
			}
			again, err := ReadJournal(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(again, got) {
				t.Errorf("after WriteJournal: %v, want %v", again, got)
			}
		})
	}
	// Today's default keys: the hashes of what Parsimon's and m3's
	// defaults resolve to (m3's the archive's; Parsimon's changed with
	// its defaults, d2832c8a before).
	for est, old := range map[string]string{"parsimon": "@2138130c", "m3": "@0aea2d84", "flowsim": ""} {
		keys, err := Task{Spec: spec, Estimator: est}.Keys()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{id + "/" + est}
		if old != "" {
			want = append(want, id+"/"+est+old)
		}
		if !reflect.DeepEqual(keys, want) {
			t.Errorf("%s: keys %q, want %q", est, keys, want)
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, JournalFile), []byte("done "+id+"/m3 1 2 model=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadJournal(dir); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a bad fifth field: %v, want an error naming line 1", err)
	}
}

// A result an older tailscope wrote under the hashed key of default
// options is found and counts as done; one under the readable key counts
// only while the options its frame records are today's defaults (m3's
// model digest among them), and the readable file is preferred once it
// exists.
func TestResultPathOfDefaults(t *testing.T) {
	spec := scenario.Default()
	task := Task{Spec: spec, Estimator: "m3"}
	keys, err := task.Keys()
	if err != nil || len(keys) != 2 {
		t.Fatalf("keys %q, %v; want a readable and an older key", keys, err)
	}
	def, _ := defaultOptions("m3")
	write := func(t *testing.T, dir, key, opts string) string {
		t.Helper()
		path := filepath.Join(dir, filepath.FromSlash(key)+".parquet")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := frame.WriteRecords(path, nil, frame.Meta{ScenarioID: spec.ID(), Estimator: "m3", Options: opts}); err != nil {
			t.Fatal(err)
		}
		return path
	}
	retrained := strings.Replace(def, "sha256:", "sha256:00", 1)
	// Files are named by keys ("<scenario id>/<file>"), in the scenario's
	// directory of older versions, or by "<dir name>/<file>", in today's.
	named := spec.DirName() + "/m3"
	tests := []struct {
		name     string
		files    map[string]string // key -> options recorded in its frame
		wantPath string            // key of the path ResultPath gives
		wantDone bool
	}{
		{"nothing there", nil, named, false},
		{"older key", map[string]string{keys[1]: def}, keys[1], true},
		{"readable key in the older directory", map[string]string{keys[0]: def}, keys[0], true},
		{"readable key, today's model", map[string]string{named: def}, named, true},
		{"readable key, retrained model", map[string]string{named: retrained}, named, false},
		{"both: the readable one rules", map[string]string{keys[0]: retrained, keys[1]: def}, keys[0], false},
		{"today's directory rules", map[string]string{named: def, keys[1]: def}, named, true},
		{"older key of another model", map[string]string{spec.ID() + "/m3@deadbeef": retrained}, keys[0], false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for k, o := range tc.files {
				write(t, dir, k, o)
			}
			p, err := task.ResultPath(dir)
			if want := filepath.Join(dir, filepath.FromSlash(tc.wantPath)+".parquet"); err != nil || p != want {
				t.Errorf("ResultPath %q, %v; want %q", p, err, want)
			}
			done, err := task.Done(dir)
			if err != nil || done != tc.wantDone {
				t.Errorf("Done %v, %v; want %v", done, err, tc.wantDone)
			}
		})
	}
}

// A scenario's directory carries its name and key parameters before its
// ID; a directory an older tailscope named by the ID alone is resumed
// while the readable one does not exist.
func TestScenarioDir(t *testing.T) {
	spec := scenario.Default()
	spec.Name = "my run/α"
	spec.Workload.Components[0].MaxLoad = 0.3
	// Describe: "my run/α, meta32-2:1, dctcp, load 30%".
	want := "my-run-meta32-2-1-dctcp-load30pct-" + spec.ID()
	if got := spec.DirName(); got != want {
		t.Errorf("DirName %q, want %q", got, want)
	}
	if strings.ContainsAny(spec.DirName(), "/ :,α") {
		t.Errorf("DirName %q holds characters a path should not", spec.DirName())
	}
	dir := t.TempDir()
	if got := ScenarioDir(dir, spec); got != filepath.Join(dir, want) {
		t.Errorf("fresh: %q, want %q", got, filepath.Join(dir, want))
	}
	old := filepath.Join(dir, spec.ID())
	if err := os.Mkdir(old, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ScenarioDir(dir, spec); got != old {
		t.Errorf("older directory there: %q, want %q", got, old)
	}
	if err := os.Mkdir(filepath.Join(dir, want), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := ScenarioDir(dir, spec); got != filepath.Join(dir, want) {
		t.Errorf("both there: %q, want the readable one", got)
	}
}

// linksKey is the key hash of a parsimon-links task with input digest:
// the first 8 bytes of the SHA-256 of its canonical options.
func linksKey(digest string) string {
	h := sha256.Sum256([]byte(`{"input":"` + digest + `"}`))
	return hex.EncodeToString(h[:8])
}
