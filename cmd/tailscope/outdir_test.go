package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tailscope/tailscope/lib/scenario"
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
// packetsim run with a finite buffer and no loss recovery, which packetsim
// refuses as it starts) leaves none behind.
func TestFailedRunLeavesNoDirectory(t *testing.T) {
	spec := scenario.Default()
	spec.Network.BufferBytes, spec.Network.DCTCP.MinRTONanos = 100_000, 0
	specPath := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(specPath, []byte(spec.JSON()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out", "nested")
	args := []string{"--spec", specPath, "--flows", "100", "--estimator", "packetsim", "--out", out}
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
