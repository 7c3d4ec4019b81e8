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
		// A result of Parsimon on another default backend (packetsim, in
		// older versions) is not this one's.
		{name: "parsimon's default backend is in the key",
			task:      Task{Spec: spec, Estimator: "parsimon"},
			sameAs:    &Task{Spec: spec, Estimator: "parsimon", Options: `{"backend":"linksim"}`},
			differsOf: &Task{Spec: spec, Estimator: "parsimon", Options: `{"backend":"packetsim"}`}},
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
	if want := filepath.Join("out", id, "flowsim.parquet"); err != nil || p != want {
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

// linksKey is the key hash of a parsimon-links task with input digest:
// the first 8 bytes of the SHA-256 of its canonical options.
func linksKey(digest string) string {
	h := sha256.Sum256([]byte(`{"input":"` + digest + `"}`))
	return hex.EncodeToString(h[:8])
}
