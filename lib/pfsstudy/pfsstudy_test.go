package pfsstudy

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/pfs"
	"github.com/tailscope/tailscope/lib/scenario"
)

func TestPreset(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		load       float64
	}{{"dumbbell", "pfs-dumbbell", 0.6}, {"fabric", "pfs-fabric", 0.5}} {
		s, err := Preset(tc.name, 1000, 0, 1)
		if err != nil || s.Name != tc.spec || s.Workload.Components[0].MaxLoad != tc.load {
			t.Errorf("%s: %q at load %g (%v), want %q at %g", tc.name, s.Name, s.Workload.Components[0].MaxLoad, err, tc.spec, tc.load)
		}
	}
	if _, err := Preset("cenic", 1000, 0, 1); err == nil || !strings.Contains(err.Error(), `unknown preset "cenic"`) {
		t.Errorf("unknown preset: %v", err)
	}
}

// Curves are the paper's three sweeps; the spatio-temporal one pairs each
// temporal count with the largest spatial count.
func TestCurves(t *testing.T) {
	cs := Curves([]int{2, 4}, []int{1, 8, 4}, []int{2})
	want := []Curve{
		{"temporal", "temporal", []pfs.Options{{Temporal: 2}, {Temporal: 4}}},
		{"spatial", "spatial", []pfs.Options{{Spatial: 1}, {Spatial: 8}, {Spatial: 4}}},
		{"spatio-temporal", "temporal", []pfs.Options{{Temporal: 2, Spatial: 8}}},
	}
	if !reflect.DeepEqual(cs, want) {
		t.Errorf("curves %+v, want %+v", cs, want)
	}
}

// TestRunAndSweep decomposes a small dumbbell in this process: the pfs
// run's records cover every flow, its frames are written, and a sweep
// names its points and draws them.
func TestRunAndSweep(t *testing.T) {
	spec, err := Preset("dumbbell", 2000, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Run(context.Background(), sc, pfs.Options{Temporal: 2, Workers: 1}, nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.PFS.Records) != len(sc.Flows) || len(c.Serial.Records) != len(sc.Flows) {
		t.Errorf("%d pfs and %d serial records of %d flows", len(c.PFS.Records), len(c.Serial.Records), len(sc.Flows))
	}
	var report strings.Builder
	c.Report(&report, "inproc")
	if !strings.Contains(report.String(), "speedup") || !strings.Contains(report.String(), "p99 slowdown") {
		t.Errorf("report:\n%s", report.String())
	}
	dir := t.TempDir()
	if err := c.Write(dir); err != nil {
		t.Fatal(err)
	}
	recs, meta, err := frame.ReadRecords(filepath.Join(dir, "pfs.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(sc.Flows) || meta.Extra["temporal"] != "2" || meta.ScenarioID != sc.ID {
		t.Errorf("pfs.parquet: %d records, temporal %q, scenario %q", len(recs), meta.Extra["temporal"], meta.ScenarioID)
	}
	pts, base, err := Sweep(context.Background(), "small", sc, []pfs.Options{{Temporal: 2}, {Spatial: 2}}, 1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2 || base == nil || pts[0].Scenario != "small" || pts[1].Scenario != "small" {
		t.Fatalf("sweep: %d points, names %q", len(pts), pts[0].Scenario)
	}
	if _, err := CurveFigure("t", "temporal", pts); err != nil {
		t.Error(err)
	}
	if _, err := CurveFigure("t", "racks", pts); err == nil || !strings.Contains(err.Error(), `unknown x "racks"`) {
		t.Errorf("unknown axis: %v", err)
	}
	if _, err := ReceivedFigure("r", []string{"serial", "pfs"}, []*pfs.Series{c.Serial.Received, c.PFS.Received}); err != nil {
		t.Error(err)
	}
}
