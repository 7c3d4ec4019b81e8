package main

import (
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
