package experiment

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/scenario"
)

func TestTaskKeys(t *testing.T) {
	spec := scenario.Default()
	id := spec.ID()
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
				if other, _ := tc.differsOf.Key(); other == key || !strings.HasPrefix(key, id+"/packetsim@") {
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
