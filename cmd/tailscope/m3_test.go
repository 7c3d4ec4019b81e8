package main

import (
	"strings"
	"testing"
)

// The data manifest keeps the commit that started a data set, grows with
// larger task counts and refuses another seed or flow count.
func TestManifest(t *testing.T) {
	dir := t.TempDir()
	steps := []struct {
		in      dataManifest
		want    dataManifest
		wantErr string
	}{
		{dataManifest{Tasks: 10, Flows: 400, Seed: 1, GitCommit: "a"}, dataManifest{10, 400, 1, "", "a"}, ""},
		{dataManifest{Tasks: 30, Flows: 400, Seed: 1, GitCommit: "b"}, dataManifest{30, 400, 1, "", "a"}, ""},
		{dataManifest{Tasks: 20, Flows: 400, Seed: 1, GitCommit: "c"}, dataManifest{30, 400, 1, "", "a"}, ""},
		{dataManifest{Tasks: 30, Flows: 400, Seed: 2}, dataManifest{30, 400, 1, "", "a"}, "seed 1 with 400 flows"},
		{dataManifest{Tasks: 30, Flows: 500, Seed: 1}, dataManifest{30, 400, 1, "", "a"}, "asked for seed 1 with 500"},
		{dataManifest{Tasks: 30, Flows: 400, Seed: 1, Space: "table4"}, dataManifest{30, 400, 1, "", "a"}, `in space ""; asked for seed 1 with 400 in "table4"`},
	}
	for i, s := range steps {
		err := writeManifest(dir, s.in)
		if (err == nil) != (s.wantErr == "") || (err != nil && !strings.Contains(err.Error(), s.wantErr)) {
			t.Fatalf("step %d: err = %v, want %q", i, err, s.wantErr)
		}
		got, err := readManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got != s.want {
			t.Errorf("step %d: manifest %+v, want %+v", i, got, s.want)
		}
	}
}
