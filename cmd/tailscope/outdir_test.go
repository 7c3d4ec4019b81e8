package main

import (
	"os"
	"path/filepath"
	"testing"
)

// A failed command's empty output directories go; a directory that
// existed before, or that holds a file, stays.
func TestRemoveEmptyCreated(t *testing.T) {
	root := t.TempDir()
	empty := filepath.Join(root, "a", "b", "c")
	full := filepath.Join(root, "a", "kept")
	if err := mkdirOut(empty); err != nil {
		t.Fatal(err)
	}
	if err := mkdirOut(full); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(full, "frame.parquet"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	removeEmptyCreated()
	for path, want := range map[string]bool{
		root:                          true,
		filepath.Join(root, "a"):      true, // holds kept/
		full:                          true,
		filepath.Join(root, "a", "b"): false,
		empty:                         false,
	} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", path, err == nil, want)
		}
	}
}

// A run that fails after making its output directory (a streamed
// packetsim run with an unknown option) leaves none behind.
func TestFailedRunLeavesNoDirectory(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out", "nested")
	args := []string{"--spec", "default", "--flows", "100", "--estimator", "packetsim", "--options", `{"bogus":1}`, "--out", out}
	if err := commands["run"].run(args); err == nil {
		t.Fatalf("run %v: no error", args)
	}
	if len(created) == 0 {
		t.Fatal("the run made no directory: the test no longer checks the clean-up")
	}
	removeEmptyCreated()
	if _, err := os.Stat(filepath.Dir(out)); err == nil {
		t.Errorf("failed run left %s", filepath.Dir(out))
	}
}
