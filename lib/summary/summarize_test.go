package summary_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/summary"
)

func TestSummarizeDir(t *testing.T) {
	spec := scenario.Default()
	spec.Topology = scenario.Topology{Preset: "meta32-4:1"}
	spec.Workload.Flows = 1500
	spec.Workload.Components[0].Matrix = "A"
	spec.Workload.Components[0].MaxLoad = 0.4
	sc, err := scenario.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	recs, wall := map[string][]metrics.Record{}, map[string]float64{}
	for _, name := range []string{"packetsim", "flowsim"} {
		res, err := estimator.Run(context.Background(), name, sc, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, sc.ID), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := res.Write(filepath.Join(dir, sc.ID, name+".parquet"), sc); err != nil {
			t.Fatal(err)
		}
		recs[name], wall[name] = res.Records, res.WallSeconds
	}
	rows, err := summary.SummarizeDir(dir, "packetsim", metrics.ParsimonBins(), 99, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1 (flowsim against packetsim)", len(rows))
	}
	r := rows[0]
	want := metrics.Compare(recs["flowsim"], recs["packetsim"], metrics.ParsimonBins(), 99)
	if r.Estimator != "flowsim" || r.Baseline != "packetsim" || r.ScenarioID != sc.ID || r.Flows != len(sc.Flows) {
		t.Errorf("row identity %s/%s/%s/%d", r.Estimator, r.Baseline, r.ScenarioID, r.Flows)
	}
	if math.Abs(r.P99.ErrorAll-want.ErrorAll) > 1e-12 || math.Abs(r.P99.All-want.All) > 1e-12 {
		t.Errorf("p99 error %g (p99 %g), want %g (%g)", r.P99.ErrorAll, r.P99.All, want.ErrorAll, want.All)
	}
	// The wall times come back from the run logs beside the frames (the
	// frames themselves hold none), so speed-ups can be computed.
	if r.WallSeconds != wall["flowsim"] || r.BaseWallSeconds != wall["packetsim"] || r.WallSeconds <= 0 {
		t.Errorf("wall times %g and %g s, want flowsim's %g and packetsim's %g", r.WallSeconds, r.BaseWallSeconds, wall["flowsim"], wall["packetsim"])
	}
	if r.Params.Matrix != "A" || math.Abs(r.MaxLoad-0.4) > 0.004 {
		t.Errorf("params %+v, max load %g: want matrix A at 0.4", r.Params, r.MaxLoad)
	}
	if _, err := summary.SummarizeDir(dir, "ns3", metrics.ParsimonBins(), 99, nil); err == nil {
		t.Error("no error for a baseline with no frames")
	}
}
