package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/m3study"
	"github.com/tailscope/tailscope/lib/scenario"
)

// m3 testset -print-spec prints the scenario the set runs, and names the
// directory its results go to.
func TestPrintTestSetSpec(t *testing.T) {
	specs, err := m3study.TestSetSpecs("", 6, 500, 3)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range specs {
		var out, log bytes.Buffer
		if err := printTestSetSpec(&out, &log, k, "", len(specs), 500, 3, "res"); err != nil {
			t.Fatal(err)
		}
		got, err := scenario.Parse(&out)
		if err != nil {
			t.Fatalf("scenario %d: the printed spec does not parse: %v", k, err)
		}
		if got.ID() != want.ID() {
			t.Errorf("scenario %d: printed spec %s, the set runs %s", k, got.ID(), want.ID())
		}
		if !strings.Contains(log.String(), filepath.Join("res", want.DirName())) {
			t.Errorf("scenario %d: %q does not name its results directory", k, log.String())
		}
	}
	var out, log bytes.Buffer
	if err := printTestSetSpec(&out, &log, 6, "", 6, 500, 3, "res"); err == nil || !strings.Contains(err.Error(), "scenarios 0..5") || out.Len() > 0 {
		t.Errorf("scenario 6 of 6: %v, printed %q; want a refusal naming 0..5", err, out.String())
	}
}
