package ccstudy

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/cceval"
	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
)

func TestOverride(t *testing.T) {
	base := scenario.CCEvalDumbbell(400, 0.3, "webserver")
	got := Override(base, "websearch", 0.5, 100)
	c := got.Workload.Components[0]
	if c.Sizes.Dist != "websearch" || c.MaxLoad != 0.5 || got.Workload.Flows != 100 || got.Workload.DurationNs != 0 {
		t.Errorf("override: sizes %q load %g flows %d duration %d", c.Sizes.Dist, c.MaxLoad, got.Workload.Flows, got.Workload.DurationNs)
	}
	if b := base.Workload.Components[0]; b.Sizes.Dist != "webserver" || b.MaxLoad != 0.3 {
		t.Errorf("override changed its argument: %+v", b)
	}
	if same := Override(base, "", 0, 0); !reflect.DeepEqual(same, base) {
		t.Errorf("empty override changed the spec")
	}
}

// TestEstimateResumes estimates on a small dumbbell with flowsim as
// local sweep tasks, then again under the same directory: the second run
// finds every trial's result and runs none, with the same intervals, which
// are also those of the estimation in this process. The frames and
// figures are written, and an old trial journal is refused by name.
func TestEstimateResumes(t *testing.T) {
	spec := Override(Dumbbell(), "", 0, 60)
	cases := []Case{{Label: "flowsim", Spec: spec, Estimator: "flowsim"}}
	cfg := cceval.Config{Margin: 0.2, Seed: 1, Workers: 1, MaxTrials: 200, Targets: []string{"fct_p50", "fct_p99[<=1KB]"}}
	dir := t.TempDir()
	e, err := Estimate(context.Background(), cases, metrics.ParsimonBins(), cfg, experiment.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	journal := filepath.Join(dir, "flowsim", experiment.JournalFile)
	first, err := experiment.ReadJournal(filepath.Dir(journal))
	if err != nil || len(first) < len(e.Results[0].Trials) {
		t.Fatalf("%d trials done in the sweep, the estimation used %d (%v)", len(first), len(e.Results[0].Trials), err)
	}
	before, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Estimate(context.Background(), cases, metrics.ParsimonBins(), cfg, experiment.Local{}, dir)
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("the resumed estimation ran trials again:\n%s", after[len(before):])
	}
	inproc, err := Estimate(context.Background(), cases, metrics.ParsimonBins(), cfg, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range e.Results[0].Metrics {
		for _, o := range []*Estimation{again, inproc} {
			if m2 := o.Results[0].Metrics[i]; m2.Interval != m.Interval || m2.Trials != m.Trials {
				t.Errorf("%s: %v in %d trials, first %v in %d", m.Name, m2.Interval, m2.Trials, m.Interval, m.Trials)
			}
		}
	}
	var report strings.Builder
	e.Report(&report)
	if !strings.Contains(report.String(), "fct_p99[<=1KB]") {
		t.Errorf("report misses a target:\n%s", report.String())
	}
	if err := e.Write(dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"flowsim.trials.parquet", "flowsim.trace.parquet", "flowsim.trace.png", "results.parquet", "by_estimator_fct_p50.png", "by_estimator_fct_p99_le1KB.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := e.MetricFigure("fct_p90"); err == nil || !strings.Contains(err.Error(), `no metric "fct_p90"`) {
		t.Errorf("figure of a metric not estimated: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "flowsim.trials.jsonl"), []byte(`{"seed":1,"metrics":{}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Estimate(context.Background(), cases, metrics.ParsimonBins(), cfg, experiment.Local{}, dir); err == nil || !strings.Contains(err.Error(), "trial journal of an older tailscope") {
		t.Errorf("an old journal was not refused: %v", err)
	}
}

func TestEstimateRefuses(t *testing.T) {
	cases := []Case{{Label: "x", Spec: Dumbbell(), Estimator: "flowsim"}}
	for _, tc := range []struct {
		cases   []Case
		targets []string
		want    string
	}{
		{nil, []string{"fct_p99"}, "needs cases and targets"},
		{cases, nil, "needs cases and targets"},
		{cases, []string{"fct_p99x"}, `unknown metric "fct_p99x"`},
		{cases, []string{"fct_p99[<=3KB]"}, `unknown metric "fct_p99[<=3KB]"`},
	} {
		_, err := Estimate(context.Background(), tc.cases, metrics.ParsimonBins(), cceval.Config{Targets: tc.targets}, nil, "")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.targets, err, tc.want)
		}
	}
}

// The duration figure counts the trials run when a length never
// converged, as CCEval's Fig. 13 does.
func TestTrialsRun(t *testing.T) {
	conv := cceval.MetricResult{Trials: 30, Interval: cceval.Interval{N: 40}}
	never := cceval.MetricResult{Interval: cceval.Interval{N: 2000, Mean: 1, Half: math.Inf(1)}}
	if trialsRun(conv) != 30 || trialsRun(never) != 2000 {
		t.Errorf("trials run: %d and %d, want 30 and 2000", trialsRun(conv), trialsRun(never))
	}
}
