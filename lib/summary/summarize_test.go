package summary_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/frame"
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
	// Rows name the scenario beside its ID, through the frame and in tables.
	if want := "default, meta32-4:1, dctcp, load 40%"; r.Name != want {
		t.Errorf("row named %q, want %q", r.Name, want)
	}
	tab, err := summary.Table(rows)
	if err != nil {
		t.Fatal(err)
	}
	back, err := summary.Rows(tab)
	if err != nil || back[0].Name != r.Name {
		t.Errorf("name read back as %q (%v), want %q", back[0].Name, err, r.Name)
	}
	if md := summary.Markdown(summary.TopErrors(rows, "flowsim", 1)); !strings.Contains(md, sc.ID+" (default, meta32-4:1") {
		t.Errorf("top errors do not name the scenario:\n%s", md)
	}
	if r.Params.Matrix != "A" || math.Abs(r.MaxLoad-0.4) > 0.004 {
		t.Errorf("params %+v, max load %g: want matrix A at 0.4", r.Params, r.MaxLoad)
	}
	if _, err := summary.SummarizeDir(dir, "ns3", metrics.ParsimonBins(), 99, nil); err == nil {
		t.Error("no error for a baseline with no frames")
	}
}

// Counterfactuals pair by workload: an estimate in a scenario without a
// baseline is set against the one baseline of its workload under another
// network configuration; a second configuration of one estimator in a
// scenario is labelled by its file; two candidate baselines are refused,
// as is a baseline of another workload.
func TestSummarizeDirAcrossConfigurations(t *testing.T) {
	base := scenario.Default()
	base.Topology = scenario.Topology{Preset: "meta32-2:1"}
	base.Workload.Flows = 800
	other := base
	other.Network.CC = "hpcc"
	dir := t.TempDir()
	run := func(spec scenario.Spec, name, label, opts string) []metrics.Record {
		sc, err := scenario.Build(spec)
		if err != nil {
			t.Fatal(err)
		}
		res, err := estimator.Run(context.Background(), name, sc, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, sc.ID), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := res.Write(filepath.Join(dir, sc.ID, label+".parquet"), sc); err != nil {
			t.Fatal(err)
		}
		return res.Records
	}
	baseRecs := run(base, "packetsim", "packetsim", "")
	fifo := run(base, "packetsim", "packetsim@fifo", `{"host_fifo":true}`)
	hpcc := run(other, "flowsim", "flowsim", "")
	rows, err := summary.SummarizeDir(dir, "packetsim", metrics.ParsimonBins(), 99, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]metrics.Summary{}
	for _, r := range rows {
		got[r.Estimator] = r
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows %v, want packetsim@fifo and flowsim", len(rows), got)
	}
	for _, tc := range []struct {
		label, scenarioID, baseFamily string
		recs                          []metrics.Record
	}{
		{"packetsim@fifo", base.ID(), "", fifo},
		{"flowsim", other.ID(), base.FamilyID(), hpcc},
	} {
		r, ok := got[tc.label]
		want := metrics.Compare(tc.recs, baseRecs, metrics.ParsimonBins(), 99)
		if !ok || r.ScenarioID != tc.scenarioID || r.BaseFamily != tc.baseFamily || r.Baseline != "packetsim" || r.P99.ErrorAll != want.ErrorAll {
			t.Errorf("%s: row %+v, want scenario %s, baseline family %q, error %g", tc.label, r, tc.scenarioID, tc.baseFamily, want.ErrorAll)
		}
	}
	// The baseline family survives the summary frame and keeps seeds of
	// counterfactual rows apart from those of their own scenario.
	tab, err := summary.Table(rows)
	if err != nil {
		t.Fatal(err)
	}
	back, err := summary.Rows(tab)
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if back[i].BaseFamily != rows[i].BaseFamily {
			t.Errorf("row %d: baseline family %q read back as %q", i, rows[i].BaseFamily, back[i].BaseFamily)
		}
	}
	// The comparison table names the other configuration's baseline.
	if md := summary.Markdown(summary.ComparisonTable(rows)); !strings.Contains(md, "(packetsim of "+base.FamilyID()+")") {
		t.Errorf("comparison table does not name the baseline's scenario family %s:\n%s", base.FamilyID(), md)
	}
	third := base
	third.Network.CC = "dcqcn"
	run(third, "packetsim", "packetsim", "")
	if _, err := summary.SummarizeDir(dir, "packetsim", metrics.ParsimonBins(), 99, nil); err == nil || !strings.Contains(err.Error(), "2 for its workload") {
		t.Errorf("two candidate baselines: err %v", err)
	}
	reseeded := base
	reseeded.Seed++
	a, b := mustBuild(t, base), mustBuild(t, reseeded)
	res, err := estimator.Run(context.Background(), "flowsim", b, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := summary.Summarize(res.Records, meta(b, "flowsim"), baseRecs, meta(a, "packetsim"), metrics.ParsimonBins(), 99); err == nil || !strings.Contains(err.Error(), "workload differs") {
		t.Errorf("another workload's baseline: err %v", err)
	}
}

func mustBuild(t *testing.T, s scenario.Spec) *scenario.Scenario {
	sc, err := scenario.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func meta(sc *scenario.Scenario, est string) frame.Meta {
	return frame.Meta{ScenarioID: sc.ID, Estimator: est, Spec: sc.Spec.JSON()}
}
