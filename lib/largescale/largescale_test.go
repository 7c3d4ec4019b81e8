package largescale

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
)

// tiny is a scale small enough for unit tests: every scenario has
// MinFlows flows, and the sensitivity analysis one scenario.
var tiny = Scale{Name: "test", Fraction: 1e-6, Scenarios: 1, Seeds: 2}

func TestScales(t *testing.T) {
	tests := []struct {
		name    string
		scale   Scale
		flows   int // of the Parsimon case
		wantErr string
	}{
		{name: "ci", scale: mustScale(t, "ci"), flows: 11_400},
		{name: "mid", scale: mustScale(t, "mid"), flows: 1_140_000},
		{name: "paper", scale: mustScale(t, "paper"), flows: 11_400_000},
		{name: "floor", scale: tiny, flows: MinFlows},
		{name: "zero fraction", scale: Scale{Name: "x", Scenarios: 1, Seeds: 1}, wantErr: "fraction 0"},
		{name: "no seeds", scale: Scale{Name: "x", Fraction: 0.5, Scenarios: 1}, wantErr: "at least one"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cases, err := Cases(tc.scale, Parts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(cases) != 1+len(M3Rows) {
				t.Fatalf("%d cases, want %d", len(cases), 1+len(M3Rows))
			}
			if got := cases[0].Spec.Workload.Flows; got != tc.flows {
				t.Errorf("Parsimon case: %d flows, want %d", got, tc.flows)
			}
			// §5.2 is m3 §5.3's 50% scenario, so the parts share its tasks.
			if p, m := cases[0].Spec.ID(), cases[1+ParsimonRow].Spec.ID(); p != m || cases[1+ParsimonRow].Load != 0.5 {
				t.Errorf("Parsimon case %s is not m3's 50%% case %s", p, m)
			}
			for i, r := range M3Rows {
				c := cases[1+i]
				if c.Load != r.Load || c.Spec.Workload.Components[0].MaxLoad != r.Load || c.Spec.Workload.Flows != tc.scale.Flows(r.Flows) {
					t.Errorf("m3 case %d: load %g, %d flows; want %g, %d", i, c.Load, c.Spec.Workload.Flows, r.Load, tc.scale.Flows(r.Flows))
				}
			}
		})
	}
	if _, err := ScaleByName("huge"); err == nil || !strings.Contains(err.Error(), "ci, mid, paper") {
		t.Errorf("unknown scale: err = %v", err)
	}
	if _, err := Cases(tiny, []string{"m4"}); err == nil || !strings.Contains(err.Error(), `unknown part "m4"`) {
		t.Errorf("unknown part: err = %v", err)
	}
}

func mustScale(t *testing.T, name string) Scale {
	t.Helper()
	s, err := ScaleByName(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The whole study at the smallest size: every task runs, every table and
// figure is made, and the errors agree with metrics.Compare on the frames.
func TestStudyEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every estimator")
	}
	dir := t.TempDir()
	if err := Run(context.Background(), dir, "", tiny, Parts, experiment.Local{}, nil); err != nil {
		t.Fatal(err)
	}
	r, err := LoadResults(dir, "", tiny, Parts)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Outcomes) != 1+len(M3Rows) {
		t.Fatalf("%d outcomes, want %d", len(r.Outcomes), 1+len(M3Rows))
	}
	for _, o := range r.Outcomes {
		base, _, err := frame.ReadRecords(resultPath(t, dir, o.Case, Baseline))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range o.Case.Estimators {
			e := o.Estimates[name]
			if e == nil {
				t.Fatalf("%s: no %s estimate", o.Case.Name(), name)
			}
			if e.Flows != o.Case.Spec.Workload.Flows {
				t.Errorf("%s, %s: %d flows, want %d", o.Case.Name(), name, e.Flows, o.Case.Spec.Workload.Flows)
			}
			recs, _, err := frame.ReadRecords(resultPath(t, dir, o.Case, name))
			if err != nil {
				t.Fatal(err)
			}
			want := metrics.Compare(recs, base, Bins(), 99)
			if got := o.P99Error(name); !near(got, want.ErrorAll) {
				t.Errorf("%s, %s: p99 error %g, metrics.Compare %g", o.Case.Name(), name, got, want.ErrorAll)
			}
			if !(e.CPUSeconds > 0) || !(e.WallSeconds > 0) {
				t.Errorf("%s, %s: CPU %g s, wall %g s; want both positive", o.Case.Name(), name, e.CPUSeconds, e.WallSeconds)
			}
		}
	}
	if n := len(SensitivityEstimators) - 1; len(r.Sensitivity) != n {
		t.Errorf("%d sensitivity rows, want %d (one per estimator, the two seeds combined)", len(r.Sensitivity), n)
	}
	for _, p := range Parts {
		if c := r.Costs[p]; c.Done != c.Tasks || c.Tasks == 0 || !(c.CPUSeconds > 0) {
			t.Errorf("part %s: %+v; want every task done, with CPU time", p, c)
		}
	}
	md := r.Markdown()
	for _, want := range []string{"parsimon §5.2 @ 50%", "| 30% |", "| 70% |", "Parsimon within 10%"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	figs := filepath.Join(dir, "figs")
	if err := r.Save(dir, figs); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"largescale.md", "largescale.parquet", "figs/fig7-parsimon-50.png", "figs/fig7-m3-70.png", "figs/fig8-error-cdf-parsimon.png", "figs/fig8-error-cdf-m3.png"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func resultPath(t *testing.T, dir string, c Case, est string) string {
	t.Helper()
	p, err := experiment.Task{Spec: c.Spec, Estimator: est}.ResultPath(filepath.Join(dir, CasesDir))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func near(a, b float64) bool { return a == b || math.Abs(a-b) <= 1e-12*math.Abs(b) }

// A study interrupted in the middle loses at most the task in flight:
// resumed, it runs every other task once and none twice.
func TestResumeLosesAtMostOneTask(t *testing.T) {
	if testing.Short() {
		t.Skip("runs estimators")
	}
	dir := t.TempDir()
	parts := []string{PartM3}
	journal := filepath.Join(dir, CasesDir, experiment.JournalFile)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // interrupt once two tasks are done
		defer cancel()
		for ctx.Err() == nil {
			if b, _ := os.ReadFile(journal); strings.Count(string(b), "done ") >= 2 {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	if err := Run(ctx, dir, "", tiny, parts, experiment.Local{}, nil); err == nil {
		t.Fatal("the interrupted study reported no error")
	}
	starts, dones := journalCounts(t, journal)
	if sum(dones) < 2 || sum(starts)-sum(dones) > 1 {
		t.Fatalf("interrupted: %d tasks started, %d done; want at least 2 done and at most one lost", sum(starts), sum(dones))
	}
	if err := Run(context.Background(), dir, "", tiny, parts, experiment.Local{}, nil); err != nil {
		t.Fatal(err)
	}
	cases, _ := Cases(tiny, parts)
	_, dones = journalCounts(t, journal)
	if len(dones) != len(Tasks(cases)) {
		t.Errorf("%d tasks done after resuming, want %d", len(dones), len(Tasks(cases)))
	}
	for k, n := range dones {
		if n != 1 {
			t.Errorf("task %s done %d times", k, n)
		}
	}
}

func journalCounts(t *testing.T, path string) (starts, dones map[string]int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	starts, dones = map[string]int{}, map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		f := strings.Fields(l)
		switch f[0] {
		case "start":
			starts[f[1]]++
		case "done":
			dones[f[1]]++
		}
	}
	return starts, dones
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// Table's derived columns against their definitions on hand-made
// estimates.
func TestTable(t *testing.T) {
	est := func(name string, p99, cpu float64, extra map[string]string, timings map[string]float64) *Estimate {
		b := Bins().Len()
		e := &Estimate{Estimator: name, Flows: 1000, All: []float64{1, p99}, P: [][]float64{make([]float64, b), make([]float64, b)},
			Counts: make([]int, b), WallSeconds: 2 * cpu, CPUSeconds: cpu, Extra: extra, Timings: timings}
		for i := range e.P[1] {
			e.P[1][i] = p99 * float64(i+1)
		}
		return e
	}
	c := Case{Part: PartParsimon, Load: 0.5, Estimators: []string{Baseline, "parsimon-c"}}
	o := Outcome{Case: c, Estimates: map[string]*Estimate{
		Baseline:     est(Baseline, 2, 100, map[string]string{"packet_hops": "1348008000"}, nil),
		"parsimon-c": est("parsimon-c", 2.5, 25, map[string]string{"link_sims": "250", "link_sims_pruned": "750"}, map[string]float64{"inf_s": 3}),
	}}
	tab := Table([]Outcome{o})
	col := func(name string) []float64 {
		v, err := tab.Float64s(name)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// ns-3: 1.348008e9 packet-hops at 3.32 events each and 337k events per
	// CPU second is the 2000-flow measurement (13.3 s for 1.348008e6
	// packet-hops) times 1000.
	wantNS3 := 13.3e3
	for _, tc := range []struct {
		col  string
		want []float64
	}{
		{"p99_error", []float64{0, 0.25}},
		{"cpu_speedup", []float64{1, 4}},
		{"ns3_cpu_s_est", []float64{wantNS3, wantNS3}},
		{"ns3_speedup_est", []float64{wantNS3 / 100, wantNS3 / 25}},
		{"pruned_share", []float64{math.NaN(), 0.75}},
		{"inf_s", []float64{math.NaN(), 3}},
		{"p99_error[>100KB]", []float64{0, 0.25}},
	} {
		got := col(tc.col)
		for i := range got {
			if !(near(got[i], tc.want[i]) || math.Abs(got[i]-tc.want[i]) < 1e-9 || math.IsNaN(got[i]) && math.IsNaN(tc.want[i])) {
				t.Errorf("%s row %d: %g, want %g", tc.col, i, got[i], tc.want[i])
			}
		}
	}
}

// Stats against hand-computed shares, median, mean and max.
func TestStats(t *testing.T) {
	row := func(est string, err, load float64) metrics.Summary {
		return metrics.Summary{Estimator: est, Baseline: Baseline, MaxLoad: load, P99: metrics.Comparison{ErrorAll: err}}
	}
	rows := []metrics.Summary{
		row("parsimon", 0.05, 0.30), row("parsimon", -0.20, 0.50), row("parsimon", 0.08, 0.70), row("parsimon", 0.50, 0.70),
		row("m3", 0.01, 0.30), row("parsimon", math.NaN(), 0.4),
	}
	s := Stats(rows, "parsimon")
	want := SensitivityStats{Estimator: "parsimon", Scenarios: 4, Within: 0.5, WithinByLoad: []float64{1, 0, 0.5},
		Median: (0.08 + 0.20) / 2, Mean: (0.05 + 0.20 + 0.08 + 0.50) / 4, Max: 0.5}
	if s.Scenarios != want.Scenarios || !near(s.Within, want.Within) || !near(s.Median, want.Median) || !near(s.Mean, want.Mean) || s.Max != want.Max {
		t.Errorf("got %+v, want %+v", s, want)
	}
	for i := range want.WithinByLoad {
		if s.WithinByLoad[i] != want.WithinByLoad[i] {
			t.Errorf("within 10%% in load range %d: %g, want %g", i, s.WithinByLoad[i], want.WithinByLoad[i])
		}
	}
	if e := Stats(rows, "flowsim"); e.Scenarios != 0 || !math.IsNaN(e.Mean) {
		t.Errorf("no rows: %+v", e)
	}
	if s.CIScenarios != 0 || !math.IsNaN(s.MedianHalf) || !math.IsNaN(s.SureIn) {
		t.Errorf("intervals without seeds: %+v", s)
	}
}

// Stats splits scenarios by where their confidence interval lies.
func TestStatsIntervals(t *testing.T) {
	row := func(err, half float64, seeds int) metrics.Summary {
		r := metrics.Summary{Estimator: "m3", Baseline: Baseline, MaxLoad: 0.5, P99: metrics.Comparison{ErrorAll: err}, Seeds: seeds}
		r.Half.ErrorAll = half
		return r
	}
	rows := []metrics.Summary{
		row(0.05, 0.04, 2),        // [0.01, 0.09]: inside
		row(-0.08, 0.05, 2),       // straddles -0.10
		row(0.30, 0.10, 2),        // [0.20, 0.40]: outside
		row(-0.02, math.NaN(), 2), // no interval (a seed missing)
		row(0.01, 0.5, 1),         // one run: no interval
	}
	s := Stats(rows, "m3")
	if s.Scenarios != 5 || s.CIScenarios != 3 || !near(s.SureIn, 1.0/3) || !near(s.SureOut, 1.0/3) || !near(s.MedianHalf, 0.05) {
		t.Errorf("got %+v, want 5 scenarios, 3 with intervals, 1/3 inside, 1/3 outside, median half-width 0.05", s)
	}
}
