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
	specs, err := TestSetSpecs(48, 1000, 1)
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
	few, err := TestSetSpecs(5, 1000, 1)
	if err != nil || !reflect.DeepEqual(few, specs[:5]) {
		t.Errorf("the first 5 of 48 are not the 5-scenario set (%v)", err)
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
	specs, _ := TestSetSpecs(6, 300, 2)
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
