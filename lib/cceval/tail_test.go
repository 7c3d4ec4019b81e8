package cceval

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/workload"
)

// M/M/1 in nanoseconds: mean service 1 ms (a flow's size is its service
// time), arrivals at half that rate.
const (
	mm1Service = 1e6
	mm1Gap     = 2e6
	mm1Decay   = 1/mm1Service - 1/mm1Gap // mu - lambda, per ns
	mm1Rho     = mm1Service / mm1Gap
)

// mm1Model is an M/M/1 queue whose cycles hold 20 arrivals on average.
func mm1Model() *Model {
	return &Model{Arrival: ExpDist(mm1Gap), Size: ExpDist(mm1Service), DurationNs: 20 * mm1Gap}
}

// mm1Runner is a FIFO single server by Lindley's recursion, started in
// steady state: the work found at time 0 is drawn from the stationary
// distribution (0 with probability 1-rho, else exponential with rate
// mu-lambda), from the cycle's seed. By PASTA every flow then sees the
// stationary queue, so the renewal-reward estimator over cycles estimates
// the stationary sojourn and waiting times, whose tails are
// P(R > x) = exp(-(mu-lambda)x) and P(W > x) = rho·exp(-(mu-lambda)x).
func mm1Runner(_ context.Context, seed uint64, flows []workload.Flow) ([]metrics.Record, error) {
	r := rand.New(rand.NewPCG(seed, 99))
	work := 0.0 // left at the previous arrival, after adding its service
	if r.Float64() < mm1Rho {
		work = r.ExpFloat64() / mm1Decay
	}
	prev := 0.0
	recs := make([]metrics.Record, len(flows))
	for i, f := range flows {
		wait := max(0, work-(float64(f.Start)-prev))
		work, prev = wait+float64(f.Size), float64(f.Start)
		fct := int64(math.Round(wait)) + f.Size
		recs[i] = metrics.Record{FlowID: f.ID, Size: f.Size, Start: f.Start, FCT: fct, Ideal: f.Size, Slowdown: float64(fct) / float64(f.Size)}
	}
	return recs, nil
}

// heavier tilts the M/M/1 queue to load 1 (arrivals and services both at
// 1.4 ms) until the switch. The classical swap of the two rates is
// asymptotically efficient over busy cycles, but these cycles start in
// steady state with an untilted backlog, which it weighs badly.
func heavier(gammaMax float64) *Tilt {
	return &Tilt{Arrival: ExpDist(1.4e6), Size: ExpDist(1.4e6), GammaMax: gammaMax}
}

// The tail-probability estimators against the closed form: plain Monte
// Carlo and importance sampling (arrivals tilted too, so the age term of
// Eq. 10 is exercised) agree with exp(-(mu-lambda)x) where plain Monte
// Carlo sees the event, importance sampling with an interval half as
// wide; 1e-4 deep in the tail it still gives a usable interval where
// plain Monte Carlo sees almost nothing. Waiting times (delay) follow
// rho·exp(-(mu-lambda)x).
func TestTailProbabilityMM1(t *testing.T) {
	m := mm1Model()
	cfg := TailConfig{Seed: 7, Workers: 2}
	p2 := math.Log(100) / mm1Decay
	half := map[string]float64{}
	for _, c := range []struct {
		name   string
		metric string
		x      float64
		tilt   *Tilt
		maxRel float64 // largest relative half-width expected
	}{
		{"sojourn 1e-2 plain", MetricFCT, p2, nil, 0.25},
		{"sojourn 1e-2 IS", MetricFCT, p2, heavier(p2), 0.12},
		{"sojourn 1e-4 IS", MetricFCT, math.Log(1e4) / mm1Decay, heavier(math.Log(1e4) / mm1Decay), 0.45},
		{"waiting 1e-2 IS", MetricDelay, math.Log(50) / mm1Decay, heavier(math.Log(50) / mm1Decay), 0.12},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg.Metric = c.metric
			iv, err := TailProbability(context.Background(), m, mm1Runner, c.tilt, c.x, 4000, cfg)
			if err != nil {
				t.Fatal(err)
			}
			want := math.Exp(-mm1Decay * c.x)
			if c.metric == MetricDelay {
				want *= mm1Rho
			}
			half[c.name] = iv.Half
			t.Logf("P(%s > %.3g ms) = %v, closed form %.4g", c.metric, c.x/1e6, iv, want)
			if !iv.Contains(want) || iv.Relative() > c.maxRel {
				t.Errorf("interval %v misses %.4g or is wider than %.0f%%", iv, want, 100*c.maxRel)
			}
		})
	}
	if r := half["sojourn 1e-2 IS"] / half["sojourn 1e-2 plain"]; r > 0.7 {
		t.Errorf("importance sampling's interval is %.2f of plain Monte Carlo's; want at most 0.7", r)
	}
	iv, err := TailProbability(context.Background(), m, mm1Runner, nil, math.Log(1e4)/mm1Decay, 4000, TailConfig{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	if iv.Relative() < 0.6 {
		t.Errorf("plain Monte Carlo at 1e-4 gave %v; expected no usable estimate from 80k flows", iv)
	}
}

// The likelihood ratio makes importance sampling unbiased: the mean of
// many independent IS estimates of a moderate tail probability matches
// the closed form to well within the spread of those means.
func TestTailProbabilityUnbiased(t *testing.T) {
	m := mm1Model()
	x := math.Log(20) / mm1Decay
	want := math.Exp(-mm1Decay * x)
	var ests []float64
	for rep := range 40 {
		iv, err := TailProbability(context.Background(), m, mm1Runner, heavier(x), x, 100, TailConfig{Seed: uint64(rep) << 32, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		ests = append(ests, iv.Mean)
	}
	iv, _ := metrics.MeanCI(ests, 0.99)
	t.Logf("40 IS estimates of %.4g: %v", want, iv)
	if !iv.Contains(want) {
		t.Errorf("IS estimates average %v, closed form %.4g: biased", iv, want)
	}
}

// A defensive mixture of sizes is unbiased too: 100 independent IS
// estimates of P(R > p99) of log-normal responses average to 0.01.
func TestTailProbabilityMixtureUnbiased(t *testing.T) {
	m := &Model{Arrival: ExpDist(1e6), Size: LogNormalDist(math.Log(1e5), 1), DurationNs: 5e6}
	x := math.Exp(math.Log(1e5) + 2.3263478740408408)
	tilt := &Tilt{Arrival: m.Arrival, Size: LogNormalDist(math.Log(x), 0.5), GammaMax: x, Defensive: 0.85}
	var ests []float64
	for rep := range 100 {
		iv, err := TailProbability(context.Background(), m, idealRunner, tilt, x, 400, TailConfig{Seed: uint64(rep) << 32, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		ests = append(ests, iv.Mean)
	}
	iv, _ := metrics.MeanCI(ests, 0.99)
	t.Logf("100 IS estimates of 0.01: %v", iv)
	if !iv.Contains(0.01) || iv.Relative() > 0.05 {
		t.Errorf("IS estimates average %v, want 0.01 within 5%%", iv)
	}
}

// Hand cases of the quantile (Eq. 12-13 with mid-rank interpolation).
func TestQuantileOf(t *testing.T) {
	var s []sample
	for i := 1; i <= 100; i++ {
		s = append(s, sample{r: float64(i)})
	}
	// Limit 10 of 100 unit weights: the mid tail masses of 90 and 91 are
	// 10.5 and 9.5, so the quantile is halfway.
	if q, err := quantileOf(s, 0.9, 1, 100); err != nil || q != 90.5 {
		t.Errorf("p90 of 1..100 = %v (%v), want 90.5", q, err)
	}
	// Likelihood ratios count as weights: 100 with log weight ln 4 holds
	// mass 4, so its mid mass is 2 and the limit 2 (p 0.98 of a mass of
	// 100) lands exactly on it.
	s[99].logL = math.Log(4)
	if q, err := quantileOf(s, 0.98, 1, 100); err != nil || q != 100 {
		t.Errorf("weighted p98 = %v (%v), want 100", q, err)
	}
	if q, err := quantileOf(s, 0.999, 1, 100); err != nil || q != 100 {
		t.Errorf("a quantile above the largest sample's mass = %v (%v), want the largest, 100", q, err)
	}
	if _, err := quantileOf(nil, 0.5, 1, 1); err == nil {
		t.Error("no samples: no error")
	}
}

// idealRunner completes every flow in exactly its size in ns: a response
// with the size distribution itself, so tail quantiles have closed forms.
func idealRunner(_ context.Context, seed uint64, flows []workload.Flow) ([]metrics.Record, error) {
	recs := make([]metrics.Record, len(flows))
	for i, f := range flows {
		recs[i] = metrics.Record{FlowID: f.ID, Size: f.Size, Start: f.Start, FCT: f.Size, Ideal: f.Size, Slowdown: 1}
	}
	return recs, nil
}

// Model-based intervals of log-normal response quantiles contain the
// closed form exp(mu + z_p sigma) 93-97% of the time: plain Monte Carlo's
// p90 intervals over 200 repetitions, importance sampling's p99 intervals
// (cross-entropy search and defensive mixture included) over 400
// (binomial standard error 1.1%). At p90 the event is not rare and the
// search over-tilts.
func TestTailQuantileCoverage(t *testing.T) {
	m := &Model{Arrival: ExpDist(1e6), Size: LogNormalDist(math.Log(1e5), 1), DurationNs: 5e6}
	for _, c := range []struct {
		plain     bool
		p, z      float64
		reps      int
		minCov    float64
		maxCov    float64
		maxCycles int
	}{
		{true, 0.9, 1.2815515655446004, 200, 0.93, 0.97, 3000},
		{false, 0.99, 2.3263478740408408, 400, 0.93, 0.97, 12000},
	} {
		want := math.Exp(math.Log(1e5) + c.z)
		hit, cycles := 0, 0
		bias := 0.0
		for rep := range c.reps {
			res, err := TailQuantile(context.Background(), m, idealRunner, TailConfig{P: c.p, Plain: c.plain, Margin: 0.035, Workers: 1, Seed: uint64(rep) << 24})
			if err != nil {
				t.Fatal(err)
			}
			if res.Interval.Contains(want) {
				hit++
			}
			bias += (res.Interval.Mean/want - 1) / float64(c.reps)
			cycles += res.Cycles
		}
		cov := float64(hit) / float64(c.reps)
		t.Logf("plain %v, p%g: coverage %.1f%% of %.0f, mean %d cycles, mean error %+.2f%%", c.plain, 100*c.p, 100*cov, want, cycles/c.reps, 100*bias)
		if cov < c.minCov || cov > c.maxCov || cycles/c.reps > c.maxCycles {
			t.Errorf("coverage %.1f%% (want %.0f-%.0f%%), mean %d cycles", 100*cov, 100*c.minCov, 100*c.maxCov, cycles/c.reps)
		}
	}
}

// The cross-entropy search on the M/M/1 queue (arrivals tilted too)
// moves towards the classical twist, arrivals faster and services
// slower, and the estimate contains the closed-form p99 sojourn time.
func TestTailQuantileMM1(t *testing.T) {
	res, err := TailQuantile(context.Background(), mm1Model(), mm1Runner, TailConfig{Margin: 0.03, TiltArrivals: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := math.Log(100) / mm1Decay
	t.Logf("p99 sojourn %v (closed form %.4g), tilt %v / %v (model share %.2f), %d cycles (%d in the search)", res.Interval, want, res.Tilt.Arrival, res.Tilt.Size, res.Tilt.Defensive, res.Cycles, res.SearchCycles)
	if !res.Interval.Contains(want) {
		t.Errorf("interval %v misses %.4g", res.Interval, want)
	}
	if !(res.Tilt.Arrival.Scale < mm1Gap && res.Tilt.Size.Scale > mm1Service) {
		t.Errorf("tilt %v / %v does not load the queue more", res.Tilt.Arrival, res.Tilt.Size)
	}
	if len(res.Epochs) != 10 || !math.IsInf(res.Epochs[0].Tilt.GammaMax, 1) || res.Epochs[1].Tilt.GammaMax != res.Epochs[0].Gamma {
		t.Errorf("epochs %+v: the first should sample the model, each next switch at the previous quantile", res.Epochs)
	}
}

// The switching change of measure on packetsim: tilted cycles on a DCTCP
// dumbbell switch and replay (the replay repeats the first run up to the
// switch, which cycle checks), and the importance-sampled tail
// probability agrees with plain Monte Carlo. A runner that is not causal
// (a flow's FCT depends on flows that start after it finishes) is caught.
func TestSwitchingPacketsim(t *testing.T) {
	spec := dumbbellSpec(1, 0.3)
	m, err := NewModel(spec, 500_000)
	if err != nil {
		t.Fatal(err)
	}
	run, err := EstimatorRunner(spec, "packetsim", "")
	if err != nil {
		t.Fatal(err)
	}
	s := &sampler{m: m, run: run}
	s.resp, _ = responseOf(MetricFCT)
	gamma := 150_000.0 // ns: about the p99 FCT
	tilt := &Tilt{Arrival: m.Arrival, Size: LogNormalDist(m.Size.Mu+0.5, m.Size.Sigma*1.1), GammaMax: gamma}
	replays := 0
	for i := range 30 {
		c, err := s.cycle(context.Background(), uint64(i), tilt)
		if err != nil {
			t.Fatal(err)
		}
		if c.runs == 2 {
			replays++
		}
	}
	if replays == 0 {
		t.Error("no cycle switched and replayed")
	}
	plain, err := TailProbability(context.Background(), m, run, nil, gamma, 300, TailConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	is, err := TailProbability(context.Background(), m, run, tilt, gamma, 300, TailConfig{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of 30 cycles replayed; P(FCT > %.0f us): plain %v, IS %v", replays, gamma/1e3, plain, is)
	if d := math.Abs(plain.Mean - is.Mean); d > 1.3*math.Hypot(plain.Half, is.Half) {
		t.Errorf("plain %v and IS %v disagree", plain, is)
	}
	crowded := func(ctx context.Context, seed uint64, flows []workload.Flow) ([]metrics.Record, error) {
		recs, err := idealRunner(ctx, seed, flows)
		var total int64
		for _, f := range flows {
			total += f.Size
		}
		for i := range recs {
			recs[i].FCT += total % 1000 // every flow feels all others
		}
		return recs, err
	}
	s.run = crowded
	tilt.GammaMax = 0 // switch at the first completion
	for i := range 5 {
		if _, err = s.cycle(context.Background(), uint64(i), tilt); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "not causal") {
		t.Errorf("non-causal runner: error %v", err)
	}
}

// NewModel loads the dumbbell's bottleneck to the spec's max load with
// the fitted sizes, draws endpoints from the spec's pairs, and its cycles
// hold MeanFlows flows on average.
func TestNewModel(t *testing.T) {
	spec := dumbbellSpec(1, 0.3)
	m, err := NewModel(spec, 2_000_000)
	if err != nil {
		t.Fatal(err)
	}
	var bytes, flows float64
	const cycles = 4000
	for i := range cycles {
		c := m.draw(uint64(i), nil, -1)
		for _, f := range c.flows {
			if f.Src >= 10 || f.Dst < 10 || f.Dst >= 20 {
				t.Fatalf("flow %+v is not left to right", f)
			}
			bytes += float64(f.Size)
		}
		flows += float64(len(c.flows))
	}
	load := bytes * 8 / (cycles * 2e-3) / 10e9
	t.Logf("model %v / %v: load %.3f, %.1f flows per cycle (E[α] %.1f)", m.Arrival, m.Size, load, flows/cycles, m.MeanFlows())
	if math.Abs(load-0.3) > 0.03 || math.Abs(flows/cycles/m.MeanFlows()-1) > 0.01 {
		t.Errorf("load %.3f (want 0.3), %.2f flows per cycle (want %.2f)", load, flows/cycles, m.MeanFlows())
	}
	spec.Workload.Components[0].Arrival = workload.Arrival{Process: "lognormal", Sigma: 1.5}
	if m, err = NewModel(spec, 2_000_000); err != nil || m.Arrival.Family != LogNormal || math.Abs(m.Arrival.Mean()/m.Size.Mean()*0.3/0.8-1) > 0.01 {
		t.Errorf("log-normal arrivals: %v (%v)", m.Arrival, err)
	}
	spec.Workload.Components = append(spec.Workload.Components, spec.Workload.Components[0])
	if _, err := NewModel(spec, 1); err == nil {
		t.Error("two components: no error")
	}
}

func TestCheckMetric(t *testing.T) {
	for _, m := range []string{MetricFCT, MetricSlowdown, MetricDelay} {
		if err := CheckMetric(m); err != nil {
			t.Errorf("CheckMetric(%q): %v", m, err)
		}
	}
	for _, m := range []string{"", "FCT", "fct_p99"} {
		if err := CheckMetric(m); err == nil {
			t.Errorf("CheckMetric(%q) accepted", m)
		}
	}
}
