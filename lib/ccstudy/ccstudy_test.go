package ccstudy

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/cceval"
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

// TestEstimateJournal estimates on a small dumbbell with flowsim twice
// under one directory: the second run reads every trial from the journal
// and gives the same intervals, and the frames and figures are written.
func TestEstimateJournal(t *testing.T) {
	spec := Override(Dumbbell(), "", 0, 60)
	cases := []Case{{Label: "flowsim", Spec: spec, Estimator: "flowsim"}}
	cfg := cceval.Config{Margin: 0.2, Seed: 1, Workers: 1, MaxTrials: 200, Targets: []string{"fct_p50", "fct_p99[<=1KB]"}}
	dir := t.TempDir()
	e, err := Estimate(context.Background(), cases, metrics.ParsimonBins(), cfg, nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	journal, err := os.ReadFile(filepath.Join(dir, "flowsim.trials.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(journal), "\n"); n != len(e.Results[0].Trials) {
		t.Errorf("journal holds %d trials, the estimation used %d", n, len(e.Results[0].Trials))
	}
	again, err := Estimate(context.Background(), cases, metrics.ParsimonBins(), cfg, nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range e.Results[0].Metrics {
		if m2 := again.Results[0].Metrics[i]; m2.Interval != m.Interval || m2.Trials != m.Trials {
			t.Errorf("%s: resumed %v in %d trials, first %v in %d", m.Name, m2.Interval, m2.Trials, m.Interval, m.Trials)
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
		{cases, []string{"fct_p99x"}, `"fct_p99x" is not a percentile`},
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
