package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/scenario"
)

// m3's training tasks run as sweep tasks (through the local pool and,
// where Slurm is up, job arrays): a rerun redoes nothing, a lost frame is
// simulated again, the frames are fresh runs of their tasks, and
// m3.LoadData reads them all.
func TestGenerateM3Data(t *testing.T) {
	o := m3.GenOptions{Tasks: 3, Flows: 60, Seed: 5}
	for name, ex := range testExecutors(t) {
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		if rep, err := GenerateM3Data(ctx, dir, o, ex, nil); err != nil || rep.Ran != 3 {
			t.Fatalf("%s: first run %+v, %v", name, rep, err)
		}
		if rep, err := GenerateM3Data(ctx, dir, o, ex, nil); err != nil || rep.Ran != 0 || rep.Skipped != 3 {
			t.Fatalf("%s: second run %+v, %v", name, rep, err)
		}
		tasks, err := M3Tasks(o)
		if err != nil {
			t.Fatal(err)
		}
		path, err := tasks[1].ResultPath(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if rep, err := GenerateM3Data(ctx, dir, o, ex, nil); err != nil || rep.Ran != 1 {
			t.Fatalf("%s: after removing one: %+v, %v", name, rep, err)
		}
		got, err := m3.ReadTaskResult(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := m3.RunTask(ctx, m3.RandomTask(5, 1, 60))
		if err != nil {
			t.Fatal(err)
		}
		got.PacketSeconds, got.FlowSeconds, want.PacketSeconds, want.FlowSeconds = 0, 0, 0, 0
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: task 1's frame is not a fresh run of task 1", name)
		}
		if ds, err := m3.LoadData([]string{dir}, 1, false); err != nil || ds.Tasks != 3 {
			t.Errorf("%s: LoadData: %v", name, err)
		}
	}
}

// An interrupted run stops with the context's error and keeps no frame
// of the task it interrupted; a directory of older task frames is refused.
func TestGenerateM3DataRefuses(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := m3.GenOptions{Tasks: 2, Flows: 60, Seed: 5}
	if _, err := GenerateM3Data(ctx, dir, o, Local{Workers: 1}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if files, err := m3.TaskFrames(dir); err != nil || len(files) != 0 {
		t.Errorf("cancelled run left %v (%v)", files, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "task-000000.parquet"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateM3Data(context.Background(), dir, o, Local{Workers: 1}, nil); err == nil {
		t.Error("a directory of older task frames: no error")
	}
}

// An m3-task names no scenario, survives the JSON a Slurm batch carries,
// and its key depends on its draw alone.
func TestM3TaskKey(t *testing.T) {
	tasks, err := M3Tasks(m3.GenOptions{Tasks: 2, Flows: 60, Seed: 5, Space: "dctcp"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(tasks[1])
	if err != nil {
		t.Fatal(err)
	}
	var back Task
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	k0, err0 := tasks[0].Key()
	k1, err1 := back.Key()
	same, err2 := Task{Kind: KindM3Task, Options: `{"index":1,"flows":60,"seed":5,"space":"dctcp"}`}.Key()
	if err := errors.Join(err0, err1, err2); err != nil {
		t.Fatal(err)
	}
	if k0 == k1 || k1 != same || filepath.Dir(k1) != KindM3Task {
		t.Errorf("keys %s, %s, %s: want distinct draws apart, equal draws alike, under %s/", k0, k1, same, KindM3Task)
	}
	withSpec := tasks[0]
	withSpec.Spec = scenario.Default()
	if _, err := withSpec.Key(); err == nil {
		t.Error("an m3-task naming a scenario: no error")
	}
	if _, err := (Task{Kind: KindM3Task, Options: `{"index":-1,"flows":60}`}).Key(); err == nil {
		t.Error("a negative task index: no error")
	}
}
