package cceval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"

	"github.com/tailscope/tailscope/lib/internal/pool"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/progress"
)

// Response metrics: what a flow's response time R is (§4.3.2).
const (
	MetricFCT      = "fct"      // flow completion time, ns (the paper's R)
	MetricSlowdown = "slowdown" // FCT over the ideal FCT
	MetricDelay    = "delay"    // FCT minus the ideal FCT, ns: the queueing delay
)

// CheckMetric returns an error unless metric is a response metric
// (MetricFCT, MetricSlowdown or MetricDelay), so that a command can refuse
// a misspelt one before it starts any work.
func CheckMetric(metric string) error {
	_, err := responseOf(metric)
	return err
}

func responseOf(metric string) (func(r *metrics.Record) float64, error) {
	switch metric {
	case MetricFCT:
		return func(r *metrics.Record) float64 { return float64(r.FCT) }, nil
	case MetricSlowdown:
		return func(r *metrics.Record) float64 { return r.Slowdown }, nil
	case MetricDelay:
		return func(r *metrics.Record) float64 { return float64(r.FCT - r.Ideal) }, nil
	}
	return nil, fmt.Errorf("cceval: unknown response metric %q (%s, %s or %s)", metric, MetricFCT, MetricSlowdown, MetricDelay)
}

// TailConfig sets up model-based tail-quantile estimation. Zero fields
// take the paper's defaults (§6.1).
type TailConfig struct {
	P      float64 // the quantile wanted, in (0, 1); default 0.99
	Metric string  // MetricFCT (default), MetricSlowdown or MetricDelay
	Level  float64 // confidence level; default 0.95
	Margin float64 // relative margin of error; default 0.01
	// Epochs (E) and CECycles (m_ce) set the cross-entropy search of
	// Alg. 1. Epochs defaults to 10; CECycles to 10, or more when cycles
	// are short: enough for 5 expected flows above the quantile per
	// epoch, as the paper's 10 cycles of about 50 flows give at p99.
	Epochs, CECycles int
	// BatchCycles (K) is the cycles per batch of Alg. 2: default 40, or
	// enough for 20 expected flows above the quantile per batch (the
	// paper's 40 cycles of about 50 flows at p99), which keeps the bias
	// of a batch quantile small against a 1% margin.
	BatchCycles int
	// Exploratory and MaxBatches bound the model-free estimation over the
	// batch quantiles; defaults 20 and 1000.
	Exploratory, MaxBatches int
	// TiltArrivals lets the search tilt exponential inter-arrival times
	// too (the paper tilts sizes only, Eq. 15).
	TiltArrivals bool
	// Plain turns importance sampling off: the renewal-reward estimator
	// and the batch method on cycles of the model itself.
	Plain bool
	// IS, when set, is used instead of searching (Plain must be false).
	IS *Tilt
	// Workers is the number of cycles run at once; default GOMAXPROCS.
	Workers int
	Seed    uint64
	// Progress, when set, gets the search's epochs, then the batches
	// (Config.Progress).
	Progress progress.Reporter
}

func (c TailConfig) withDefaults() (TailConfig, error) {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	if c.P == 0 {
		c.P = 0.99
	}
	if c.Metric == "" {
		c.Metric = MetricFCT
	}
	if c.Level == 0 {
		c.Level = 0.95
	}
	if c.Margin == 0 {
		c.Margin = 0.01
	}
	def(&c.Epochs, 10)
	def(&c.Exploratory, 20)
	def(&c.MaxBatches, 1000)
	def(&c.Workers, runtime.GOMAXPROCS(0))
	switch {
	case !(c.P > 0 && c.P < 1):
		return c, fmt.Errorf("cceval: quantile %v must be in (0, 1), e.g. 0.99", c.P)
	case c.Epochs < 1 || c.CECycles < 0 || c.BatchCycles < 0 || c.Workers < 1:
		return c, fmt.Errorf("cceval: epochs %d, cross-entropy cycles %d, batch cycles %d and workers %d must be positive", c.Epochs, c.CECycles, c.BatchCycles, c.Workers)
	case c.Plain && c.IS != nil:
		return c, errors.New("cceval: Plain and IS are exclusive")
	}
	if _, err := responseOf(c.Metric); err != nil {
		return c, err
	}
	return c, checkLevel(c.Level)
}

// sizeFor sets the default cycle counts for cycles of meanFlows flows.
func (c *TailConfig) sizeFor(meanFlows float64) {
	cycles := func(tailFlows float64) int { return int(math.Ceil(tailFlows / ((1 - c.P) * meanFlows))) }
	if c.CECycles == 0 {
		c.CECycles = max(10, cycles(5))
	}
	if c.BatchCycles == 0 {
		c.BatchCycles = max(40, cycles(20))
	}
}

// sample is one flow's response and the log of its likelihood ratio
// L(F_n) (Eq. 9), with what the cross-entropy update needs of the ratio:
// the importance-sampled flows whose inputs it covers (the first inputs
// of the cycle) and the age of the gap running at its end.
type sample struct {
	r, logL float64
	inputs  int
	age     float64
}

// cycleResult is what one cycle contributes.
type cycleResult struct {
	samples  []sample
	runs     int  // estimator runs: 2 when the switch forced a replay
	flows    int  // flows simulated, replays included
	switched bool // a response exceeded GammaMax
	// The importance-sampled inputs, for the cross-entropy update: sizes
	// and inter-arrival gaps (all of the cycle's when it sampled the model),
	// and sizeLR[k], the log likelihood ratio of the first k sizes.
	sizes, gaps, sizeLR []float64
}

// sampler runs the cycles of a model.
type sampler struct {
	m    *Model
	run  Runner
	resp func(*metrics.Record) float64
}

// cycle runs the cycle of seed, importance-sampled by tilt (nil: the
// model itself). With a tilt it is the switching change of measure (§5):
// the cycle is drawn from tilt and run; if a flow's response exceeds
// GammaMax at a time T before the last arrival, the cycle is drawn again
// with the flows after T from the model and run again. Events up to T
// depend only on flows started by T, so the replay repeats the first run
// up to T (this is checked) and the replayed cycle is exactly a draw of
// the switching measure. A Runner driving an estimator that is not
// causal in this sense is rejected.
func (s *sampler) cycle(ctx context.Context, seed uint64, tilt *Tilt) (cycleResult, error) {
	var out cycleResult
	c := s.m.draw(seed, tilt, -1)
	if len(c.flows) == 0 {
		return out, nil
	}
	recs, err := s.records(ctx, seed, c)
	if err != nil {
		return out, err
	}
	out.runs, out.flows = 1, len(c.flows)
	if tilt != nil {
		trig, at := -1, int64(-1)
		for i := range recs {
			if s.resp(&recs[i]) > tilt.GammaMax {
				if f := recs[i].Start + recs[i].FCT; at < 0 || f < at {
					trig, at = i, f
				}
			}
		}
		if trig >= 0 {
			out.switched = true
			if c.t[len(c.t)-1] >= float64(at)+1 {
				first := recs[trig]
				c = s.m.draw(seed, tilt, at)
				if recs, err = s.records(ctx, seed, c); err != nil {
					return out, err
				}
				out.runs++
				out.flows += len(c.flows)
				if again := recs[trig]; again.Start != first.Start || again.FCT != first.FCT {
					return out, fmt.Errorf("cceval: the estimator is not causal: flow %d finished at %d ns, but at %d ns once flows after %d ns were redrawn",
						trig, first.Start+first.FCT, again.Start+again.FCT, at)
				}
			} else {
				c.switchAt = float64(at) + 1 // nothing left to redraw
			}
		}
	}
	n := len(c.flows)
	if tilt != nil {
		n = c.nIS
	}
	out.sizes, out.gaps = c.sizes[:n], c.gaps[:n]
	out.sizeLR = make([]float64, n+1)
	for i, x := range out.sizes {
		out.sizeLR[i+1] = out.sizeLR[i]
		if tilt != nil {
			out.sizeLR[i+1] += tilt.sizeLogLR(s.m, x)
		}
	}
	out.samples = make([]sample, len(recs))
	for i := range recs {
		// After the switch or the end of arrivals nothing is tilted any
		// more, so the ratio stops there.
		u := min(float64(recs[i].Start+recs[i].FCT)+1, c.switchAt, float64(s.m.DurationNs))
		k := sort.SearchFloat64s(c.t[:n], u)
		age := u
		if k > 0 {
			age -= c.t[k-1]
		}
		out.samples[i] = sample{r: s.resp(&recs[i]), logL: c.logLR(k, age, s.m, tilt), inputs: k, age: age}
	}
	return out, nil
}

// records runs a cycle and orders its records by flow.
func (s *sampler) records(ctx context.Context, seed uint64, c cycle) ([]metrics.Record, error) {
	recs, err := s.run(ctx, seed, c.flows)
	if err != nil {
		return nil, err
	}
	if len(recs) != len(c.flows) {
		return nil, fmt.Errorf("cceval: the estimator returned %d records for %d flows; model-based estimation needs every flow finished", len(recs), len(c.flows))
	}
	by := make([]metrics.Record, len(recs))
	seen := make([]bool, len(recs))
	for _, r := range recs {
		if r.FlowID < 0 || r.FlowID >= len(by) || seen[r.FlowID] {
			return nil, fmt.Errorf("cceval: the estimator returned a record for unknown or repeated flow %d", r.FlowID)
		}
		by[r.FlowID], seen[r.FlowID] = r, true
	}
	return by, nil
}

// cycles runs the cycles of seeds on workers goroutines, results in seed
// order.
func (s *sampler) cycles(ctx context.Context, seeds []uint64, tilt *Tilt, workers int) ([]cycleResult, error) {
	out := make([]cycleResult, len(seeds))
	err := pool.Run(ctx, len(seeds), pool.Options{Workers: workers}, func(ctx context.Context, i int) error {
		var err error
		out[i], err = s.cycle(ctx, seeds[i], tilt)
		return err
	})
	return out, err
}

// quantileOf is Eq. 12-13 (Eq. 7-8 when every weight is 1): the
// p-quantile of responses pooled from cycles whose flows carry likelihood
// ratios, the response above which the ratios sum to (1-p)·cycles·meanFlows.
// Eq. 13 takes the sampled response with at most that much weight above
// it, which overstates the quantile by half a sample's weight (about 2%
// for a log-normal p99 from 800 flows); here each sample's weight is
// centred on it and the quantile interpolated linearly between samples,
// which removes most of that bias. When the largest response alone
// carries more than the tail mass (too few flows for this p, or one heavy
// likelihood ratio), it is the estimate: the sample resolves no further.
func quantileOf(samples []sample, p float64, cycles int, meanFlows float64) (float64, error) {
	if len(samples) == 0 {
		return 0, errors.New("cceval: no flows to take a quantile of")
	}
	s := append([]sample(nil), samples...)
	sort.Slice(s, func(i, j int) bool { return s[i].r < s[j].r })
	limit := (1 - p) * float64(cycles) * meanFlows
	above := 0.0 // weight of the samples above s[n]
	prevMid := 0.0
	for n := len(s) - 1; n >= 0; n-- {
		w := math.Exp(s[n].logL)
		mid := above + w/2 // the tail mass at s[n]
		if mid >= limit {
			if n == len(s)-1 {
				return s[n].r, nil
			}
			f := (limit - prevMid) / (mid - prevMid)
			return s[n+1].r + f*(s[n].r-s[n+1].r), nil
		}
		above += w
		prevMid = mid
	}
	return s[0].r, nil
}

// Epoch is one step of the cross-entropy search (Alg. 1).
type Epoch struct {
	Tilt Tilt // the distributions this epoch's cycles were drawn from
	// Gamma is the estimate of the quantile from the cycles of this and
	// the earlier epochs: the threshold of the next update and the next
	// epoch's GammaMax.
	Gamma float64
	// TailShare is the share of the epoch's sampled flows whose response
	// exceeded its GammaMax (unweighted).
	TailShare float64
}

// TailResult is the outcome of TailQuantile.
type TailResult struct {
	P      float64
	Metric string
	// Interval is the confidence interval of the quantile over the batch
	// quantiles (Alg. 2); Batches is the model-free estimation over them.
	Interval Interval
	Batches  MetricResult
	// BatchQuantiles holds each batch's quantile in seed order.
	BatchQuantiles []float64
	Tilt           *Tilt   // the importance-sampling distributions; nil for Plain
	Epochs         []Epoch // the search (Alg. 1), empty when not run
	MeanFlows      float64 // E[α], flows per cycle
	// Cycles counts the cycles (trials) run in all, SearchCycles those of
	// the search; Runs counts estimator runs (a switched cycle runs
	// twice) and Flows the flows simulated over all runs.
	Cycles, SearchCycles, Runs, Flows int
	// TailShare is the share of production flows whose response exceeded
	// Tilt.GammaMax, and SwitchShare the share of production cycles that
	// switched back to the model.
	TailShare, SwitchShare float64
}

// TailQuantile is the model-based estimator of the p-quantile of flow
// response times (§4.3, Alg. 2): the renewal-reward estimator over
// cycles (Eq. 4-8), importance sampling with the switching change of
// measure and the likelihood ratio in log space (Eq. 9-13), the adaptive
// cross-entropy search of the sizes' importance-sampling distribution
// (Alg. 1, Eq. 16-17; a defensive mixture rather than the paper's single
// log-normal, see search), and the batch method: every BatchCycles cycles
// give one quantile (Eq. 12), and model-free estimation (Estimate) over
// batches gives the interval and decides, with its exploratory stage and
// forecast, how many batches to run.
//
// The expected flows per cycle, the denominator of Eq. 11, comes from the
// arrival model alone (Model.MeanFlows) instead of m_or original cycles.
// With log-normal (renewal, not Poisson) arrivals the cycles are still
// independent, so the estimator is the same; their inter-arrival times
// are never tilted, so Eq. 10's age term is 1, and E[α] is sampled from
// the arrival process. Tilted exponential arrivals (TiltArrivals) carry
// the age term exp(-H/θ)/exp(-H/θ̃) for the gap running at the switch,
// after which the model's gap restarts (memorylessness).
func TailQuantile(ctx context.Context, m *Model, run Runner, cfg TailConfig) (*TailResult, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if run == nil {
		return nil, errors.New("cceval: nil runner")
	}
	resp, _ := responseOf(cfg.Metric)
	s := &sampler{m: m, run: run, resp: resp}
	res := &TailResult{P: cfg.P, Metric: cfg.Metric, MeanFlows: m.MeanFlows()}
	cfg.sizeFor(res.MeanFlows)
	switch {
	case cfg.IS != nil:
		t := *cfg.IS
		if err := t.Arrival.Validate(); err != nil {
			return nil, err
		}
		if err := t.Size.Validate(); err != nil {
			return nil, err
		}
		if !(t.Defensive >= 0 && t.Defensive < 1) {
			return nil, fmt.Errorf("cceval: the model's share %v of importance-sampled sizes must be in [0, 1)", t.Defensive)
		}
		res.Tilt = &t
	case !cfg.Plain:
		if res.Tilt, err = s.search(ctx, cfg, res); err != nil {
			return nil, err
		}
	}
	batch := func(ctx context.Context, seed uint64) (Metrics, error) {
		seeds := make([]uint64, cfg.BatchCycles)
		for j := range seeds {
			seeds[j] = mix(seed, uint64(j))
		}
		outs, err := s.cycles(ctx, seeds, res.Tilt, 1) // batches run in parallel
		if err != nil {
			return nil, err
		}
		var all []sample
		var runs, flows, tail, switched int
		for _, o := range outs {
			all = append(all, o.samples...)
			runs += o.runs
			flows += o.flows
			if o.switched {
				switched++
			}
			if res.Tilt != nil {
				for _, x := range o.samples {
					if x.r > res.Tilt.GammaMax {
						tail++
					}
				}
			}
		}
		q, err := quantileOf(all, cfg.P, cfg.BatchCycles, res.MeanFlows)
		if err != nil {
			return nil, err
		}
		return Metrics{"quantile": q, "runs": float64(runs), "flows": float64(flows), "sampled": float64(len(all)),
			"tail": float64(tail), "switched": float64(switched)}, nil
	}
	est, err := Estimate(ctx, batch, Config{Level: cfg.Level, Margin: cfg.Margin, Exploratory: cfg.Exploratory,
		MaxTrials: max(cfg.MaxBatches, cfg.Exploratory), Workers: cfg.Workers, Seed: mix(cfg.Seed, 1<<32), Targets: []string{"quantile"},
		Progress: cfg.Progress})
	if err != nil {
		return nil, err
	}
	res.Batches = est.Metrics[0]
	res.Interval = res.Batches.Interval
	var sampled, tail, switched float64
	for _, b := range est.Trials {
		res.BatchQuantiles = append(res.BatchQuantiles, b["quantile"])
		res.Runs += int(b["runs"])
		res.Flows += int(b["flows"])
		sampled += b["sampled"]
		tail += b["tail"]
		switched += b["switched"]
	}
	res.Cycles = res.SearchCycles + len(est.Trials)*cfg.BatchCycles
	res.TailShare = tail / max(sampled, 1)
	res.SwitchShare = switched / float64(len(est.Trials)*cfg.BatchCycles)
	return res, nil
}

// Cross-entropy search constants (Rubinstein and Kroese's adaptive
// method, which Alg. 1 follows).
const (
	// ceElite is the smallest share of an epoch's flows the update
	// weighs: the threshold is never above their 1-ceElite quantile, so
	// that an early epoch, which rarely sees the target quantile, still
	// has tail flows to fit.
	ceElite = 0.1
	// ceSmoothing is the weight of the new fit against the previous
	// parameters; it keeps one noisy epoch from collapsing the tilt.
	ceSmoothing = 0.7
	// ceMaxShare bounds the tilted component's share of the size
	// mixture, so that a size's likelihood ratio is at most
	// 1/(1-ceMaxShare).
	ceMaxShare = 0.5
	// ceEMSteps is the number of EM steps of one epoch's mixture fit.
	ceEMSteps = 30
)

// search is the adaptive cross-entropy search (Alg. 1): the first epoch
// samples the model itself; every epoch estimates the quantile (Eq. 12),
// the next epoch's GammaMax, then refits the sizes' importance-sampling
// distribution (and with TiltArrivals the inter-arrival distribution) to
// the importance-sampled inputs that the ratios of the flows with
// R_n ≥ γ cover, each flow's inputs weighted by its L(F_n) (Eq. 16-17,
// whose expectation under the model is estimated from tilted cycles with
// their ratios). Each epoch's cycles estimate the same expectations under
// the model, so the quantile and the fit use the cycles of all epochs so
// far, not the epoch's alone: an epoch of a few tail flows gives a noisy
// fit.
//
// The sizes' distribution is a defensive mixture (Tilt.Defensive) of the
// model and a tilted component. The paper's single tilted log-normal
// tilts every flow of a cycle alike, although a flow's tail response
// mostly needs one large flow among those it overlaps (its own,
// typically): the ratios of the other flows then multiply into noisy
// weights, and the fit, averaging over all of them, settles on a small
// tilt. A mixture makes a few flows large and leaves the others at the
// model's sizes, with ratios at most 1/Defensive. The component is the
// cross-entropy fit of the mixture (EM, fitMixture); its share is the one
// that minimises the estimator's second moment (bestShare).
//
// Safeguards the paper does not state: γ is at most the epoch's
// 1-ceElite response quantile, the fit is smoothed (ceSmoothing), and the
// tilted share is at most ceMaxShare.
func (s *sampler) search(ctx context.Context, cfg TailConfig, res *TailResult) (*Tilt, error) {
	cur := Tilt{Arrival: s.m.Arrival, Size: s.m.Size}
	var tilt *Tilt // nil: the first epoch samples the model
	var (
		thr    float64
		pool   []cycleResult // every epoch's cycles
		pooled []sample
	)
	for e := range cfg.Epochs {
		seeds := make([]uint64, cfg.CECycles)
		for j := range seeds {
			seeds[j] = mix(cfg.Seed, uint64(e)<<20|uint64(j))
		}
		outs, err := s.cycles(ctx, seeds, tilt, cfg.Workers)
		if err != nil {
			return nil, err
		}
		res.SearchCycles += len(seeds)
		pool = append(pool, outs...)
		var all []sample
		for _, o := range outs {
			all = append(all, o.samples...)
			pooled = append(pooled, o.samples...)
			res.Runs += o.runs
			res.Flows += o.flows
		}
		if len(all) == 0 {
			return nil, fmt.Errorf("cceval: %d cycles drew no flows; lengthen the cycle", len(seeds))
		}
		rs := make([]float64, len(all))
		for i, x := range all {
			rs[i] = x.r
		}
		elite := metrics.Percentile(rs, 100*(1-ceElite))
		gamma, _ := quantileOf(pooled, cfg.P, len(pool), res.MeanFlows)
		thr = min(gamma, elite)
		ep := Epoch{Tilt: cur, Gamma: gamma}
		if tilt == nil {
			ep.Tilt.GammaMax = math.Inf(1)
		}
		tail := 0
		for _, x := range all {
			if x.r > ep.Tilt.GammaMax {
				tail++
			}
		}
		ep.TailShare = float64(tail) / float64(len(all))
		res.Epochs = append(res.Epochs, ep)
		progress.Report(cfg.Progress, e+1, cfg.Epochs, fmt.Sprintf("cross-entropy epochs, sizes %v (model's share %.3g), p%g %.4g",
			ep.Tilt.Size, ep.Tilt.Defensive, 100*cfg.P, gamma))
		var (
			sizes   []weighted
			own, ar ceSums
			inputs  float64
		)
		for _, o := range pool {
			for i, x := range o.samples {
				if x.r < thr {
					continue
				}
				w := math.Exp(x.logL)
				for _, v := range o.sizes[:x.inputs] {
					sizes = append(sizes, weighted{v, w})
				}
				if tilt == nil {
					own.add(w, s.m.Size.stat(o.sizes[i]))
				}
				inputs += w * float64(x.inputs)
				for _, g := range o.gaps[:x.inputs] {
					ar.add(w, g)
				}
				ar.cens += w * x.age
			}
		}
		next := Tilt{Arrival: cur.Arrival, Size: cur.Size, GammaMax: gamma, Defensive: cur.Defensive}
		// The first epoch starts EM from the tail flows' own sizes, one
		// large flow among the inputs each covers.
		from, share := cur.Size, 1-cur.Defensive
		if tilt == nil {
			from, err = own.fit(s.m.Size)
			share = own.n / inputs
		}
		if err == nil {
			if d, sh, err := fitMixture(sizes, s.m.Size, from, min(share, ceMaxShare)); err == nil {
				if tilt == nil {
					share = sh // the model has no share to smooth from
				}
				next.Size = smooth(cur.Size, d)
				next.Defensive = 1 - (ceSmoothing*sh + (1-ceSmoothing)*share)
			}
		}
		if cfg.TiltArrivals && s.m.Arrival.Family == Exponential {
			if d, err := ar.fit(s.m.Arrival); err == nil {
				next.Arrival = smooth(cur.Arrival, d)
			}
		}
		cur, tilt = next, &next
	}
	// The search samples with the cross-entropy share, whose cycles give
	// the component its tail flows; the estimation with the share of
	// least variance.
	tilt.Defensive = 1 - s.bestShare(pool, thr, tilt.Size)
	return tilt, nil
}

// ceShares are the tilted shares of the size mixture bestShare tries:
// log-spaced from 0.005 to ceMaxShare.
var ceShares = func() []float64 {
	const n = 25
	out := make([]float64, n)
	for i := range out {
		out[i] = 0.005 * math.Pow(ceMaxShare/0.005, float64(i)/(n-1))
	}
	return out
}()

// bestShare is the share of the tilted component d in the size mixture
// that minimises the second moment of the weighted tail indicators
// 1{R_n ≥ thr}·L'(F_n): Σ_n E[1{R_n ≥ thr}·L'(F_n)] under the model,
// estimated from the pooled cycles by reweighting each tail flow's
// covered sizes from the mixture they were drawn from to the candidate
// (cross terms between the flows of a cycle are left out). The
// cross-entropy fit of the share, near one over the sizes a tail flow's
// ratio covers, is about right for short cycles but too large for long
// ones: each covered size multiplies the second moment by about
// 1/(1-share), and a tail flow of a 1 ms cycle on the dumbbell covers
// some 20 sizes.
func (s *sampler) bestShare(pool []cycleResult, thr float64, d Dist) float64 {
	// The model's and the component's log densities of the sizes the
	// tail flows' ratios cover, a prefix of each cycle's sizes.
	type covered struct {
		o      *cycleResult
		lf, ld []float64
	}
	var cs []covered
	for i := range pool {
		o := &pool[i]
		n := 0
		for _, x := range o.samples {
			if x.r >= thr {
				n = max(n, x.inputs)
			}
		}
		if n == 0 {
			continue
		}
		c := covered{o: o, lf: make([]float64, n), ld: make([]float64, n)}
		for j, v := range o.sizes[:n] {
			c.lf[j], c.ld[j] = s.m.Size.LogPDF(v), d.LogPDF(v)
		}
		cs = append(cs, c)
	}
	best, min := ceShares[0], math.Inf(1)
	var cum []float64
	for _, sh := range ceShares {
		lsh, lm := math.Log(sh), math.Log1p(-sh)
		m2 := 0.0
		for _, c := range cs {
			// cum[k] is the candidate's log ratio of the first k sizes.
			cum = append(cum[:0], 0)
			for j := range c.lf {
				cum = append(cum, cum[j]+c.lf[j]-logAddExp(lm+c.lf[j], lsh+c.ld[j]))
			}
			for _, x := range c.o.samples {
				if x.r >= thr {
					// The arrivals' part of the ratio stays.
					m2 += math.Exp(2*x.logL - c.o.sizeLR[x.inputs] + cum[x.inputs])
				}
			}
		}
		if m2 < min {
			best, min = sh, m2
		}
	}
	return best
}

// weighted is an input with the weight of its cross-entropy update.
type weighted struct{ x, w float64 }

// fitMixture is the cross-entropy update of the defensive mixture
// share·d + (1-share)·m of sizes: ceEMSteps EM steps of the weighted
// maximum-likelihood fit of share and d to xs (Eq. 16-17 for the
// mixture), m fixed, starting from share and d. The share stays in
// (0, ceMaxShare].
func fitMixture(xs []weighted, m, d Dist, share float64) (Dist, float64, error) {
	for range ceEMSteps {
		var c ceSums
		total := 0.0
		for _, x := range xs {
			// The responsibility of the tilted component for x.
			lt, lm := math.Log(share)+d.LogPDF(x.x), math.Log1p(-share)+m.LogPDF(x.x)
			c.add(x.w/(1+math.Exp(lm-lt)), m.stat(x.x))
			total += x.w
		}
		var err error
		if d, err = c.fit(m); err != nil {
			return d, share, err
		}
		share = min(c.n/total, ceMaxShare)
	}
	return d, share, nil
}

// smooth moves from to ceSmoothing of the way to fit.
func smooth(from, fit Dist) Dist {
	a := ceSmoothing
	d := from
	if d.Family == Exponential {
		d.Scale = a*fit.Scale + (1-a)*from.Scale
		return d
	}
	d.Mu = a*fit.Mu + (1-a)*from.Mu
	d.Sigma = a*fit.Sigma + (1-a)*from.Sigma
	return d
}

// TailProbability is the renewal-reward estimator of P(R > gamma) (Eq. 6,
// and Eq. 11 with a tilt) over cycles independent cycles, with its
// confidence interval: each cycle contributes Σ_n 1{R_n > gamma}·L(F_n),
// and the mean over cycles is divided by the expected flows per cycle.
// tilt nil samples the model itself. cfg supplies Metric, Level, Workers
// and Seed.
func TailProbability(ctx context.Context, m *Model, run Runner, tilt *Tilt, gamma float64, cycles int, cfg TailConfig) (Interval, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Interval{}, err
	}
	if err := m.Validate(); err != nil {
		return Interval{}, err
	}
	if cycles < 2 {
		return Interval{}, fmt.Errorf("cceval: a tail probability needs at least 2 cycles, got %d", cycles)
	}
	resp, _ := responseOf(cfg.Metric)
	s := &sampler{m: m, run: run, resp: resp}
	seeds := make([]uint64, cycles)
	for j := range seeds {
		seeds[j] = mix(cfg.Seed, uint64(j))
	}
	outs, err := s.cycles(ctx, seeds, tilt, cfg.Workers)
	if err != nil {
		return Interval{}, err
	}
	alpha := m.MeanFlows()
	ys := make([]float64, cycles)
	for j, o := range outs {
		for _, x := range o.samples {
			if x.r > gamma {
				ys[j] += math.Exp(x.logL) / alpha
			}
		}
	}
	return metrics.MeanCI(ys, cfg.Level)
}

// mix derives a seed from a seed and an index (SplitMix64's finalizer),
// so that cycles of different batches and epochs draw independent streams.
func mix(seed, i uint64) uint64 {
	z := seed*0x9e3779b97f4a7c15 + i + 1
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
