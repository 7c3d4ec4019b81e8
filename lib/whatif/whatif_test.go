package whatif

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// small is a 4-to-4 dumbbell at 50% load under HPCC.
func small() scenario.Spec {
	s := scenario.Default()
	s.Topology = scenario.Topology{Dumbbell: &topo.DumbbellSpec{Senders: 4, Receivers: 4}}
	s.Workload = workload.Spec{Flows: 300, Components: []workload.Component{{
		Pairs: [][2]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}}, Sizes: workload.SizeSpec{Dist: "webserver"},
		Arrival: workload.Arrival{Process: "poisson"}, MaxLoad: 0.5,
	}}}
	s.Network, _ = netcfg.Preset("hpcc")
	return s
}

// A sweep of HPCC's eta: packetsim's points are its own runs at each value
// and seed (the same flows at every value), flowSim, which has no
// congestion control, answers the same at every eta, m3's DCTCP model
// refuses HPCC, seeds give intervals, every run's CPU time is counted,
// and a rerun does no work and gives the same result.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	o := Options{Spec: small(), Param: "hpcc.eta", Values: []string{"0.7", "0.95"}, Estimators: []string{"packetsim", "flowsim", "m3"},
		Seeds: 2, Dir: dir}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Refusals) != 2 || res.Refusals[0].Estimator != "m3" || !strings.Contains(res.Refusals[0].Reason, "congestion control hpcc") {
		t.Errorf("refusals %+v, want m3 at both values", res.Refusals)
	}
	if want := 2 * 2 * len(res.Classes); len(res.Points) != want {
		t.Fatalf("%d points, want %d (2 values x packetsim, flowsim x %d classes)", len(res.Points), want, len(res.Classes))
	}
	var firstFlows []workload.Flow
	for _, val := range o.Values {
		var p99 [][]float64 // per seed: per class, then all
		for k := range uint64(2) {
			spec := o.Spec
			spec.Seed += k
			if spec.Network, err = spec.Network.Set(o.Param, []byte(val)); err != nil {
				t.Fatal(err)
			}
			sc, err := scenario.Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			if k == 0 {
				if firstFlows == nil {
					firstFlows = sc.Flows
				} else if !reflect.DeepEqual(firstFlows, sc.Flows) {
					t.Fatalf("eta %s draws other flows", val)
				}
			}
			run, err := estimator.Run(context.Background(), "packetsim", sc, "")
			if err != nil {
				t.Fatal(err)
			}
			c := metrics.Compare(run.Records, run.Records, metrics.DefaultBins(), 99)
			p99 = append(p99, append(c.Est, c.All))
		}
		for c, class := range res.Classes {
			p, ok := res.point(val, "packetsim", class)
			want := (p99[0][c] + p99[1][c]) / 2
			if !ok || math.Abs(p.P99-want) > 1e-9*want || p.Error != 0 || math.IsNaN(p.Half) {
				t.Errorf("eta %s, %s: packetsim %+v, want p99 %g, error 0 and an interval", val, class, p, want)
			}
			f0, _ := res.point(o.Values[0], "flowsim", class)
			f, _ := res.point(val, "flowsim", class)
			if f.P99 != f0.P99 || math.IsNaN(f.P99) {
				t.Errorf("flowsim's %s p99 changes with eta: %g at %s, %g at %s", class, f0.P99, o.Values[0], f.P99, val)
			}
		}
	}
	speeds := res.Speeds()
	if len(speeds) != 2 || speeds[0].Estimator != "packetsim" || speeds[0].Runs != 4 || !(speeds[0].CPUSeconds > 0) || speeds[0].Speedup() != 1 || !(speeds[1].CPUSeconds > 0) {
		t.Errorf("speeds %+v", speeds)
	}
	if tab := res.Table(); tab.Check() != nil || tab.Len() != len(res.Points) {
		t.Errorf("table: %v, %d rows", tab.Check(), tab.Len())
	}
	// Two seeds draw no intervals, and the figure says so; the x axis
	// is labelled in words.
	if fig, err := res.Figure(); err != nil {
		t.Error(err)
	} else if !strings.Contains(fig.Title, "no intervals") || fig.Panels[0][0].X.Label.Text != "HPCC target utilization η" {
		t.Errorf("figure title %q, x axis %q", fig.Title, fig.Panels[0][0].X.Label.Text)
	}
	if s := res.String(); !strings.Contains(s, "refused at hpcc.eta = 0.7, 0.95") || !strings.Contains(s, "packetsim") {
		t.Errorf("text:\n%s", s)
	}
	journal, err := os.ReadFile(filepath.Join(dir, experiment.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	again, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, experiment.JournalFile))
	if !reflect.DeepEqual(again.Points, res.Points) || len(after) != len(journal) {
		t.Errorf("rerun: points differ or work was redone (journal %d -> %d bytes)", len(journal), len(after))
	}
}

// Bad sweeps are refused before any run, naming the problem.
func TestRunErrors(t *testing.T) {
	for _, tc := range []struct {
		change func(*Options)
		want   string
	}{
		{func(o *Options) { o.Param = "" }, "no parameter"},
		{func(o *Options) { o.Param = "hpcc.etta" }, `no field "hpcc.etta"`},
		{func(o *Options) { o.Values = []string{"2"} }, "eta must be in (0,1]"},
		{func(o *Options) { o.Values = []string{"0.9", "0.9"} }, "given twice"},
		{func(o *Options) { o.Baseline = "m3" }, "the baseline cannot answer"},
		{func(o *Options) { o.Estimators = []string{"packetsim", "nosuch"} }, `unknown estimator "nosuch"`},
		{func(o *Options) { o.EstimatorOptions = map[string]string{"m3": "{}"} }, "options for m3, which is not asked"},
		{func(o *Options) { o.Dir = "" }, "no results directory"},
	} {
		o := Options{Spec: small(), Param: "hpcc.eta", Values: []string{"0.9"}, Estimators: []string{"packetsim"}, Dir: t.TempDir()}
		tc.change(&o)
		if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err %v, want %q", err, tc.want)
		}
	}
}

// A sweep of HPCC's rate AI across the edge of m3 Table 4's range: the
// embedded table4-pfc model answers both values, and the result names the
// one outside its training ranges (the HPCC fork's 50 Mbps, every path, in
// the rate AI input), marks its cells and gives its share in the frame;
// inside the range (the what-if preset's 750 Mbps) nothing is flagged.
func TestRunExtrapolation(t *testing.T) {
	o := Options{Spec: scenario.WhatIfHPCC(1000, 1), Param: "hpcc.ai_rate_bps", Values: []string{"50000000", "750000000"},
		Estimators: []string{"packetsim", "m3"}, EstimatorOptions: map[string]string{"m3": `{"model":"table4-pfc","samples":50}`},
		Dir: t.TempDir()}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Refusals) != 0 {
		t.Fatalf("refusals %+v", res.Refusals)
	}
	if len(res.Extrapolations) != 1 {
		t.Fatalf("extrapolations %+v, want m3 at 50000000 only", res.Extrapolations)
	}
	x := res.Extrapolations[0]
	if x.Value != "50000000" || x.Estimator != "m3" || x.Paths == 0 || x.Paths != x.Of || !reflect.DeepEqual(x.Entries, []string{"hpcc_ai_rate/1Gbps"}) {
		t.Errorf("extrapolation %+v, want m3 at 50000000, every path, in hpcc_ai_rate/1Gbps", x)
	}
	if s := res.String(); !strings.Contains(s, "~") || !strings.Contains(s, "extrapolated at hpcc.ai_rate_bps = 50000000: m3") {
		t.Errorf("the text does not mark the extrapolation:\n%s", s)
	}
	tab := res.Table()
	share, _ := tab.Float64s("outside_training")
	value, _ := tab.Strings("value")
	est, _ := tab.Strings("estimator")
	for i := range share {
		want := 0.0
		if value[i] == "50000000" && est[i] == "m3" {
			want = 1
		}
		if share[i] != want {
			t.Errorf("row %d (%s, %s): outside_training %g, want %g", i, value[i], est[i], share[i], want)
		}
	}
}

// A value's extrapolation sums every seed's paths, those of a seed inside
// the ranges included.
func TestExtrapolatedSumsSeeds(t *testing.T) {
	var r Result
	for _, m := range []map[string]string{
		{"paths_outside_training": "0", "paths_simulated": "40"},
		{"paths_outside_training": "10", "paths_simulated": "50", "entries_outside_training": "hpcc_eta,k_first/bdp"},
		{}, // an estimator that reports no ranges
	} {
		r.extrapolated("0.7", "m3", frame.Meta{Extra: m})
	}
	want := []Extrapolation{{Value: "0.7", Estimator: "m3", Paths: 10, Of: 90, Entries: []string{"hpcc_eta", "k_first/bdp"}}}
	if !reflect.DeepEqual(r.Extrapolations, want) {
		t.Errorf("extrapolations %+v, want %+v", r.Extrapolations, want)
	}
}

func TestParamLabel(t *testing.T) {
	for _, c := range [][2]string{
		{"k_bytes_per_gbps", "ECN threshold (bytes per Gbps)"},
		{"hpcc.eta", "HPCC target utilization η"},
		{"timely.tlow_nanos", "timely tlow (ns)"},
		{"dcqcn.ai_rate_bps", "dcqcn ai rate (bit/s)"},
	} {
		if got := ParamLabel(c[0]); got != c[1] {
			t.Errorf("ParamLabel(%s) = %q, want %q", c[0], got, c[1])
		}
	}
}

// An estimator run with options the atlas did not measure is named with
// why; with its defaults it is not.
func TestRunUnmeasured(t *testing.T) {
	for _, c := range []struct {
		opts     string
		measured bool
	}{{"", true}, {`{"window_cap":true}`, false}} {
		o := Options{Spec: small(), Param: "k_bytes", Values: []string{"30000", "60000"}, Estimators: []string{"packetsim", "flowsim"},
			EstimatorOptions: map[string]string{"flowsim": c.opts}, Seeds: 1, Dir: t.TempDir()}
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		why := res.Unmeasured["flowsim"]
		if (why == "") != c.measured {
			t.Errorf("flowsim with %q: unmeasured %q, want measured %v", c.opts, why, c.measured)
		}
		if !c.measured && !strings.Contains(strings.Join(res.DirectionLines(), "\n"), why) {
			t.Errorf("flowsim with %q: direction lines %q do not say why the atlas's scores are not its", c.opts, res.DirectionLines())
		}
	}
}
