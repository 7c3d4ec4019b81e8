package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad inputs are refused before any work: the run leaves no output
// directory, so nothing was simulated.
func TestRunRefusesBadInputBeforeWork(t *testing.T) {
	dir := t.TempDir()
	// Two hosts and a switch in ns-3's topology.txt format: no racks.
	topoFile := filepath.Join(dir, "topology.txt")
	if err := os.WriteFile(topoFile, []byte("3 1 2\n2\n0 2 10Gbps 1us 0\n1 2 10Gbps 1us 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same with a rate spelled 10Gbs: refused with the spellings read.
	badRate := filepath.Join(dir, "badrate.txt")
	if err := os.WriteFile(badRate, []byte("3 1 2\n2\n0 2 10Gbs 1us 0\n1 2 10G 1us 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const small = `"flows":50},"seed":1}`
	for _, c := range []struct {
		name, spec, want string
	}{
		{"negative max_load", `{"topology":{"preset":"meta32-2:1"},"workload":{"components":[{"matrix":"B","sizes":{"dist":"webserver"},"max_load":-0.5}],` + small, "max_load"},
		{"bad size distribution", `{"topology":{"preset":"meta32-2:1"},"workload":{"components":[{"matrix":"B","sizes":{"dist":"websevrer"},"arrival":{"sigma":2},"max_load":0.5}],` + small, "websevrer"},
		{"rack matrix on a file topology", `{"topology":{"file":"` + topoFile + `"},"workload":{"components":[{"matrix":"A","sizes":{"dist":"webserver"},"arrival":{"sigma":2},"max_load":0.5}],` + small, "racks"},
		{"rate misspelled", `{"topology":{"file":"` + badRate + `"},"workload":{"components":[{"matrix":"uniform","sizes":{"dist":"webserver"},"arrival":{"sigma":2},"max_load":0.5}],` + small, "10Gb/s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := filepath.Join(t.TempDir(), "spec.json")
			if err := os.WriteFile(spec, []byte(c.spec), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, est := range []string{"packetsim", "flowsim", "packetsim,m3"} {
				out := filepath.Join(t.TempDir(), "out")
				err := runRun([]string{"--spec", spec, "--estimator", est, "--out", out})
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("%s: error %v, want one saying %q", est, err, c.want)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("%s: the run made %s before refusing: it started work (stat: %v)", est, out, err)
				}
			}
			for _, sub := range []string{"estimate", "durations"} {
				out := filepath.Join(t.TempDir(), "out")
				err := runCCEval([]string{sub, "--spec", spec, "--out", out, "--max-trials", "2"})
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("cceval %s: error %v, want one saying %q", sub, err, c.want)
				}
				if _, err := os.Stat(out); !os.IsNotExist(err) {
					t.Errorf("cceval %s made %s before refusing: it started work (stat: %v)", sub, out, err)
				}
			}
			out := filepath.Join(t.TempDir(), "out")
			err := runWhatIf([]string{"--spec", spec, "--param", "k_bytes_per_gbps", "--values", "1000,2000", "--out", out})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("whatif: error %v, want one saying %q", err, c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("whatif made %s before refusing: it started work (stat: %v)", out, err)
			}
		})
	}
}
