package cceval

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

func TestRecordMetrics(t *testing.T) {
	// Sizes 1..100 KB with FCT = size ns and slowdown = 1 + size/100 KB.
	var recs []metrics.Record
	for i := 1; i <= 100; i++ {
		s := int64(i) * 1000
		recs = append(recs, metrics.Record{Size: s, FCT: s, Slowdown: 1 + float64(i)/100})
	}
	bins, err := metrics.NewBins([]int64{50_000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := RecordMetrics(recs, bins, []float64{50, 99})
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]float64{
		"fct_p50":             50_500, // numpy: halfway between the 50th and 51st
		"fct_p99":             99_010,
		"slowdown_p50":        1.505,
		"fct_mean":            50_500,
		"slowdown_mean":       1.505,
		"fct_p50[<=50KB]":     25_500,
		"fct_p99[>50KB]":      99_510, // h = 49·0.99: 99 KB + 0.51 KB
		"slowdown_p99[>50KB]": 1.9951,
	} {
		if got, ok := m[k]; !ok || math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, want)
		}
	}
	if len(m) != 2+2*2*3 {
		t.Errorf("%d metrics, want 14: %v", len(m), m)
	}
	if _, err := RecordMetrics(nil, bins, []float64{50}); err == nil {
		t.Error("no records: no error")
	}
}

// Single-packet flows arriving as a Poisson process at one 10G port form
// an M/D/1 queue with Pollaczek-Khinchine mean wait rho·D/(2(1-rho)).
// Model-free intervals of the per-trial mean wait from packetsim trials
// must contain it 93-97% of the time (250 repetitions of 20 trials; the
// binomial standard error is 1.4%). The first 20 flows of a trial are
// dropped: the queue starts empty (warm-up, Fig. 13).
func TestCoverageMD1Packetsim(t *testing.T) {
	const senders, flows, warm, rho = 64, 200, 20, 0.5
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: senders, Receivers: 1, HostBandwidth: 100 * topo.Gbps})
	if err != nil {
		t.Fatal(err)
	}
	cfg := netcfg.Default()
	service := float64(cfg.PayloadBytes+cfg.HeaderBytes) * 8 / 10 // ns at 10 Gbps
	want := rho * service / (2 * (1 - rho))
	trial := func(_ context.Context, seed uint64) (Metrics, error) {
		r := rand.New(rand.NewPCG(seed, 3))
		fl := make([]workload.Flow, flows)
		at := 1000.0
		for i := range fl {
			at += r.ExpFloat64() * service / rho
			fl[i] = workload.Flow{ID: i, Src: r.IntN(senders), Dst: senders, Size: cfg.PayloadBytes, Start: int64(at)}
		}
		res, err := packetsim.Run(context.Background(), net, fl, cfg, packetsim.Options{})
		if err != nil {
			return nil, err
		}
		var sum float64
		for _, rec := range res.Records[warm:] {
			sum += float64(rec.FCT - rec.Ideal)
		}
		return Metrics{"wait": sum / float64(flows-warm)}, nil
	}
	const reps = 250
	hit := 0
	var half float64
	for rep := range reps {
		// A 10% margin is met within the 20 exploratory trials.
		res, err := Estimate(context.Background(), trial, Config{Margin: 0.1, Seed: uint64(rep) * 1000})
		if err != nil {
			t.Fatal(err)
		}
		iv := res.Metrics[0].Interval
		half += iv.Relative() / reps
		if iv.Contains(want) {
			hit++
		}
	}
	cov := float64(hit) / reps
	t.Logf("M/D/1 at rho %.1f: coverage of %.1f ns is %.2f%% over %d repetitions (mean relative half-width %.1f%%)", rho, want, 100*cov, reps, 100*half)
	if cov < 0.93 || cov > 0.97 {
		t.Errorf("coverage %.2f%%, want 93-97%%", 100*cov)
	}
}

func dumbbellSpec(flows int, load float64) scenario.Spec {
	return scenario.CCEvalDumbbell(flows, load, "webserver")
}

// Forecast accuracy (Fig. 10a) on a DCTCP dumbbell at 30% load. A pool of
// packetsim trials stands for the trial distribution; model-free runs draw
// from it with replacement (so they are i.i.d. from the pool's empirical
// distribution) and compare the exploratory stage's forecast with the real
// count. The forecast is unbiased: the mean forecast is within 10% (median
// FCT) and 25% (p99 FCT) of the mean real count. One run's forecast from
// 20 exploratory trials is only as good as a variance from 20 samples
// (chi-square, relative sd sqrt(2/19) = 32%): the logged median error of
// single forecasts is near 20-27%. An exploratory stage of 100 trials
// (§6.3: "increase the number of trials in the exploratory stage") brings
// single forecasts within 10% (median FCT) and 25% (p99) in the median.
func TestForecastDumbbell(t *testing.T) {
	pool, err := Estimate(context.Background(), ScenarioTrial(dumbbellSpec(400, 0.3), "packetsim", "", metrics.AllSizes(), []float64{50, 99}),
		Config{MaxTrials: 100, Margin: 1e-9, Seed: 1, Targets: []string{"fct_p50", "fct_p99"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key         string
		margin, tol float64
	}{
		{"fct_p50", 0.01, 0.10},
		{"fct_p99", 0.05, 0.25},
	} {
		xs := make([]float64, len(pool.Trials))
		for i, m := range pool.Trials {
			xs[i] = m[c.key]
		}
		const reps = 400
		for _, expl := range []int{20, 100} {
			var real, fore float64
			errs := make([]float64, reps)
			for rep := range reps {
				r := rand.New(rand.NewPCG(uint64(rep), 5))
				draw := func(context.Context, uint64) (Metrics, error) { return Metrics{"x": xs[r.IntN(len(xs))]}, nil }
				res, err := Estimate(context.Background(), draw, Config{Margin: c.margin, Workers: 1, Exploratory: expl})
				if err != nil {
					t.Fatal(err)
				}
				m := res.Metrics[0]
				if !m.Converged() {
					t.Fatalf("%s: rep %d did not converge", c.key, rep)
				}
				real += float64(m.Trials) / reps
				fore += float64(m.Forecast) / reps
				errs[rep] = math.Abs(float64(m.Forecast)/float64(m.Trials) - 1)
			}
			sort.Float64s(errs)
			bias := fore/real - 1
			t.Logf("%s at %.0f%% margin, exploratory %d: mean real %.1f, mean forecast %.1f (%+.1f%%); single forecasts: median error %.1f%%, p90 %.1f%%",
				c.key, 100*c.margin, expl, real, fore, 100*bias, 100*errs[reps/2], 100*errs[reps*9/10])
			if math.Abs(bias) > c.tol {
				t.Errorf("%s: mean forecast off by %.1f%%, want within %.0f%%", c.key, 100*bias, 100*c.tol)
			}
			if expl == 100 && errs[reps/2] > c.tol {
				t.Errorf("%s: median single-forecast error %.1f%% with 100 exploratory trials, want within %.0f%%", c.key, 100*errs[reps/2], 100*c.tol)
			}
		}
	}
}

// Trials run as sweep tasks give Estimate's result exactly, and a second
// run over the same directory runs no task again.
func TestEstimateSweep(t *testing.T) {
	spec := dumbbellSpec(60, 0.3)
	cfg := Config{Margin: 0.06, Seed: 5, Targets: []string{"fct_p50"}, MaxTrials: 500}
	want, err := Estimate(context.Background(), ScenarioTrial(spec, "packetsim", "", metrics.AllSizes(), []float64{50}), cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	got, err := EstimateSweep(context.Background(), spec, "packetsim", "", metrics.AllSizes(), []float64{50}, cfg, experiment.Local{Workers: 2}, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Metrics, want.Metrics) {
		t.Errorf("sweep result %+v, want %+v", got.Metrics[0].Interval, want.Metrics[0].Interval)
	}
	journal, _ := os.ReadFile(filepath.Join(dir, experiment.JournalFile))
	ran := strings.Count(string(journal), "done ")
	if _, err := EstimateSweep(context.Background(), spec, "packetsim", "", metrics.AllSizes(), []float64{50}, cfg, experiment.Local{Workers: 2}, dir, nil); err != nil {
		t.Fatal(err)
	}
	journal, _ = os.ReadFile(filepath.Join(dir, experiment.JournalFile))
	t.Logf("%d trials to convergence, %d tasks run", want.Metrics[0].Trials, ran)
	if again := strings.Count(string(journal), "done "); again != ran || ran < want.Metrics[0].Trials {
		t.Errorf("%d tasks run the first time, %d after the second (want no more, and at least %d)", ran, again, want.Metrics[0].Trials)
	}
}

// CheckTargets accepts exactly the names RecordMetrics produces when every
// bin has flows.
func TestCheckTargets(t *testing.T) {
	var recs []metrics.Record
	for i := 1; i <= 100; i++ {
		recs = append(recs, metrics.Record{Size: int64(i) * 1000, FCT: int64(i), Slowdown: 1})
	}
	bins, err := metrics.NewBins([]int64{50_000}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pcts := []float64{50, 99.9}
	m, err := RecordMetrics(recs, bins, pcts)
	if err != nil {
		t.Fatal(err)
	}
	candidates := []string{"fct_mean", "slowdown_mean", "fct_p50", "fct_p99", "fct_p99.9", "slowdown_p99.9", "fct_p120", "bogus", "FCT_p50"}
	for _, l := range bins.Labels {
		candidates = append(candidates, "fct_p50["+l+"]", "slowdown_p99["+l+"]")
	}
	for _, c := range candidates {
		_, produced := m[c]
		if err := CheckTargets([]string{c}, bins, pcts); (err == nil) != produced {
			t.Errorf("CheckTargets(%q) = %v, but RecordMetrics produces it: %v", c, err, produced)
		}
	}
}

// ParseMetricName inverts MetricName, and TargetPercentiles collects the
// percentiles of targets once each, in order.
func TestParseMetricName(t *testing.T) {
	for _, tc := range []struct {
		name, q, label string
		p              float64
		ok             bool
	}{
		{"fct_p99", "fct", "", 99, true},
		{"slowdown_p99.9", "slowdown", "", 99.9, true},
		{"fct_p50[<=1KB]", "fct", "<=1KB", 50, true},
		{"slowdown_p100", "slowdown", "", 100, true},
		{"fct_p0", "", "", 0, false},
		{"fct_p101", "", "", 0, false},
		{"fct_p99.0", "", "", 0, false},
		{"fct_mean", "", "", 0, false},
		{"latency_p99", "", "", 0, false},
		{"fct_p99[<=1KB", "", "", 0, false},
	} {
		q, p, label, err := ParseMetricName(tc.name)
		if (err == nil) != tc.ok || q != tc.q || p != tc.p || label != tc.label {
			t.Errorf("%s: %q %g %q %v", tc.name, q, p, label, err)
		}
		if tc.ok && MetricName(q, p, label) != tc.name {
			t.Errorf("%s: MetricName gives %s back", tc.name, MetricName(q, p, label))
		}
	}
	pcts, err := TargetPercentiles([]string{"fct_p99", "fct_mean", "slowdown_p50[<=1KB]", "slowdown_p99"})
	if err != nil || !reflect.DeepEqual(pcts, []float64{50, 99}) {
		t.Errorf("TargetPercentiles: %v %v, want [50 99]", pcts, err)
	}
	if _, err := TargetPercentiles([]string{"fct_p99", "fct_p"}); err == nil || !strings.Contains(err.Error(), `"fct_p"`) {
		t.Errorf("TargetPercentiles accepted fct_p: %v", err)
	}
}
