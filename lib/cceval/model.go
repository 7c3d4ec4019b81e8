package cceval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

// Model is the input model of model-based estimation (§4.3.2). A cycle,
// the paper's trial, is a renewal process of flow arrivals in
// [0, DurationNs) (the first arrival after one inter-arrival time) whose
// flows have independent sizes; it ends when every flow has finished.
// Cycles are independent, so they are the regenerative cycles of Eq. 4.
type Model struct {
	Arrival    Dist  // inter-arrival times, ns
	Size       Dist  // flow sizes in bytes: the service time is size over bandwidth
	DurationNs int64 // the span of a cycle's arrivals
	// Endpoints draws a flow's (src, dst); nil sends every flow from
	// host 0 to host 1.
	Endpoints func(r *rand.Rand) (src, dst int)
	// SizeFit is the least-squares fit Size came from (NewModel), kept
	// for reports; zero for a model built by hand.
	SizeFit SizeFit
}

// Validate reports a model that cannot be sampled.
func (m *Model) Validate() error {
	if m == nil {
		return errors.New("cceval: nil model")
	}
	if err := m.Arrival.Validate(); err != nil {
		return fmt.Errorf("cceval: arrivals: %w", err)
	}
	if err := m.Size.Validate(); err != nil {
		return fmt.Errorf("cceval: sizes: %w", err)
	}
	if m.DurationNs <= 0 {
		return fmt.Errorf("cceval: a cycle's duration must be positive, got %d ns", m.DurationNs)
	}
	return nil
}

// rateFlows is the endpoint sample from which NewModel measures how much
// of the busiest channel's capacity a byte of the workload takes.
const rateFlows = 100_000

// NewModel models the single-component workload of spec over cycles of
// durationNs: a log-normal fitted to the component's size CDF (FitSizes),
// inter-arrival times exponential (Poisson arrivals, as in the paper) or
// log-normal with the component's sigma (a renewal process; see
// TailQuantile for what importance sampling does with it), at the rate
// that loads the busiest channel to the component's MaxLoad with the
// fitted sizes, and endpoints drawn as the workload draws them.
func NewModel(spec scenario.Spec, durationNs int64) (*Model, error) {
	cs := spec.Workload.Components
	if len(cs) != 1 {
		return nil, fmt.Errorf("cceval: a model needs a single-component workload, the spec has %d components", len(cs))
	}
	c := cs[0]
	if !(c.MaxLoad > 0 && c.MaxLoad < 1) {
		return nil, fmt.Errorf("cceval: max_load %g must be in (0, 1)", c.MaxLoad)
	}
	net, err := spec.Topology.Build()
	if err != nil {
		return nil, err
	}
	sd, err := workload.NewSizeDist(c.Sizes)
	if err != nil {
		return nil, err
	}
	fit, err := FitSizes(sd, LogNormal)
	if err != nil {
		return nil, err
	}
	size, _ := fit.Dist()
	ends, err := c.Endpoints(net)
	if err != nil {
		return nil, err
	}
	// Route unit-size flows to find the busiest channel's share of flows
	// over its bandwidth; the mean gap then loads it to MaxLoad.
	r := rand.New(rand.NewPCG(1, 2))
	pilot := make([]workload.Flow, rateFlows)
	for i := range pilot {
		s, d := ends(r)
		pilot[i] = workload.Flow{ID: i, Src: s, Dst: d, Size: 1}
	}
	bytes, err := workload.ChannelBytes(net, pilot)
	if err != nil {
		return nil, err
	}
	busiest := 0.0 // ns of channel time per flow per byte
	for ch, n := range bytes {
		busiest = max(busiest, float64(n)/rateFlows*8e9/float64(net.Channels[ch].Bandwidth))
	}
	if busiest == 0 {
		return nil, errors.New("cceval: the workload's flows cross no channel")
	}
	gap := size.Mean() * busiest / c.MaxLoad
	var arr Dist
	switch strings.ToLower(c.Arrival.Process) {
	case "poisson", "exp", "exponential":
		arr = ExpDist(gap)
	case "", "lognormal", "log-normal":
		if !(c.Arrival.Sigma > 0) {
			return nil, fmt.Errorf("cceval: log-normal arrivals need sigma > 0, got %g", c.Arrival.Sigma)
		}
		arr = LogNormalDist(math.Log(gap)-c.Arrival.Sigma*c.Arrival.Sigma/2, c.Arrival.Sigma)
	default:
		return nil, fmt.Errorf("cceval: unknown arrival process %q (poisson or lognormal)", c.Arrival.Process)
	}
	m := &Model{Arrival: arr, Size: size, DurationNs: durationNs, Endpoints: ends, SizeFit: fit}
	return m, m.Validate()
}

// MeanFlows is E[α], the expected number of flows of a cycle: exact for
// Poisson arrivals, from 20000 arrival-only cycles (seeded) otherwise.
// Every estimator here finishes every flow, so this needs no simulation;
// it replaces the m_or original cycles of Alg. 2.
func (m *Model) MeanFlows() float64 {
	tau := float64(m.DurationNs)
	if m.Arrival.Family == Exponential {
		return tau / m.Arrival.Scale
	}
	r := rand.New(rand.NewPCG(3, 4))
	const cycles = 20000
	n := 0
	for range cycles {
		for t := m.Arrival.sample(r); t < tau; t += m.Arrival.sample(r) {
			n++
		}
	}
	return float64(n) / cycles
}

// Runner runs one cycle's flows through an estimator and returns a record
// per flow. seed identifies the cycle (a replay of a cycle gets the same
// seed). It must be deterministic and safe for concurrent use.
type Runner func(ctx context.Context, seed uint64, flows []workload.Flow) ([]metrics.Record, error)

// EstimatorRunner runs flows on spec's topology and network through the
// named estimator (estimator.Names) with options (JSON, "" for defaults).
// The scenario the estimator sees is spec with the cycle's seed and flows.
func EstimatorRunner(spec scenario.Spec, name, options string) (Runner, error) {
	if err := spec.Network.Validate(); err != nil {
		return nil, err
	}
	net, err := spec.Topology.Build()
	if err != nil {
		return nil, err
	}
	known := false
	for _, n := range estimator.Names() {
		known = known || n == name
	}
	if !known {
		return nil, fmt.Errorf("cceval: unknown estimator %q (known: %s)", name, strings.Join(estimator.Names(), ", "))
	}
	return func(ctx context.Context, seed uint64, flows []workload.Flow) ([]metrics.Record, error) {
		s := spec
		s.Seed = seed
		res, err := estimator.Run(ctx, name, &scenario.Scenario{Spec: s, ID: s.ID(), Net: net, Flows: flows}, options)
		if err != nil {
			return nil, err
		}
		return res.Records, nil
	}, nil
}

// ModelTrial makes a model-free Trial of one cycle of m drawn with the
// trial's seed (no importance sampling), run by run and summarized with
// RecordMetrics, plus "flows", the cycle's flow count: model-free and
// model-based estimation of the same model compare like with like. A cycle without flows has no quantiles, so
// trials are cycles with at least one flow: an empty draw is redrawn
// from a seed derived from the trial's.
func ModelTrial(m *Model, run Runner, bins metrics.Bins, pcts []float64) Trial {
	return func(ctx context.Context, seed uint64) (Metrics, error) {
		if err := m.Validate(); err != nil {
			return nil, err
		}
		c := m.draw(seed, nil, -1)
		for k := uint64(0); len(c.flows) == 0; k++ {
			if k == 1000 {
				return nil, fmt.Errorf("cceval: 1000 cycles of %d ns drew no flows; lengthen the duration", m.DurationNs)
			}
			seed = mix(seed, k)
			c = m.draw(seed, nil, -1)
		}
		recs, err := run(ctx, seed, c.flows)
		if err != nil {
			return nil, err
		}
		m, err := RecordMetrics(recs, bins, pcts)
		if err == nil {
			m[ColFlows] = float64(len(recs))
		}
		return m, err
	}
}

// Tilt is an importance-sampling distribution (§4.3.4): the arrival and
// size distributions flows are drawn from until a flow's response exceeds
// GammaMax (the switching change of measure, §5), then the model's own.
type Tilt struct {
	Arrival, Size Dist
	GammaMax      float64
	// Defensive is the share of importance-sampled sizes drawn from the
	// model's own size distribution instead of Size: the defensive
	// mixture Defensive·model + (1-Defensive)·Size, whose likelihood
	// ratios are at most 1/Defensive.
	Defensive float64
}

// sizeLogLR is the log likelihood ratio of an importance-sampled size.
func (t *Tilt) sizeLogLR(m *Model, x float64) float64 {
	lf := m.Size.LogPDF(x)
	lg := t.Size.LogPDF(x)
	if t.Defensive > 0 {
		lg = logAddExp(math.Log(t.Defensive)+lf, math.Log1p(-t.Defensive)+lg)
	}
	return lf - lg
}

// cycle is one cycle's flows and the inputs the likelihood ratio needs.
type cycle struct {
	flows []workload.Flow
	t     []float64 // continuous arrival times (a flow starts at floor(t) ns)
	gaps  []float64 // inter-arrival times
	sizes []float64 // continuous size draws
	// cum[k] is the log likelihood ratio of the first k flows' gaps and
	// sizes; flows from nIS on were drawn from the model itself.
	cum []float64
	nIS int
	// switchAt is the continuous time from which flows come from the
	// model (+Inf when the whole cycle is importance-sampled): a switch
	// at integer time T ns sets it to T+1, since a flow starting at T can
	// still be seen by an event at T.
	switchAt float64
}

// draw generates the cycle of seed: from tilt until switchNs (all of it
// when switchNs < 0), from the model afterwards; tilt nil draws from the
// model throughout. Draws come from one stream in a fixed order (gap,
// endpoints, size), so the cycle drawn with a switch equals the one drawn
// without it up to the switch.
func (m *Model) draw(seed uint64, tilt *Tilt, switchNs int64) cycle {
	r := rand.New(rand.NewPCG(seed, 0x63636576616c)) // "cceval"
	c := cycle{cum: []float64{0}, switchAt: math.Inf(1)}
	if switchNs >= 0 {
		c.switchAt = float64(switchNs) + 1
	}
	tau := float64(m.DurationNs)
	inIS := tilt != nil
	arrTilted := inIS && tilt.Arrival != m.Arrival
	t := 0.0
	for {
		var gap float64
		if inIS {
			gap = tilt.Arrival.sample(r)
		} else {
			gap = m.Arrival.sample(r)
		}
		next := t + gap
		if inIS && next >= c.switchAt {
			inIS = false
			if arrTilted {
				// The tilted gap is left unfinished at the switch; the
				// model's own (exponential, memoryless) gap restarts there.
				// The age term of Eq. 10 accounts for the unfinished one.
				gap = m.Arrival.sample(r)
				next = c.switchAt + gap
			}
		}
		if next >= tau {
			break
		}
		src, dst := 0, 1
		if m.Endpoints != nil {
			src, dst = m.Endpoints(r)
		}
		var size, ell float64
		if inIS {
			if tilt.Defensive > 0 && r.Float64() < tilt.Defensive {
				size = m.Size.sample(r)
			} else {
				size = tilt.Size.sample(r)
			}
			ell = tilt.sizeLogLR(m, size)
			if arrTilted {
				ell += m.Arrival.LogPDF(gap) - tilt.Arrival.LogPDF(gap)
			}
			c.nIS++
		} else {
			size = m.Size.sample(r)
		}
		c.flows = append(c.flows, workload.Flow{ID: len(c.flows), Src: src, Dst: dst, Size: sizeBytes(size), Start: int64(next)})
		c.t = append(c.t, next)
		c.gaps = append(c.gaps, gap)
		c.sizes = append(c.sizes, size)
		c.cum = append(c.cum, c.cum[len(c.cum)-1]+ell)
		t = next
	}
	return c
}

// logLR is log L(u) of Eq. 10 for an observation at continuous time u,
// given k, the importance-sampled flows that arrived before u, and age,
// u minus the last of their arrivals: the ratio of those flows' gaps and
// sizes and the age term of the gap still running at u (when arrivals
// are tilted).
func (c *cycle) logLR(k int, age float64, m *Model, tilt *Tilt) float64 {
	if tilt == nil {
		return 0
	}
	l := c.cum[k]
	if tilt.Arrival != m.Arrival {
		l += m.Arrival.LogSurvival(age) - tilt.Arrival.LogSurvival(age)
	}
	return l
}
