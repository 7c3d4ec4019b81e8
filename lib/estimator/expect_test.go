package estimator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/datasets"
	"github.com/tailscope/tailscope/lib/atlas"
	"github.com/tailscope/tailscope/lib/netcfg"
)

func TestSplitAnyway(t *testing.T) {
	for _, c := range []struct {
		name, opts, rest string
		anyway, bad      bool
	}{
		{"empty", "", "", false, false},
		{"none", `{"model":"none"}`, `{"model":"none"}`, false, false},
		{"only", `{"answer_anyway":true}`, "", true, false},
		{"with others", `{"answer_anyway":true,"model":"none"}`, `{"model":"none"}`, true, false},
		{"false", `{"answer_anyway":false}`, "", false, false},
		{"not a bool", `{"answer_anyway":"yes"}`, "", false, true},
		{"not an object", `[1]`, `[1]`, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			rest, anyway, err := splitAnyway(c.opts)
			if (err != nil) != c.bad {
				t.Fatalf("error %v, want bad %v", err, c.bad)
			}
			if !c.bad && (rest != c.rest || anyway != c.anyway) {
				t.Errorf("splitAnyway(%s) = %q, %v; want %q, %v", c.opts, rest, anyway, c.rest, c.anyway)
			}
		})
	}
}

// withSummary makes the estimators consult s instead of the embedded
// atlas for the test's duration.
func withSummary(t *testing.T, s *atlas.Summary) {
	old := theAtlas
	theAtlas = func() (*atlas.Summary, error) { return s, nil }
	t.Cleanup(func() { theAtlas = old })
}

func TestRefusal(t *testing.T) {
	sc := small(t)
	region := atlas.RegionOf(sc.Spec)
	iv := func(bin string, p10, p90, abs float64) atlas.Interval {
		return atlas.Interval{Estimator: "flowsim", Region: region, Bin: bin, N: 6, P10: p10, P50: (p10 + p90) / 2, P90: p90, Max: p10, AbsP90: abs}
	}
	// A bin beyond the threshold is marked; the answer stands.
	marked := &atlas.Summary{Threshold: 0.25, MinScenarios: 5, Coverage: 0.8, Intervals: []atlas.Interval{iv("<=10KB", -0.6, -0.3, 0.6), iv("all", -0.1, 0.05, 0.1)}}
	withSummary(t, marked)
	res, err := Run(context.Background(), "flowsim", sc, "")
	if err != nil {
		t.Fatalf("flowsim where only one bin is off: %v, want an answer", err)
	}
	if res.Extra["atlas_untrusted_bins"] != "<=10KB" || res.Extra["answered_anyway"] != "" {
		t.Errorf("extra %v: want <=10KB marked not trustworthy, and not answered anyway", res.Extra)
	}
	if got := res.Extra["atlas_p99_error[<=10KB]"]; got != "-0.6,-0.45,-0.3,6" {
		t.Errorf("interval in the frame's metadata %q, want lo,median,hi,n = -0.6,-0.45,-0.3,6", got)
	}
	if l := strings.Join(ExpectationLines(res), "\n"); !strings.Contains(l, "<=10KB -60..-30% (not trustworthy)") || !strings.Contains(l, "80% interval") {
		t.Errorf("lines %q: want the bin marked and the interval's coverage named", l)
	}

	// All flows beyond the threshold (once widened): a refusal.
	bad := &atlas.Summary{Threshold: 0.25, MinScenarios: 5, Coverage: 0.8, Widen: map[string]map[string]float64{"flowsim": {"all": 5}},
		Intervals: []atlas.Interval{iv("<=10KB", -0.6, -0.3, 0.6), iv("all", -0.1, 0.05, 0.1)}}
	withSummary(t, bad)

	_, err = Run(context.Background(), "flowsim", sc, "")
	var r *Refusal
	if !errors.As(err, &r) {
		t.Fatalf("flowsim where the atlas has it 60%% off: error %v, want a refusal", err)
	}
	for _, want := range []string{"all flows", "-40..+35%", "packetsim", AnswerAnyway} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not name %q", err, want)
		}
	}
	if err := Answers("flowsim", "", sc.Spec); !errors.As(err, &r) {
		t.Errorf("Answers: %v, want the refusal Run gives", err)
	}

	res, err = Run(context.Background(), "flowsim", sc, `{"answer_anyway":true}`)
	if err != nil {
		t.Fatal(err)
	}
	if res.Extra["answered_anyway"] != "true" || !strings.Contains(res.Options, AnswerAnyway) {
		t.Errorf("answered anyway: extra %v, options %s; want both marked", res.Extra, res.Options)
	}
	if got := res.Extra["atlas_p99_error[all]"]; got != "-0.4,-0.025,0.35,6" {
		t.Errorf("interval in the frame's metadata %q, want the widened lo,median,hi,n = -0.4,-0.025,0.35,6", got)
	}

	// A measurement (a sweep's task) answers, marked the same way.
	res, err = Run(Measuring(context.Background()), "flowsim", sc, "")
	if err != nil || res.Extra["answered_anyway"] != "true" {
		t.Errorf("measuring run: %v, extra %v; want an answer marked answered_anyway", err, res.Extra)
	}

	// packetsim, which the atlas does not measure, answers and carries
	// no expectation.
	base, err := Run(context.Background(), "packetsim", sc, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := base.Extra["atlas_region"]; ok {
		t.Errorf("packetsim carries an atlas region %v", base.Extra)
	}

	// Too few scenarios in the region: no interval, no refusal.
	few := *bad
	few.MinScenarios = 7
	withSummary(t, &few)
	res, err = Run(context.Background(), "flowsim", sc, "")
	if err != nil {
		t.Fatalf("with too few atlas scenarios to judge: %v", err)
	}
	if !strings.HasPrefix(res.Extra["atlas_interval"], "unknown") {
		t.Errorf("extra %v, want the interval stated unknown", res.Extra)
	}
}

// A refusal names the other estimators the atlas answers with there.
func TestInsteadOf(t *testing.T) {
	sc := small(t)
	region := atlas.RegionOf(sc.Spec)
	iv := func(est string, p10, p90 float64) atlas.Interval {
		return atlas.Interval{Estimator: est, Region: region, Bin: "all", N: 6, P10: p10, P50: (p10 + p90) / 2, P90: p90}
	}
	s := &atlas.Summary{Threshold: 0.25, MinScenarios: 5, Intervals: []atlas.Interval{iv("flowsim", -0.6, -0.3), iv("parsimon", -0.1, 0.1)}}
	if got := insteadOf(s, "flowsim", "flowsim", sc.Spec); !strings.Contains(got, "packetsim") || !strings.Contains(got, "parsimon") || strings.Contains(got, "m3") {
		t.Errorf("instead of flowsim: %q, want packetsim and parsimon (m3 is not measured)", got)
	}
	if got := insteadOf(s, "parsimon", ParsimonPublished, sc.Spec); !strings.Contains(got, "parsimon with its default options") {
		t.Errorf("instead of Parsimon as published: %q, want Parsimon with its defaults", got)
	}
	s.Intervals[1] = iv("parsimon", -0.1, 0.4)
	if got := insteadOf(s, "flowsim", "flowsim", sc.Spec); strings.Contains(got, "parsimon") || !strings.Contains(got, "refuses the other estimators") {
		t.Errorf("instead of flowsim where parsimon is refused too: %q", got)
	}
}

func TestResolveAnyway(t *testing.T) {
	plain, err := Resolve("flowsim", "")
	if err != nil {
		t.Fatal(err)
	}
	forced, err := Resolve("flowsim", `{"answer_anyway":true}`)
	if err != nil {
		t.Fatal(err)
	}
	if forced == plain || !strings.Contains(forced, `"answer_anyway":true`) {
		t.Errorf("Resolve with answer_anyway = %s, plain %s: want it kept, so that its results are keyed apart", forced, plain)
	}
	o, err := WithAnswerAnyway(`{"model":"none"}`)
	if err != nil || o != `{"answer_anyway":true,"model":"none"}` {
		t.Errorf("WithAnswerAnyway = %s, %v", o, err)
	}
}

// The expectation's lines list the bins in the summary's order.
func TestExpectationLines(t *testing.T) {
	sc := small(t)
	region := atlas.RegionOf(sc.Spec)
	var ivs []atlas.Interval
	for _, b := range []string{"<=1KB", "1KB-10KB", "10KB-100KB", ">100KB", "all"} {
		ivs = append(ivs, atlas.Interval{Estimator: "flowsim", Region: region, Bin: b, N: 5, P10: -0.1, P50: 0, P90: 0.1, AbsP90: 0.1})
	}
	withSummary(t, &atlas.Summary{Threshold: 0.25, MinScenarios: 5, Intervals: ivs})
	res, err := Run(context.Background(), "flowsim", sc, "")
	if err != nil {
		t.Fatal(err)
	}
	lines := ExpectationLines(res)
	if len(lines) == 0 || !strings.Contains(lines[0], "<=1KB -10..+10%, 1KB-10KB -10..+10%, 10KB-100KB -10..+10%, >100KB -10..+10%, all -10..+10%") {
		t.Errorf("lines %q: want the bins in order with their intervals", lines)
	}
}

// TestAtlasLabel checks which options run the method the embedded atlas
// measured, and under which label.
func TestAtlasLabel(t *testing.T) {
	timely, err := netcfg.Preset("timely")
	if err != nil {
		t.Fatal(err)
	}
	presets, err := datasets.FS.ReadFile("models/m3-presets.model")
	if err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "copy.model")
	if err := os.WriteFile(copied, presets, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, est, opts string
		net             netcfg.Config
		label           string // "" not measured
	}{
		{"flowsim defaults", "flowsim", "", netcfg.Default(), "flowsim"},
		{"flowsim answering anyway", "flowsim", `{"answer_anyway":true}`, netcfg.Default(), "flowsim"},
		{"flowsim capped at the window", "flowsim", `{"window_cap":true}`, netcfg.Default(), ""},
		{"parsimon defaults", "parsimon", "", netcfg.Default(), "parsimon"},
		{"parsimon defaults spelt out, own workers and seed", "parsimon", `{"window_once":true,"workers":2,"seed":5}`, netcfg.Default(), "parsimon"},
		{"parsimon as published", "parsimon", PublishedParsimon, netcfg.Default(), ParsimonPublished},
		{"parsimon as published, with its own bucket size", "parsimon", `{"sparse_bucket_size":50,"window_once":false}`, netcfg.Default(), ""},
		{"m3 default model", "m3", "", netcfg.Default(), "m3"},
		{"m3 another embedded model, the one before the presets models", "m3", `{"model":"table4-pfc"}`, timely, M3Table4},
		{"m3 the Table-4 model where the atlas runs it by default", "m3", `{"model":"table4-pfc"}`, netcfg.Default(), ""},
		{"m3 the fork's Table-4 model where the PFC one came before", "m3", `{"model":"table4-fork"}`, timely, ""},
		{"m3 flowSim alone", "m3", `{"model":"none"}`, netcfg.Default(), ""},
		{"m3 the model the atlas chose", "m3", `{"model":"presets"}`, timely, "m3"},
		{"m3 a copy of that model", "m3", `{"model":"` + copied + `"}`, timely, "m3"},
		{"m3 a copy of the presets model where the atlas ran the default", "m3", `{"model":"` + copied + `"}`, netcfg.Default(), ""},
		{"packetsim, not measured at all", "packetsim", "", netcfg.Default(), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := small(t).Spec
			spec.Network = c.net
			label, why, err := AtlasLabel(c.est, c.opts, spec)
			if err != nil {
				t.Fatal(err)
			}
			unmeasured := c.label == "" && c.est != "packetsim"
			if label != c.label || (why != "") != unmeasured {
				t.Errorf("AtlasLabel(%s, %s) = %q, %q; want label %q, unmeasured %v", c.est, c.opts, label, why, c.label, unmeasured)
			}
		})
	}

	// A run as a variant carries the variant's interval; the variant's
	// refusal offers the estimator's defaults.
	sc := smallIn(t, timely)
	iv := func(est string, p10, p90 float64) atlas.Interval {
		return atlas.Interval{Estimator: est, Region: atlas.RegionOf(sc.Spec), Bin: "all", N: 6, P10: p10, P50: (p10 + p90) / 2, P90: p90}
	}
	withSummary(t, &atlas.Summary{Threshold: 0.25, MinScenarios: 5, Intervals: []atlas.Interval{iv("m3", -0.1, 0.1), iv(M3Table4, -0.2, -0.15)}})
	// (The Table-4 model extrapolates on the dumbbell: answered anyway.)
	res, err := Run(context.Background(), "m3", sc, `{"model":"table4-pfc","answer_anyway":true}`)
	if err != nil {
		t.Fatal(err)
	}
	if l := strings.Join(ExpectationLines(res), "\n"); res.Extra["atlas_measured_as"] != M3Table4 || !strings.Contains(l, "measured as m3-table4") || !strings.Contains(l, "all -20..-15%") {
		t.Errorf("m3 with the Table-4 model: extra %v, lines %q; want m3-table4's interval", res.Extra, l)
	}
	withSummary(t, &atlas.Summary{Threshold: 0.25, MinScenarios: 5, Intervals: []atlas.Interval{iv("m3", -0.1, 0.1), iv(M3Table4, -0.6, -0.4)}})
	if _, err := Run(context.Background(), "m3", sc, `{"model":"table4-pfc"}`); err == nil || !strings.Contains(err.Error(), `m3 with the options {"model":"presets"}`) {
		t.Errorf("m3 with the Table-4 model where the atlas has it 50%% off: %v, want a refusal offering m3 with the model the atlas runs", err)
	}

	// Run with unmeasured options: no interval, no refusal, and why.
	sc = small(t)
	bad := &atlas.Summary{Threshold: 0.25, MinScenarios: 5, Intervals: []atlas.Interval{{Estimator: "flowsim", Region: atlas.RegionOf(sc.Spec), Bin: "all", N: 6, P10: -0.9, P50: -0.8, P90: -0.7}}}
	withSummary(t, bad)
	if _, err := Run(context.Background(), "flowsim", sc, ""); err == nil {
		t.Fatal("flowsim answered where the atlas has it 80% off")
	}
	res, err = Run(context.Background(), "flowsim", sc, `{"window_cap":true}`)
	if err != nil {
		t.Fatalf("flowsim capped at the window, which the atlas did not measure: %v, want an answer", err)
	}
	if _, ok := res.Extra["atlas_region"]; ok || !strings.Contains(res.Extra["atlas_unmeasured"], "window_cap") {
		t.Errorf("extra %v: want no interval, and the atlas's options named", res.Extra)
	}
	if l := strings.Join(ExpectationLines(res), "\n"); !strings.Contains(l, `expected p99 error unknown: the accuracy atlas measures flowsim here with its default options, not with the options {"window_cap":true}`) {
		t.Errorf("lines %q: want the expected error stated unknown, and why", l)
	}
}
