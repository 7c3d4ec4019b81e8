package dscalestudy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
)

func TestPreset(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spec   string
		floor  float64
		errSub string
	}{
		{"cenic", "dscale-cenic", 100_000, ""},
		{"fabric", "dscale-hot-fabric", 10_000, ""},
		{"dumbbell", "", 0, `unknown preset "dumbbell"`},
	} {
		spec, floor, err := Preset(tc.name, 1000, 0, 1_000_000, 1)
		if tc.errSub != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errSub) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.errSub)
			}
			continue
		}
		if err != nil || spec.Name != tc.spec || floor != tc.floor {
			t.Errorf("%s: spec %q floor %g err %v, want %q and %g", tc.name, spec.Name, floor, err, tc.spec, tc.floor)
		}
	}
}

// TestRun runs the study on a small CENIC backbone and checks that its
// frames and figures hold every system: the original, DSCALEd and one
// DSCALEs replica per alpha, each system's records written in full.
func TestRun(t *testing.T) {
	spec, floor, err := Preset("cenic", 3000, 0, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Run(context.Background(), sc, Options{Name: "cenic", Alphas: []float64{0.5}, MinQueueNs: floor})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Eval.Systems) != 3 {
		t.Fatalf("%d systems, want original, DSCALEd and one DSCALEs", len(st.Eval.Systems))
	}
	tabs := st.Tables()
	if len(tabs) != len(TableNames) {
		t.Fatalf("%d tables, %d names", len(tabs), len(TableNames))
	}
	if n := tabs[0].Len(); n != 2 {
		t.Errorf("comparison has %d rows, want one per replica (2)", n)
	}
	var report strings.Builder
	st.Report(&report)
	if !strings.Contains(report.String(), "DSCALEs a=0.5") || !strings.Contains(report.String(), "congested channels") {
		t.Errorf("report misses the replicas or the congested channels:\n%s", report.String())
	}
	dir := t.TempDir()
	if err := st.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, sys := range st.Eval.Systems {
		file := map[string]string{"original": "original", "DSCALEd": "dscaled", "DSCALEs a=0.5": "dscales-a0.5"}[sys.Name]
		recs, _, err := frame.ReadRecords(filepath.Join(dir, file+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != len(sys.Records) {
			t.Errorf("%s: %d records written, %d run", sys.Name, len(recs), len(sys.Records))
		}
	}
	for _, name := range TableNames {
		if _, err := os.Stat(filepath.Join(dir, name+".parquet")); err != nil {
			t.Error(err)
		}
	}
	if len(st.Eval.Congested) == 0 {
		t.Fatal("no congested channel on a backbone at 85% load")
	}
	if _, err := st.QueueFigure(4); err != nil {
		t.Fatal(err)
	}
	if _, err := st.FCTFigure(metrics.AllSizes(), 0); err != nil {
		t.Fatal(err)
	}
}
