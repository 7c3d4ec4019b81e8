package m3study

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/topo"
)

// The test set's scenarios are Parsimon Table 3 workloads on the 256-host
// fabrics with valid Table-4 networks, every CC among them, PFC on some;
// their networks are not the training tasks' of the same seed; the first
// k of n are a k-scenario set's.
func TestTestSetSpecs(t *testing.T) {
	specs, err := TestSetSpecs("", 48, 1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	ccs, pfc, same := map[string]int{}, 0, 0
	for i, s := range specs {
		fs, err := topo.Preset(s.Topology.Preset)
		if err != nil {
			t.Fatal(err)
		}
		if net, err := topo.Fabric(fs); err != nil || len(net.Hosts()) != 256 {
			t.Fatalf("scenario %d: topology %q (%v)", i, s.Topology.Preset, err)
		}
		if err := s.Network.Validate(); err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		if s.Workload.Flows != 1000 {
			t.Errorf("scenario %d: %d flows", i, s.Workload.Flows)
		}
		ccs[s.Network.CC]++
		if s.Network.PFC.Enabled {
			pfc++
		}
		if reflect.DeepEqual(s.Network, m3.Table4Network(1, i, true)) {
			same++
		}
	}
	if len(ccs) != 5 || pfc == 0 || same > 5 {
		t.Errorf("CCs %v, %d with PFC, %d networks equal to the training tasks'", ccs, pfc, same)
	}
	few, err := TestSetSpecs("", 5, 1000, 1)
	if err != nil || !reflect.DeepEqual(few, specs[:5]) {
		t.Errorf("the first 5 of 48 are not the 5-scenario set (%v)", err)
	}
	// The fork's set: the same scenarios, each network under the fork's
	// rules.
	fork, err := TestSetSpecs("table4-fork", 48, 1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	ruled := 0
	for i := range fork {
		want := specs[i]
		want.Network = want.Network.WithForkRules().ForkWire()
		if !reflect.DeepEqual(fork[i], want) {
			t.Fatalf("fork scenario %d is not scenario %d under the fork's rules", i, i)
		}
		if fork[i].Network.ForkRules() {
			ruled++
		}
	}
	if ruled == 0 || ruled == 48 {
		t.Errorf("%d of 48 networks under the fork's rules", ruled)
	}
	if _, err := TestSetSpecs("table4", 5, 1000, 1); err == nil || !strings.Contains(err.Error(), `not "table4"`) {
		t.Errorf("a test set of per-port buffers: %v", err)
	}
}

// A small test set end to end: flowSim's answers are the p99 of its
// frames against packetsim's; the embedded model answers exactly the
// rate-based DCTCP scenarios over infinite buffers, a model trained on
// table4-pfc data exactly those whose CC and PFC setting its data had;
// the summary counts add up; a second run reuses every run.
func TestRunTestSet(t *testing.T) {
	data := t.TempDir()
	if _, err := Gendata(context.Background(), data, m3.GenOptions{Tasks: 12, Flows: 150, Seed: 3, Space: "table4-pfc"}, experiment.Local{Workers: 2}, nil); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(t.TempDir(), "m.model")
	if _, _, err := Train(TrainConfig{Data: data, Model: model, Options: m3.TrainOptions{Hidden: []int{4}, Epochs: 1, Seed: 1}}); err != nil {
		t.Fatal(err)
	}
	// What the trained model has seen: its tasks' CCs and PFC settings.
	ccs, pfc := map[string]bool{}, map[bool]bool{}
	for i := range 12 {
		tk, _ := m3.RandomTaskIn("table4-pfc", 3, i, 150)
		ccs[tk.Network.CC] = true
		if tk.Network.SharedBuffer() {
			pfc[tk.Network.PFC.Enabled] = true
		}
	}
	dir := t.TempDir()
	o := TestSetOptions{Scenarios: 6, Flows: 300, Seed: 2, Models: []string{model}, Others: []string{"flowsim"}, Dir: dir}
	res, err := RunTestSet(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"m3", "m3[m.model]", "flowsim"}; !reflect.DeepEqual(res.Estimators, want) {
		t.Fatalf("estimators %v, want %v", res.Estimators, want)
	}
	specs, _ := TestSetSpecs("", 6, 300, 2)
	answered := map[string][]int{}
	for _, r := range res.Rows {
		answered[r.Estimator] = append(answered[r.Estimator], r.Scenario)
		if want := r.P99/r.BaseP99 - 1; math.Abs(r.Error-want) > 1e-12 {
			t.Errorf("%+v: error %g, want %g", r, r.Error, want)
		}
		if r.Estimator != "flowsim" {
			continue
		}
		// flowSim's and packetsim's p99 read from their frames.
		for _, c := range []struct {
			est  string
			want float64
		}{{"flowsim", r.P99}, {"packetsim", r.BaseP99}} {
			recs, _, err := experiment.Task{Spec: specs[r.Scenario], Estimator: c.est}.Records(dir)
			if err != nil {
				t.Fatal(err)
			}
			var sd []float64
			for _, x := range recs {
				sd = append(sd, x.Slowdown)
			}
			if got := metrics.Percentile(sd, 99); got != c.want {
				t.Errorf("scenario %d: %s p99 %g, frame says %g", r.Scenario, c.est, c.want, got)
			}
		}
	}
	var wantEmb, wantTrained, all []int
	for i, s := range specs {
		all = append(all, i)
		n := s.Network
		if n.CC == "dctcp" && !n.SharedBuffer() {
			wantEmb = append(wantEmb, i)
		}
		if ccs[n.CC] && (!n.SharedBuffer() || pfc[n.PFC.Enabled]) {
			wantTrained = append(wantTrained, i)
		}
	}
	for e, want := range map[string][]int{"m3": wantEmb, "m3[m.model]": wantTrained, "flowsim": all} {
		if !slices.Equal(answered[e], want) {
			t.Errorf("%s answered scenarios %v, want %v", e, answered[e], want)
		}
	}
	if len(res.Rows)+len(res.Refusals) != 3*6 {
		t.Errorf("%d answers and %d refusals of 18", len(res.Rows), len(res.Refusals))
	}
	for _, s := range res.Stats() {
		if s.CC != "all" {
			continue
		}
		within := 0
		for _, r := range res.Rows {
			if r.Estimator == s.Estimator && math.Abs(r.Error) <= 0.1 {
				within++
			}
		}
		if s.Answered != len(answered[s.Estimator]) || s.Answered+s.Refused != 6 || s.Within10 != within {
			t.Errorf("%+v: %d answers, %d within 10%%", s, len(answered[s.Estimator]), within)
		}
	}
	if tab := res.Table(); tab.Len() != len(res.Rows) {
		t.Errorf("table of %d rows for %d answers", tab.Len(), len(res.Rows))
	}
	again, err := RunTestSet(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	jr, err := experiment.ReadJournal(dir)
	if err != nil || len(jr) != len(res.Rows)+6 || !reflect.DeepEqual(again.Rows, res.Rows) {
		t.Errorf("rerun: %d journal entries (%v), rows equal %v", len(jr), err, reflect.DeepEqual(again.Rows, res.Rows))
	}
}

// An empty (not nil) Others asks packetsim and m3 alone; an unknown
// estimator is refused by name before any run.
func TestTestSetOthers(t *testing.T) {
	res, err := RunTestSet(context.Background(), TestSetOptions{Scenarios: 2, Flows: 200, Others: []string{}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"m3"}; !reflect.DeepEqual(res.Estimators, want) {
		t.Errorf("estimators %v, want %v", res.Estimators, want)
	}
	_, err = RunTestSet(context.Background(), TestSetOptions{Scenarios: 2, Flows: 200, Others: []string{"nosuch"}, Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), `"nosuch"`) {
		t.Errorf("unknown estimator: %v", err)
	}
}

// TailStats puts each answer in the band of its baseline's p99 (lower
// ends in, upper ends out), and the bands add up to Stats' "all".
func TestTailStats(t *testing.T) {
	res := &TestSetResult{Estimators: []string{"m3", "flowsim"}}
	for i, c := range []struct {
		base, err float64
	}{{2.5, 0.05}, {3, -0.2}, {3.99, 0.1}, {4, -0.3}, {6.5, -0.15}, {7, -0.4}, {12, -0.05}, {5, math.NaN()}} {
		res.Rows = append(res.Rows, TestSetRow{Scenario: i, Estimator: "m3", CC: "timely", BaseP99: c.base, Error: c.err})
		res.Rows = append(res.Rows, TestSetRow{Scenario: i, Estimator: "flowsim", CC: "dcqcn", BaseP99: c.base, Error: c.err / 2})
	}
	res.Refusals = []TestSetRefusal{{Scenario: 9, Estimator: "m3", CC: "hpcc"}}
	want := []struct {
		tail       string
		answered   int
		within     int
		meanSigned float64
		maxAbs     float64
	}{
		{"under 3", 1, 1, 0.05, 0.05},
		{"3 to 4", 2, 1, -0.05, 0.2},
		{"4 to 5", 1, 0, -0.3, 0.3},
		{"5 to 7", 1, 0, -0.15, 0.15},
		{"7 or more", 2, 1, -0.225, 0.4},
	}
	got := res.TailStats()
	if len(got) != 2*len(want) {
		t.Fatalf("%d tail stats, want %d", len(got), 2*len(want))
	}
	for i, w := range want {
		s := got[i]
		if s.Estimator != "m3" || s.CC != "all" || s.Tail != w.tail || s.Answered != w.answered || s.Within10 != w.within || s.Refused != 0 ||
			math.Abs(s.MeanSigned-w.meanSigned) > 1e-12 || math.Abs(s.MaxAbs-w.maxAbs) > 1e-12 {
			t.Errorf("band %d: %+v, want %+v", i, s, w)
		}
		if f := got[len(want)+i]; f.Estimator != "flowsim" || f.Tail != w.tail || f.Answered != w.answered || math.Abs(f.MeanSigned-w.meanSigned/2) > 1e-12 {
			t.Errorf("flowsim band %d: %+v", i, f)
		}
	}
	for _, all := range res.Stats() {
		if all.CC != "all" {
			continue
		}
		answered, within := 0, 0
		for _, s := range got {
			if s.Estimator == all.Estimator {
				answered, within = answered+s.Answered, within+s.Within10
			}
		}
		if answered != all.Answered || within != all.Within10 || all.Tail != "" {
			t.Errorf("%s: bands answer %d (%d within 10%%), Stats %+v", all.Estimator, answered, within, all)
		}
	}
	var b strings.Builder
	res.Report(&b)
	if !strings.Contains(b.String(), "| m3 | 7 or more | 2 (0) | 22.5% | -22.5% | 40.0% | 1 |") {
		t.Errorf("report lacks the band row:\n%s", b.String())
	}
}
