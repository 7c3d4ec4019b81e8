package main

import (
	"github.com/tailscope/tailscope/lib/scenario"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run checks every estimator's options and network before the first
// runs: a refusal by the last estimator leaves no records of the first.
func TestRunChecksEveryEstimatorFirst(t *testing.T) {
	// The plain hpcc preset's 50 Mbps rate AI lies outside the embedded
	// table4-pfc model's training range (0.5-1 Gbps).
	hpcc := filepath.Join(t.TempDir(), "hpcc.json")
	if err := os.WriteFile(hpcc, []byte(`{"topology":{"preset":"meta32-2:1"},"workload":{"flows":200,"components":[{"matrix":"B","sizes":{"dist":"webserver"},"arrival":{"process":"lognormal","sigma":2},"max_load":0.5}]},"network":{"preset":"hpcc"},"seed":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		// The embedded m3 model was trained on DCTCP; the preset is HPCC.
		{"network refused", []string{"-spec", "whatif-hpcc", "-estimator", "packetsim,m3"}, "not trained on congestion control hpcc"},
		{"outside the training range", []string{"-spec", hpcc, "-estimator", "packetsim,m3", "-options", `{"m3":{"model":"table4-pfc"}}`}, "hpcc_ai_rate/1Gbps = 0.05 (from hpcc.ai_rate_bps)"},
		{"bad option", []string{"-estimator", "flowsim,packetsim", "-options", `{"packetsim":{"window_cap":true}}`}, `packetsim: bad options {"window_cap":true}`},
		{"flat options, two estimators", []string{"-estimator", "flowsim,packetsim", "-options", `{"window_cap":true}`}, `not keyed by estimator name`},
	} {
		out := filepath.Join(t.TempDir(), "out")
		err := runRun(append(c.args, "-flows", "200", "-out", out))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: the run wrote %s before failing (stat: %v)", c.name, out, err)
		}
	}
}

// An estimator given no options writes <estimator>.parquet, also where
// its defaults resolve to named choices (Parsimon's link backend); with
// options it writes <estimator>@<hash>.parquet beside it.
func TestRunNamesDefaultResults(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if err := runRun([]string{"-estimator", "packetsim,parsimon", "-flows", "100", "-out", out}); err != nil {
		t.Fatal(err)
	}
	if err := runRun([]string{"-estimator", "parsimon", "-flows", "100", "-out", out, "-options", `{"bucket_size":50}`}); err != nil {
		t.Fatal(err)
	}
	got, err := filepath.Glob(filepath.Join(out, "*", "*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got {
		names = append(names, filepath.Base(p))
	}
	if len(names) != 3 || names[0] != "packetsim.parquet" || names[1] != "parsimon.parquet" || !strings.HasPrefix(names[2], "parsimon@") {
		t.Errorf("files %q, want packetsim.parquet, parsimon.parquet and parsimon@<hash>.parquet", names)
	}
	// The directory's spec.json runs the same scenario again.
	specs, _ := filepath.Glob(filepath.Join(out, "*", "spec.json"))
	if len(specs) != 1 {
		t.Fatalf("spec files %q, want one", specs)
	}
	again := filepath.Join(t.TempDir(), "again")
	if err := runRun([]string{"-spec", specs[0], "-estimator", "flowsim", "-out", again}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(again, filepath.Base(filepath.Dir(specs[0])), "flowsim.parquet")); err != nil {
		t.Errorf("spec.json is another scenario: %v", err)
	}
}

// A run writes to the scenario's readable directory, or to the directory
// an older tailscope named by the ID alone when that one is there.
func TestRunDirectory(t *testing.T) {
	spec := scenario.Default()
	spec.Workload.Flows, spec.Workload.DurationNs = 100, 0
	for _, older := range []bool{false, true} {
		out := t.TempDir()
		want := filepath.Join(out, spec.DirName())
		if older {
			want = filepath.Join(out, spec.ID())
			if err := os.Mkdir(want, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := runRun([]string{"-estimator", "flowsim", "-flows", "100", "-out", out}); err != nil {
			t.Fatal(err)
		}
		got, _ := filepath.Glob(filepath.Join(out, "*", "flowsim.parquet"))
		if len(got) != 1 || got[0] != filepath.Join(want, "flowsim.parquet") {
			t.Errorf("older directory %v: records at %q, want %q", older, got, filepath.Join(want, "flowsim.parquet"))
		}
	}
}
