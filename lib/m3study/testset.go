package m3study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
)

// The Table-4 test set's defaults: m3 §5.2's 48 scenarios; flows per
// scenario small enough that the whole set runs in minutes on a laptop.
const (
	TestSetScenarios = 48
	TestSetFlows     = 20_000
)

// TestSetBaseline is the test set's ground truth.
const TestSetBaseline = "packetsim"

// TestSetOptions describe a run of the Table-4 test set. Dir is required.
type TestSetOptions struct {
	// Scenarios (TestSetScenarios if 0) are drawn with Seed (1 if 0),
	// Flows flows each (TestSetFlows if 0): TestSetSpecs.
	Scenarios, Flows int
	Seed             uint64
	// Space is the m3 space the networks are drawn from: table4-pfc (if
	// empty) or table4-fork.
	Space string
	// Models are m3 model files asked beside the embedded model, each as
	// the m3 estimator with that model ("m3[<file name>]" in the result).
	Models []string
	// Others are the estimators asked beside packetsim and m3 (flowsim
	// and parsimon if nil, none if empty).
	Others []string
	// Dir holds the runs' frames and journal (experiment.Sweep): a test
	// set run again reuses what is done.
	Dir      string
	Executor experiment.Executor // experiment.Local{} if nil
	Progress progress.Reporter   // may be nil
}

// TestSetSpecs are the test set's scenarios, m3 §5.2's: workloads from
// Parsimon's Table 3 space on the 32-rack (256-host) fabrics
// (experiment.DefaultSpace) with flows flows, networks drawn from m3's
// Table 4 with the papers' shared buffers and PFC (m3.Table4NetworkIn of
// space: table4-pfc if empty, table4-fork for the HPCC ns-3 fork's
// rules, presets for ranges that hold the presets, or presets-fork: the
// spaces of testSetSpaces; on a seed of their own so that scenario i's network is not
// training task i's). The first k of n scenarios are a k-scenario test
// set's.
func TestSetSpecs(space string, n, flows int, seed uint64) ([]scenario.Spec, error) {
	if space == "" {
		space = "table4-pfc"
	}
	known := slices.Sorted(maps.Values(testSetSpaces))
	if !slices.Contains(known, space) {
		return nil, fmt.Errorf("m3study: the test set draws its networks from %s, not %q", strings.Join(known, " or "), space)
	}
	sp := experiment.DefaultSpace()
	sp.Flows = []int{flows}
	specs, err := experiment.Sample(sp, n, seed)
	if err != nil {
		return nil, fmt.Errorf("m3study: %w", err)
	}
	for i := range specs {
		specs[i].Name = fmt.Sprintf("table4-%d", i)
		if specs[i].Network, err = m3.Table4NetworkIn(space, seed^0x74657374, i); err != nil { // "test"
			return nil, err
		}
	}
	return specs, nil
}

// TestSetRow is one estimator's answer on one scenario: its overall p99
// slowdown against the baseline's, and the run's cost.
type TestSetRow struct {
	Scenario  int // index in TestSetSpecs
	Estimator string
	CC        string
	// SharedBytes is the switches' shared buffer (0: infinite), PFC
	// whether PFC is on.
	SharedBytes   int64
	PFC           bool
	MaxLoad       float64 // the workload's target max load
	P99, BaseP99  float64
	Error         float64 // P99 / BaseP99 - 1
	CPUSeconds    float64 // from the journal (NaN if not recorded)
	Flows, Counts int     // the baseline's flows and the estimate's records
}

// TestSetRefusal is an estimator that does not model a scenario's
// network (estimator.Models), with its reason.
type TestSetRefusal struct {
	Scenario      int
	Estimator, CC string
	Reason        string
}

// TestSetResult is a run of the test set.
type TestSetResult struct {
	Estimators []string // the labels, the baseline's left out
	Rows       []TestSetRow
	Refusals   []TestSetRefusal
}

// modelLabel is the result label of m3 with the model file path.
func modelLabel(path string) string { return "m3[" + filepath.Base(path) + "]" }

// RunTestSet runs the test set o describes (m3 §5.2 on our fabrics): every
// scenario of TestSetSpecs with packetsim, the m3 estimator with the
// embedded model and with each of o.Models, and o.Others; an estimator
// that does not model a scenario's network is not run there and is listed
// with its reason.
func RunTestSet(ctx context.Context, o TestSetOptions) (*TestSetResult, error) {
	if o.Dir == "" {
		return nil, errors.New("m3study: the test set needs a results directory")
	}
	if o.Scenarios == 0 {
		o.Scenarios = TestSetScenarios
	}
	if o.Flows == 0 {
		o.Flows = TestSetFlows
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Others == nil {
		o.Others = []string{"flowsim", "parsimon"}
	}
	if o.Executor == nil {
		o.Executor = experiment.Local{}
	}
	if len(o.Others) > 0 { // empty (not nil): packetsim and m3 alone
		if err := estimator.Check(o.Others...); err != nil {
			return nil, fmt.Errorf("m3study: %w", err)
		}
	}
	type asked struct{ label, est, opts string }
	ests := []asked{{TestSetBaseline, TestSetBaseline, ""}, {"m3", "m3", ""}}
	for _, p := range o.Models {
		opts, err := json.Marshal(map[string]string{"model": p})
		if err != nil {
			return nil, err
		}
		ests = append(ests, asked{modelLabel(p), "m3", string(opts)})
	}
	for _, e := range o.Others {
		if e != TestSetBaseline && e != "m3" {
			ests = append(ests, asked{e, e, ""})
		}
	}
	res := &TestSetResult{}
	for _, a := range ests[1:] {
		if slices.Contains(res.Estimators, a.label) {
			return nil, fmt.Errorf("m3study: %s asked twice", a.label)
		}
		res.Estimators = append(res.Estimators, a.label)
	}
	specs, err := TestSetSpecs(o.Space, o.Scenarios, o.Flows, o.Seed)
	if err != nil {
		return nil, err
	}
	type run struct {
		scenario int
		label    string
		task     experiment.Task
	}
	var runs []run
	var tasks []experiment.Task
	for i, s := range specs {
		for _, a := range ests {
			if err := estimator.Models(a.est, a.opts, s.Network); err != nil {
				if a.label == TestSetBaseline {
					return nil, fmt.Errorf("m3study: test scenario %d: the baseline: %w", i, err)
				}
				res.Refusals = append(res.Refusals, TestSetRefusal{Scenario: i, Estimator: a.label, CC: s.Network.CC, Reason: err.Error()})
				continue
			}
			t := experiment.Task{Spec: s, Estimator: a.est, Options: a.opts}
			runs = append(runs, run{i, a.label, t})
			tasks = append(tasks, t)
		}
	}
	if _, err := experiment.Sweep(ctx, o.Dir, tasks, o.Executor, o.Progress); err != nil {
		return nil, fmt.Errorf("m3study: test set: %w", err)
	}
	journal, err := experiment.ReadJournal(o.Dir)
	if err != nil {
		return nil, err
	}
	var base []metrics.Record
	for _, r := range runs {
		recs, _, err := r.task.Records(o.Dir)
		if err != nil {
			return nil, err
		}
		if r.label == TestSetBaseline { // every scenario's first run
			base = recs
			continue
		}
		c := metrics.Compare(recs, base, metrics.AllSizes(), 99) // the rows report all flows
		key, err := r.task.Key()
		if err != nil {
			return nil, err
		}
		cost, ok := journal[key]
		if !ok {
			cost.CPUSeconds = math.NaN()
		}
		n := r.task.Spec.Network
		res.Rows = append(res.Rows, TestSetRow{Scenario: r.scenario, Estimator: r.label, CC: n.CC,
			SharedBytes: n.Buffer.SharedBytes, PFC: n.PFC.Enabled, MaxLoad: r.task.Spec.Workload.Components[0].MaxLoad,
			P99: c.All, BaseP99: c.BaseAll, Error: c.ErrorAll, CPUSeconds: cost.CPUSeconds, Flows: len(base), Counts: len(recs)})
	}
	return res, nil
}

// TestSetStat sums up one estimator's errors over the scenarios of one
// CC ("all" for every scenario) or, from TailStats, of one band of the
// baseline's p99 (Tail): how many it answered and refused, the mean
// |error|, the mean signed error, the largest |error| and how many
// answers were within 10%.
type TestSetStat struct {
	Estimator, CC               string
	Tail                        string // TailStats' band of the baseline's p99, "" in Stats
	Answered, Refused, Within10 int
	MeanAbs, MeanSigned, MaxAbs float64
}

// Stats are the result's TestSetStats, estimator by estimator, each CC in
// name order and then "all".
func (r *TestSetResult) Stats() []TestSetStat {
	var ccs []string
	for _, row := range r.Rows {
		if !slices.Contains(ccs, row.CC) {
			ccs = append(ccs, row.CC)
		}
	}
	for _, f := range r.Refusals {
		if !slices.Contains(ccs, f.CC) {
			ccs = append(ccs, f.CC)
		}
	}
	slices.Sort(ccs)
	ccs = append(ccs, "all")
	var out []TestSetStat
	for _, e := range r.Estimators {
		for _, cc := range ccs {
			s := r.stat(e, func(row TestSetRow) bool { return cc == "all" || row.CC == cc })
			s.CC = cc
			for _, f := range r.Refusals {
				if f.Estimator == e && (cc == "all" || f.CC == cc) {
					s.Refused++
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// TailBands are the upper ends of TailStats' bands of the baseline's
// p99 slowdown; the last band is open.
var TailBands = []float64{3, 4, 5, 7}

// TailStats are the result's TestSetStats over every CC, estimator by
// estimator, in bands of the baseline's p99 (TailBands): whether an
// estimator's errors lean with the heaviness of the network's tail, as a
// model that cannot tell heavy-tailed networks apart shrinks towards
// the usual (BENCHMARKS.md). Refusals, which have no baseline
// p99 here, are not counted.
func (r *TestSetResult) TailStats() []TestSetStat {
	var out []TestSetStat
	for _, e := range r.Estimators {
		lo := 0.0
		for i := 0; i <= len(TailBands); i++ {
			hi, label := math.Inf(1), fmt.Sprintf("%g or more", lo)
			if i < len(TailBands) {
				hi = TailBands[i]
				label = fmt.Sprintf("under %g", hi)
				if i > 0 {
					label = fmt.Sprintf("%g to %g", lo, hi)
				}
			}
			s := r.stat(e, func(row TestSetRow) bool { return row.BaseP99 >= lo && row.BaseP99 < hi })
			s.CC, s.Tail = "all", label
			out = append(out, s)
			lo = hi
		}
	}
	return out
}

// stat sums up estimator e's answers on the rows for which in holds.
func (r *TestSetResult) stat(e string, in func(TestSetRow) bool) TestSetStat {
	var errs []float64
	for _, row := range r.Rows {
		if row.Estimator == e && in(row) {
			errs = append(errs, row.Error)
		}
	}
	st := metrics.SummarizeErrors(errs)
	return TestSetStat{Estimator: e, Answered: st.N, Within10: st.WithinN, MeanAbs: st.MeanAbs, MeanSigned: st.MeanSigned, MaxAbs: st.MaxAbs}
}

// Table is the result as a frame: a row per answer, columns scenario,
// estimator, cc, shared_bytes, pfc, max_load, p99, base_p99, error,
// cpu_seconds.
func (r *TestSetResult) Table() *frame.Table {
	var scen, shared, pfc []int64
	var est, cc []string
	var load, p99, base, errs, cpu []float64
	for _, row := range r.Rows {
		scen, shared = append(scen, int64(row.Scenario)), append(shared, row.SharedBytes)
		pfc = append(pfc, int64(boolInt(row.PFC)))
		est, cc = append(est, row.Estimator), append(cc, row.CC)
		load, p99, base = append(load, row.MaxLoad), append(p99, row.P99), append(base, row.BaseP99)
		errs, cpu = append(errs, row.Error), append(cpu, row.CPUSeconds)
	}
	return &frame.Table{Columns: []frame.Column{
		frame.Int64Column("scenario", scen), frame.StringColumn("estimator", est), frame.StringColumn("cc", cc),
		frame.Int64Column("shared_bytes", shared), frame.Int64Column("pfc", pfc), frame.Float64Column("max_load", load),
		frame.Float64Column("p99", p99), frame.Float64Column("base_p99", base), frame.Float64Column("error", errs),
		frame.Float64Column("cpu_seconds", cpu),
	}}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Report writes the per-CC table of Stats and the per-band table of
// TailStats as Markdown: for each estimator and CC (or band) the answers
// (and refusals), mean |p99 error|, mean signed error, largest |error|
// and answers within 10%.
func (r *TestSetResult) Report(w io.Writer) {
	pct := func(format string, x float64) string {
		if math.IsNaN(x) {
			return "-"
		}
		return fmt.Sprintf(format, 100*x)
	}
	table := func(group string, stats []TestSetStat, key func(TestSetStat) string) {
		fmt.Fprintf(w, "| estimator | %s | answered (refused) | mean \\|p99 error\\| | mean error | max \\|error\\| | within 10%% |\n| --- | --- | --- | --- | --- | --- | --- |\n", group)
		for _, s := range stats {
			fmt.Fprintf(w, "| %s | %s | %d (%d) | %s | %s | %s | %d |\n", s.Estimator, key(s), s.Answered, s.Refused,
				pct("%.1f%%", s.MeanAbs), pct("%+.1f%%", s.MeanSigned), pct("%.1f%%", s.MaxAbs), s.Within10)
		}
	}
	table("CC", r.Stats(), func(s TestSetStat) string { return s.CC })
	fmt.Fprintln(w)
	table("baseline p99", r.TailStats(), func(s TestSetStat) string { return s.Tail })
}
