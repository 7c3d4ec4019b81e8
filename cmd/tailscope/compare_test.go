package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/frame"
)

// A run then compare: the frame holds a row per estimator, bin and all.
func TestCompareAfterRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := runRun([]string{"--estimator", "packetsim,flowsim", "--flows", "100", "--out", out}); err != nil {
		t.Fatal(err)
	}
	table := filepath.Join(dir, "cmp", "compare.parquet")
	if err := runCompare([]string{out, "--baseline", "packetsim", "--bins", "1KB,10KB,50KB", "--out", table}); err != nil {
		t.Fatal(err)
	}
	tb, err := frame.ReadTable(table)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Len() != 5 { // flowsim: four bins and all
		t.Errorf("%d rows, want 5", tb.Len())
	}
	for _, bad := range [][]string{{}, {out, "--bins", "nonsense"}, {out, "--out", filepath.Join(dir, "x.csv")}} {
		if err := runCompare(bad); err == nil || strings.Contains(err.Error(), "panic") {
			t.Errorf("compare %q: %v, want a refusal", bad, err)
		}
	}
}

// A run without the baseline: compare suggests the run that adds it,
// which works as printed, and compare then succeeds.
func TestCompareSuggestsBaselineRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if err := runRun([]string{"--estimator", "flowsim", "--flows", "100", "--out", out}); err != nil {
		t.Fatal(err)
	}
	err := runCompare([]string{out})
	_, line, ok := strings.Cut(fmt.Sprint(err), "run instead:\n")
	if !ok {
		t.Fatalf("refusal %v suggests no command", err)
	}
	if err := runLine(t, strings.TrimSpace(line)); err != nil {
		t.Fatalf("suggested %q: %v", line, err)
	}
	if err := runCompare([]string{out}); err != nil {
		t.Errorf("compare after the suggested run: %v", err)
	}
}
