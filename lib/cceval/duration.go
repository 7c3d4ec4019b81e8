package cceval

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
)

// Phases splits a trial into the three phases of Fig. 13b. The network
// starts empty and, once arrivals stop, drains: flows that start before
// it has filled, or that are still running when the last flow arrives,
// see fewer competitors than flows in steady state.
type Phases struct {
	// WarmUpEnd is the first time the number of active flows reaches its
	// time average over the arrival period [first start, last start]
	// (at least one flow); CoolDownStart is the last flow's start and End
	// the last completion (ns).
	WarmUpEnd, CoolDownStart, End int64
	// Flows per phase: warm-up flows start before WarmUpEnd, cool-down
	// flows (the rest) finish after CoolDownStart, stable flows are the
	// others.
	WarmUp, Stable, CoolDown int
}

// SplitPhases finds the phases of a trial's flow records.
func SplitPhases(recs []metrics.Record) Phases {
	if len(recs) == 0 {
		return Phases{}
	}
	type ev struct {
		t int64
		d int
	}
	evs := make([]ev, 0, 2*len(recs))
	first, last := recs[0].Start, recs[0].Start
	var end int64
	for _, r := range recs {
		evs = append(evs, ev{r.Start, 1}, ev{r.Start + r.FCT, -1})
		first, last, end = min(first, r.Start), max(last, r.Start), max(end, r.Start+r.FCT)
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].t < evs[j].t || evs[i].t == evs[j].t && evs[i].d < evs[j].d })
	// Time-average of the active count over [first, last].
	var area float64
	active, prev := 0, first
	for _, e := range evs {
		if e.t > last {
			break
		}
		area += float64(active) * float64(e.t-prev)
		active += e.d
		prev = e.t
	}
	level := 1.0
	if last > first {
		level = max(1, area/float64(last-first))
	}
	p := Phases{WarmUpEnd: last, CoolDownStart: last, End: end}
	active = 0
	for _, e := range evs {
		active += e.d
		if float64(active) >= level {
			p.WarmUpEnd = e.t
			break
		}
	}
	for _, r := range recs {
		switch {
		case r.Start < p.WarmUpEnd:
			p.WarmUp++
		case r.Start+r.FCT > p.CoolDownStart:
			p.CoolDown++
		default:
			p.Stable++
		}
	}
	return p
}

// StableRecords returns the records of the stable phase.
func (p Phases) StableRecords(recs []metrics.Record) []metrics.Record {
	var out []metrics.Record
	for _, r := range recs {
		if r.Start >= p.WarmUpEnd && r.Start+r.FCT <= p.CoolDownStart {
			out = append(out, r)
		}
	}
	return out
}

// DurationPoint is one trial length of a duration study (Fig. 13).
type DurationPoint struct {
	Flows      int     // flows per trial (FSPT)
	DurationNs float64 // mean span of a trial's starts
	// Result is the model-free estimation of the metric over all flows
	// (Trials is the real trial count, RTC); StableMean is the mean over
	// the same trials of the metric over stable-phase flows only. Long
	// flows overlap the cool-down more often than short ones, so leaving
	// it out also leaves out large flows: for FCT quantiles StableMean is
	// lower even in long trials; slowdown, normalized by size, shows the
	// phases' own effect better.
	Result     MetricResult
	StableMean float64
	// Shares of flows and of time (over [0, End]) in each phase, means
	// over trials.
	WarmUp, Stable, CoolDown             float64
	WarmUpTime, StableTime, CoolDownTime float64
	// TotalFlows is flows simulated up to convergence: RTC x FSPT (or all
	// trials run when the metric did not converge).
	TotalFlows int
}

// DurationStudy is the trial-duration analysis of Fig. 13: for each
// flows-per-trial count, model-free estimation of metric (a MetricName
// over all flows, e.g. "fct_p99") on spec's single-component workload
// generated for that many flows (the arrival span then scales with the
// count at fixed load) through the named estimator, with the phase
// shares and the metric over stable flows only. The study varies flows
// per trial rather than duration: at a fixed load the two are
// proportional, and a flow count needs no pilot sample per trial.
func DurationStudy(ctx context.Context, spec scenario.Spec, name, options string, flows []int, metric string, cfg Config) ([]DurationPoint, error) {
	if len(flows) == 0 {
		return nil, errors.New("cceval: a duration study needs flow counts")
	}
	quantity, pct, label, err := ParseMetricName(metric)
	if err == nil && label != "" {
		err = fmt.Errorf("cceval: metric %q is per size bin; a duration study wants an overall percentile such as fct_p99", metric)
	}
	if err != nil {
		return nil, err
	}
	cfg.Targets = []string{metric}
	var out []DurationPoint
	for _, n := range flows {
		if n < 1 {
			return nil, fmt.Errorf("cceval: flows per trial %d must be positive", n)
		}
		s := spec
		s.Workload.Flows, s.Workload.DurationNs = n, 0
		trial := func(ctx context.Context, seed uint64) (Metrics, error) {
			recs, err := runSeeded(ctx, s, seed, name, options)
			if err != nil {
				return nil, err
			}
			m, err := RecordMetrics(recs, metrics.AllSizes(), []float64{pct})
			if err != nil {
				return nil, err
			}
			ph := SplitPhases(recs)
			nf, span := float64(len(recs)), float64(max(ph.End, 1))
			m["warmup"], m["stable"], m["cooldown"] = float64(ph.WarmUp)/nf, float64(ph.Stable)/nf, float64(ph.CoolDown)/nf
			m["warmup_time"], m["cooldown_time"] = float64(ph.WarmUpEnd)/span, float64(ph.End-ph.CoolDownStart)/span
			m["span"] = float64(ph.CoolDownStart)
			m["stable_metric"] = math.NaN()
			if st := ph.StableRecords(recs); len(st) > 0 {
				sm, err := RecordMetrics(st, metrics.AllSizes(), []float64{pct})
				if err != nil {
					return nil, err
				}
				m["stable_metric"] = sm[MetricName(quantity, pct, "")]
			}
			return m, nil
		}
		res, err := Estimate(ctx, trial, cfg)
		if err != nil {
			return nil, fmt.Errorf("cceval: %d flows per trial: %w", n, err)
		}
		p := DurationPoint{Flows: n, Result: res.Metrics[0]}
		var stable, nstable float64
		for _, m := range res.Trials {
			k := float64(len(res.Trials))
			p.DurationNs += m["span"] / k
			p.WarmUp, p.Stable, p.CoolDown = p.WarmUp+m["warmup"]/k, p.Stable+m["stable"]/k, p.CoolDown+m["cooldown"]/k
			p.WarmUpTime, p.CoolDownTime = p.WarmUpTime+m["warmup_time"]/k, p.CoolDownTime+m["cooldown_time"]/k
			if v := m["stable_metric"]; !math.IsNaN(v) {
				stable, nstable = stable+v, nstable+1
			}
		}
		p.StableTime = 1 - p.WarmUpTime - p.CoolDownTime
		p.StableMean = math.NaN()
		if nstable > 0 {
			p.StableMean = stable / nstable
		}
		p.TotalFlows = len(res.Trials) * n
		out = append(out, p)
	}
	return out, nil
}
