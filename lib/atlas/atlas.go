// Package atlas holds what the accuracy atlas (lib/accuracy, "tailscope
// accuracy") measured, in the form every answer carries: the regions of
// the scenario space a user can ask about, and per estimator, region and
// flow-size bin the distribution of the p99 slowdown error against
// packetsim there (median, p10, p90, max). Expect looks a scenario up and
// returns its expected error interval per size bin and whether the
// estimator should refuse it (the error's magnitude at p90 above
// Summary.Threshold).
//
// The summary is computed by lib/accuracy from its archive and embedded
// (datasets/accuracy/atlas.json), so a bare binary or notebook kernel
// states its expected errors. A region the atlas has too few scenarios of
// gets no interval: the answer says so, and is not refused.
package atlas

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/tailscope/tailscope/datasets"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
)

// Region is a cell of the scenario space, the unit over which the atlas
// pools errors: the network family (congestion control, and the HPCC ns-3
// fork's rules or stock ns-3's window-based TCP), the fabric's size, the
// max-load band, the fabric's oversubscription and the flow-count band. Each field is a
// label; "" in a pooled region means every value.
type Region struct {
	Network string `json:"network"`
	// Fabric is the fabric's size, "32 racks" or "384 racks", or "other"
	// for any other topology.
	Fabric  string `json:"fabric"`
	Load    string `json:"load,omitempty"`
	Oversub string `json:"oversub,omitempty"`
	Flows   string `json:"flows"`
}

// String is e.g. "dcqcn, 32 racks, load 40-60%, 2:1, 10k-100k flows".
func (r Region) String() string {
	parts := []string{r.Network, r.Fabric}
	if r.Load != "" {
		parts = append(parts, "load "+r.Load)
	}
	if r.Oversub != "" {
		parts = append(parts, r.Oversub)
	}
	return strings.Join(append(parts, r.Flows+" flows"), ", ")
}

// NetworkFamily names a network configuration's family: "ns3" for stock
// ns-3's window-based DCTCP, else its congestion control, prefixed
// "fork-" when it runs under the HPCC ns-3 fork's rules (fork-dctcp has
// none and is "dctcp"). Buffers and PFC are not part of the family.
func NetworkFamily(cfg netcfg.Config) string {
	switch {
	case cfg.CC == "dctcp-window":
		return "ns3"
	case cfg.ForkRules():
		return "fork-" + cfg.CC
	}
	return cfg.CC
}

// MinFlows is the fewest flows of an atlas scenario: a scenario with
// fewer falls in no region the atlas measured.
const MinFlows = 5_000

// LoadBand is the max-load band of a target load in (0, 1): below 40%,
// 40-60%, above 60%.
func LoadBand(load float64) string {
	switch {
	case load < 0.4:
		return "<40%"
	case load <= 0.6:
		return "40-60%"
	}
	return ">60%"
}

// FlowBand is the flow-count band of n flows: below the atlas's smallest
// scenarios (MinFlows), then tenfold bands 5k-50k, 50k-500k, and 500k
// and more.
func FlowBand(n int) string {
	switch {
	case n < MinFlows:
		return "<5k"
	case n < 50_000:
		return "5k-50k"
	case n < 500_000:
		return "50k-500k"
	}
	return ">=500k"
}

// OversubBand labels a fabric's oversubscription ("2:1"), "other" for
// topologies that are not the 32- or 384-rack fabrics.
func OversubBand(x float64) string {
	for _, o := range []float64{1, 2, 4} {
		if math.Abs(x-o) < 1e-9 {
			return fmt.Sprintf("%g:1", o)
		}
	}
	return "other"
}

// RegionOf is the region of spec: its network family, the first workload
// component's max-load target, its fabric's oversubscription and its flow
// count.
func RegionOf(spec scenario.Spec) Region {
	r := Region{Network: NetworkFamily(spec.Network), Fabric: "other", Flows: FlowBand(spec.Workload.Flows), Oversub: "other", Load: "?"}
	fs := spec.Topology.Fabric
	if p := spec.Topology.Preset; p != "" {
		if f, err := topo.Preset(p); err == nil {
			fs = &f
		}
	}
	if fs != nil {
		r.Oversub = OversubBand(fs.Oversubscription())
		r.Fabric = fmt.Sprintf("%d racks", fs.Pods*fs.RacksPerPod)
	}
	if cs := spec.Workload.Components; len(cs) > 0 && cs[0].MaxLoad > 0 {
		r.Load = LoadBand(cs[0].MaxLoad)
	}
	return r
}

// Pooled are the regions Expect tries for r, finest first: r itself, then
// r without its oversubscription, then without its load band too. The
// network family, fabric size and flow-count band are always kept: they
// move the errors most, and an atlas measured on one fabric says nothing
// of another.
func (r Region) Pooled() []Region {
	a, b := r, r
	a.Oversub = ""
	b.Oversub, b.Load = "", ""
	return []Region{r, a, b}
}

// Interval is the distribution of one estimator's p99 error in one region
// and size bin over the atlas's scenarios: relative errors
// (estimate - packetsim) / packetsim, positive for overestimates.
type Interval struct {
	Estimator string `json:"estimator"`
	Region    Region `json:"region"`
	Bin       string `json:"bin"`
	// N is the number of scenarios with a value in this bin.
	N                  int     `json:"n"`
	P10, P50, P90, Max float64 `json:"-"`
	// AbsP90 is the 90th percentile of the error's magnitude: the
	// refusal criterion.
	AbsP90 float64 `json:"-"`
}

// intervalJSON writes the float fields so that NaN survives.
type intervalJSON struct {
	Estimator string    `json:"estimator"`
	Region    Region    `json:"region"`
	Bin       string    `json:"bin"`
	N         int       `json:"n"`
	Q         []float64 `json:"p10_p50_p90_max_absp90"`
}

// MarshalJSON writes the interval with its quantiles as one array.
func (iv Interval) MarshalJSON() ([]byte, error) {
	return json.Marshal(intervalJSON{iv.Estimator, iv.Region, iv.Bin, iv.N, []float64{iv.P10, iv.P50, iv.P90, iv.Max, iv.AbsP90}})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (iv *Interval) UnmarshalJSON(b []byte) error {
	var j intervalJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	if len(j.Q) != 5 {
		return fmt.Errorf("atlas: interval %s %s %s: %d quantiles, want 5", j.Estimator, j.Region, j.Bin, len(j.Q))
	}
	*iv = Interval{Estimator: j.Estimator, Region: j.Region, Bin: j.Bin, N: j.N,
		P10: j.Q[0], P50: j.Q[1], P90: j.Q[2], Max: j.Q[3], AbsP90: j.Q[4]}
	return nil
}

// Summary is the atlas as answers use it.
type Summary struct {
	// Bins are the size bins' labels, then "all".
	Bins []string `json:"bins"`
	// Threshold is the refusal threshold on the error's magnitude at p90
	// (0.25: an estimator refuses a region where one scenario in ten or
	// more is off by over 25% in some size bin).
	Threshold float64 `json:"threshold"`
	// MinScenarios is the fewest scenarios a region needs for its
	// interval to be stated (and a refusal made).
	MinScenarios int `json:"min_scenarios"`
	// Scenarios is the number of atlas scenarios summarized.
	Scenarios int `json:"scenarios"`
	// Source says which archive and sample the summary came from.
	Source    string     `json:"source"`
	Intervals []Interval `json:"intervals"`
}

// Defaults of a Summary.
const (
	DefaultThreshold    = 0.25
	DefaultMinScenarios = 5
)

// Read reads a summary from JSON.
func Read(r io.Reader) (*Summary, error) {
	var s Summary
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("atlas: malformed summary: %w", err)
	}
	if !(s.Threshold > 0) || s.MinScenarios < 1 {
		return nil, fmt.Errorf("atlas: summary: threshold %g must be positive and min_scenarios %d at least 1", s.Threshold, s.MinScenarios)
	}
	return &s, nil
}

// Write writes the summary as indented JSON.
func (s *Summary) Write(w io.Writer) error {
	b, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// EmbeddedFile is the embedded summary's path inside datasets.FS.
const EmbeddedFile = "accuracy/atlas.json"

// Embedded returns the summary embedded in the binary.
func Embedded() (*Summary, error) {
	b, err := datasets.FS.ReadFile(EmbeddedFile)
	if err != nil {
		return nil, fmt.Errorf("atlas: %w", err)
	}
	s, err := Read(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("atlas: %s: %w", EmbeddedFile, err)
	}
	return s, nil
}

// Measures reports whether the summary holds intervals of the named
// estimator anywhere: the ground truths (packetsim, ns3) and estimators
// never measured have none, and their answers carry no expectation.
func (s *Summary) Measures(estimator string) bool {
	for _, iv := range s.Intervals {
		if iv.Estimator == estimator {
			return true
		}
	}
	return false
}

// Expectation is what the atlas says about one estimator on one scenario.
type Expectation struct {
	Estimator string
	// Region is the scenario's region; Pooled the region whose interval is
	// stated (Region or a coarser one: Region.Pooled), zero when none has
	// MinScenarios scenarios.
	Region, Pooled Region
	// Intervals holds one interval per size bin of the summary, then
	// "all"; empty when the atlas has too few scenarios here.
	Intervals []Interval
	// Refuse is set when some bin's error magnitude at p90 exceeds the
	// threshold; Reason then says which.
	Refuse bool
	Reason string
}

// Known reports whether the atlas states an interval for the scenario.
func (e Expectation) Known() bool { return len(e.Intervals) > 0 }

// Expect looks the estimator up on spec. Estimators the atlas does not
// measure (packetsim, the ground truth, and ns3) get an Expectation
// without intervals.
func (s *Summary) Expect(estimator string, spec scenario.Spec) Expectation {
	return s.ExpectIn(estimator, RegionOf(spec))
}

// ExpectIn is Expect for a scenario of region.
func (s *Summary) ExpectIn(estimator string, region Region) Expectation {
	e := Expectation{Estimator: estimator, Region: region}
	for _, r := range e.Region.Pooled() {
		var ivs []Interval
		for _, iv := range s.Intervals {
			if iv.Estimator == estimator && iv.Region == r && iv.N >= s.MinScenarios {
				ivs = append(ivs, iv)
			}
		}
		if len(ivs) == 0 {
			continue
		}
		e.Pooled, e.Intervals = r, ivs
		var bad []string
		for _, iv := range ivs {
			if iv.AbsP90 > s.Threshold {
				bad = append(bad, fmt.Sprintf("%s: |p99 error| p90 %.0f%% (p10..p90 %+.0f..%+.0f%%, %d scenarios)", iv.Bin, 100*iv.AbsP90, 100*iv.P10, 100*iv.P90, iv.N))
			}
		}
		if len(bad) > 0 {
			e.Refuse = true
			e.Reason = fmt.Sprintf("%s is known to be off here: in the accuracy atlas's region %s, %s, over the threshold of %.0f%%",
				estimator, r, strings.Join(bad, "; "), 100*s.Threshold)
		}
		return e
	}
	return e
}

// Lines renders the expectation as text lines: one per size bin with its
// interval, or one saying the atlas has too few scenarios here.
func (e Expectation) Lines() []string {
	if !e.Known() {
		return []string{fmt.Sprintf("%s: expected p99 error unknown: the accuracy atlas has fewer than its minimum of scenarios in region %s", e.Estimator, e.Region)}
	}
	where := e.Pooled.String()
	out := []string{fmt.Sprintf("%s: expected p99 error (accuracy atlas, region %s):", e.Estimator, where)}
	for _, iv := range e.Intervals {
		out = append(out, fmt.Sprintf("  %-10s p10..p90 %+6.0f%% .. %+6.0f%%  median %+6.0f%%  worst %+6.0f%%  (%d scenarios)",
			iv.Bin, 100*iv.P10, 100*iv.P90, 100*iv.P50, 100*iv.Max, iv.N))
	}
	return out
}

// Extra returns the expectation as frame metadata: atlas_region,
// atlas_pooled_region, atlas_bins (the bins in order, "|"-separated) and
// per bin atlas_p99_error[<bin>] = "p10,p50,p90,n".
func (e Expectation) Extra() map[string]string {
	m := map[string]string{"atlas_region": e.Region.String()}
	if !e.Known() {
		m["atlas_interval"] = "unknown: too few atlas scenarios in this region"
		return m
	}
	m["atlas_pooled_region"] = e.Pooled.String()
	bins := make([]string, len(e.Intervals))
	for i, iv := range e.Intervals {
		bins[i] = iv.Bin
	}
	m["atlas_bins"] = strings.Join(bins, "|")
	for _, iv := range e.Intervals {
		m["atlas_p99_error["+iv.Bin+"]"] = fmt.Sprintf("%.4g,%.4g,%.4g,%d", iv.P10, iv.P50, iv.P90, iv.N)
	}
	return m
}
