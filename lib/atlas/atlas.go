// Package atlas holds what the accuracy atlas (lib/accuracy, "tailscope
// accuracy") measured, in the form every answer carries: the regions of
// the scenario space a user can ask about, and per estimator, region and
// flow-size bin the distribution of the p99 slowdown error against
// packetsim there (median, p10, p90, max). Expect looks a scenario up and
// returns its stated error interval per size bin (the region's p10..p90
// widened about its median by a factor chosen so that about
// Summary.Coverage of held-out errors fall inside: Summary.Widen), the
// bins whose interval reaches beyond Summary.Threshold (not trustworthy),
// and whether the estimator should refuse the whole answer (the interval
// of all flows reaches beyond the threshold). For what-if questions it
// also holds, per estimator and changed setting, how often the
// estimator's p99 moved the way packetsim's did (Direction).
//
// The summary is computed by lib/accuracy from its archive and embedded
// (datasets/accuracy/atlas.json), so a bare binary or notebook kernel
// states its expected errors. A region the atlas has too few scenarios of,
// even pooled over everything but the fabric (another fabric, or fewer
// than MinFlows flows), gets no interval: the answer says so, and is not
// refused.
package atlas

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/datasets"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
)

// Region is a cell of the scenario space, the unit over which the atlas
// pools errors: the network family (congestion control, and the HPCC ns-3
// fork's rules or stock ns-3's window-based TCP), the switch buffers, the
// fabric's size, the max-load band, the fabric's oversubscription and the
// flow-count band. Each field is a label; "" in a pooled region means
// every value, but for Buffer, where it means infinite buffers (every
// buffer band is AnyBuffers), and for Flows, whose every band is
// AnyFlows.
type Region struct {
	Network string `json:"network"`
	// Buffer is the switch buffers' band (BufferBand), "" for infinite
	// buffers.
	Buffer string `json:"buffer,omitempty"`
	// Fabric is the fabric's size, "32 racks" or "384 racks", or "other"
	// for any other topology.
	Fabric  string `json:"fabric"`
	Load    string `json:"load,omitempty"`
	Oversub string `json:"oversub,omitempty"`
	Flows   string `json:"flows"`
}

// String is e.g. "dcqcn, 32 racks, load 40-60%, 2:1, 10k-100k flows", or
// "dcqcn, shared buffer+PFC, 32 racks, ..." with finite buffers, and
// "any network, ..." pooled over the network families ("any network, any
// buffers, 32 racks, any flow count" pooled over all but the fabric).
func (r Region) String() string {
	parts := []string{cmp.Or(r.Network, "any network")}
	if r.Buffer != "" {
		parts = append(parts, r.Buffer)
	}
	parts = append(parts, r.Fabric)
	if r.Load != "" {
		parts = append(parts, "load "+r.Load)
	}
	if r.Oversub != "" {
		parts = append(parts, r.Oversub)
	}
	if r.Flows == AnyFlows {
		return strings.Join(append(parts, "any flow count"), ", ")
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

// BufferBand names a network configuration's switch buffers as regions
// tell them apart: "" for infinite buffers, "per-port buffer" (tail drop
// at each port's own buffer), "shared buffer" (a switch's shared memory,
// lossy) or "shared buffer+PFC" (lossless). Their sizes are not part of
// the band.
func BufferBand(cfg netcfg.Config) string { return bufferBands[cfg.BufferKind()] }

// bufferBands are the bands of netcfg.Config.BufferKind's kinds.
var bufferBands = map[string]string{"infinite": "", "per-port": "per-port buffer", "shared": "shared buffer", "shared+pfc": "shared buffer+PFC"}

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

// RegionOf is the region of spec: its network family and buffers, the
// first workload component's max-load target, its fabric's size and
// oversubscription and its flow count.
func RegionOf(spec scenario.Spec) Region {
	r := Region{Network: NetworkFamily(spec.Network), Buffer: BufferBand(spec.Network), Fabric: "other", Flows: FlowBand(spec.Workload.Flows), Oversub: "other", Load: "?"}
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

// AnyBuffers is Region.Buffer pooled over every buffer band, AnyFlows
// Region.Flows pooled over every flow-count band the atlas measures
// (MinFlows and more).
const (
	AnyBuffers = "any buffers"
	AnyFlows   = "any"
)

// Pooled are the regions Expect tries for r, finest first: r itself, then
// r without its oversubscription, then without its load band too, then
// without its network family too, then without its buffer band too, then
// without its flow-count band too. The fabric's size is always kept: an
// atlas measured on one fabric says nothing of another. The further a
// level pools, the more it moves the errors: the network family serves
// the regions measured too rarely per family, such as the 384-rack
// fabric's; the buffers and the flow count serve those measured too
// rarely at all, such as the finite buffers' at some flow counts and the
// largest runs, with an interval as wide as the pooled errors spread (the
// atlas report measures how often it holds at each level). A region of
// fewer than MinFlows flows is not pooled over flow counts: the atlas
// measures none like it.
func (r Region) Pooled() []Region {
	a, b, c, d, e := r, r, r, r, r
	a.Oversub = ""
	b.Oversub, b.Load = "", ""
	c.Oversub, c.Load, c.Network = "", "", ""
	d.Oversub, d.Load, d.Network, d.Buffer = "", "", "", AnyBuffers
	e.Oversub, e.Load, e.Network, e.Buffer, e.Flows = "", "", "", AnyBuffers, AnyFlows
	if r.Flows == FlowBand(0) {
		return []Region{r, a, b, c, d}
	}
	return []Region{r, a, b, c, d, e}
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
	// AbsP90 is the 90th percentile of the error's magnitude.
	AbsP90 float64 `json:"-"`
	// Lo and Hi are the stated interval (Summary.Stated), set by
	// Summary.ExpectIn; not stored.
	Lo, Hi float64 `json:"-"`
}

// Widened is the interval [P50 - f (P50 - P10), P50 + f (P90 - P50)]:
// the p10..p90 interval scaled by f about the median.
func (iv Interval) Widened(f float64) (lo, hi float64) {
	return iv.P50 - f*(iv.P50-iv.P10), iv.P50 + f*(iv.P90-iv.P50)
}

// Beyond reports whether the stated interval reaches beyond ±threshold.
func (iv Interval) Beyond(threshold float64) bool {
	return iv.Lo < -threshold || iv.Hi > threshold
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
	// Threshold is the error magnitude an answer may reach: a size bin
	// whose stated interval reaches beyond ±Threshold is marked not
	// trustworthy, and an estimator refuses a scenario whose interval
	// over all flows does (0.25).
	Threshold float64 `json:"threshold"`
	// MinScenarios is the fewest scenarios a region needs for its
	// interval to be stated (and a refusal made); a region with fewer
	// falls back to a coarser one (Region.Pooled).
	MinScenarios int `json:"min_scenarios"`
	// Coverage is the share of errors on scenarios outside the atlas's
	// sample the stated intervals are meant to hold (0.8); 0 in a summary
	// whose intervals are the bare p10..p90.
	Coverage float64 `json:"coverage,omitempty"`
	// Widen holds, per estimator and size bin, the factor the p10..p90
	// interval is widened by about its median (Interval.Widened) to hold
	// Coverage of the errors: chosen by cross-validation over the atlas's
	// own sample (lib/accuracy). A missing factor is 1.
	Widen map[string]map[string]float64 `json:"widen,omitempty"`
	// Scenarios is the number of atlas scenarios summarized.
	Scenarios int `json:"scenarios"`
	// Source says which archive and sample the summary came from.
	Source    string     `json:"source"`
	Intervals []Interval `json:"intervals"`
	// Directions score, per estimator, changed setting and size bin, the
	// direction of the atlas's counterfactual pairs (DirectionsOf,
	// DirectionLine).
	Directions []Direction `json:"directions,omitempty"`
}

// Defaults of a Summary.
const (
	DefaultThreshold    = 0.25
	DefaultMinScenarios = 10
	DefaultCoverage     = 0.8
)

// AllBin is the label of the size bin of all flows, the last of
// Summary.Bins: its interval decides a refusal.
const AllBin = "all"

// Factor is the widening factor of estimator's intervals in bin (1 when
// the summary has none).
func (s *Summary) Factor(estimator, bin string) float64 {
	if f, ok := s.Widen[estimator][bin]; ok {
		return f
	}
	return 1
}

// Stated is the interval the summary states for iv: its p10..p90
// widened by the estimator's factor in iv's bin.
func (s *Summary) Stated(iv Interval) (lo, hi float64) {
	return iv.Widened(s.Factor(iv.Estimator, iv.Bin))
}

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
	if !(s.Coverage >= 0 && s.Coverage < 1) {
		return nil, fmt.Errorf("atlas: summary: coverage %g is not in [0, 1)", s.Coverage)
	}
	for e, m := range s.Widen {
		for b, f := range m {
			if !(f > 0) || math.IsInf(f, 0) {
				return nil, fmt.Errorf("atlas: summary: widen[%s][%s] = %g, want a positive finite factor", e, b, f)
			}
		}
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
	// Fallback says why Pooled is coarser than Region ("" when it is not):
	// the finer regions' scenario counts.
	Fallback string
	// Intervals holds one interval per size bin of the summary, then
	// "all", with the stated interval in Lo and Hi; empty when the atlas
	// has too few scenarios here.
	Intervals []Interval
	// Coverage is the share of errors the stated intervals are meant to
	// hold (0 for bare p10..p90 intervals).
	Coverage float64
	// Untrusted lists the size bins (not "all") whose stated interval
	// reaches beyond the threshold: their answers are not trustworthy.
	Untrusted []string
	// Refuse is set when the stated interval over all flows reaches
	// beyond the threshold; Reason then says so.
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

// scenarios is the number of atlas scenarios of estimator in region r
// (the most any bin has).
func (s *Summary) scenarios(estimator string, r Region) int {
	n := 0
	for _, iv := range s.Intervals {
		if iv.Estimator == estimator && iv.Region == r {
			n = max(n, iv.N)
		}
	}
	return n
}

// ExpectIn is Expect for a scenario of region.
func (s *Summary) ExpectIn(estimator string, region Region) Expectation {
	e := Expectation{Estimator: estimator, Region: region, Coverage: s.Coverage}
	var fewer []string
	var tried []Region
	for _, r := range e.Region.Pooled() {
		if slices.Contains(tried, r) {
			continue
		}
		tried = append(tried, r)
		var ivs []Interval
		for _, iv := range s.Intervals {
			if iv.Estimator == estimator && iv.Region == r && iv.N >= s.MinScenarios {
				iv.Lo, iv.Hi = s.Stated(iv)
				ivs = append(ivs, iv)
			}
		}
		if len(ivs) == 0 {
			fewer = append(fewer, fmt.Sprintf("%s (%d)", r, s.scenarios(estimator, r)))
			continue
		}
		e.Pooled, e.Intervals = r, ivs
		if len(fewer) > 0 {
			e.Fallback = fmt.Sprintf("fewer than %d atlas scenarios in %s: stated for the coarser region %s", s.MinScenarios, strings.Join(fewer, " and in "), r)
		}
		for _, iv := range ivs {
			switch {
			case !iv.Beyond(s.Threshold):
			case iv.Bin == AllBin:
				e.Refuse = true
				pooled := ""
				if len(fewer) > 0 {
					pooled = fmt.Sprintf(" (the scenario's own region, %s, has fewer than %d atlas scenarios)", e.Region, s.MinScenarios)
				}
				e.Reason = fmt.Sprintf("%s is known to be off here: in the accuracy atlas's region %s%s, its stated interval of the p99 error over all flows is %+.0f..%+.0f%% (%s, %d scenarios), beyond the threshold of ±%.0f%%",
					estimator, r, pooled, 100*iv.Lo, 100*iv.Hi, e.intervalWord(), iv.N, 100*s.Threshold)
			default:
				e.Untrusted = append(e.Untrusted, iv.Bin)
			}
		}
		return e
	}
	return e
}

// intervalWord names the stated interval: "80% interval" or "p10..p90".
func (e Expectation) intervalWord() string {
	if e.Coverage > 0 {
		return fmt.Sprintf("%.0f%% interval", 100*e.Coverage)
	}
	return "p10..p90"
}

// Lines renders the expectation as text lines: one per size bin with its
// stated interval, marked where it is not trustworthy, or one saying the
// atlas has too few scenarios here.
func (e Expectation) Lines() []string {
	if !e.Known() {
		return []string{fmt.Sprintf("%s: expected p99 error unknown: the accuracy atlas has fewer than its minimum of scenarios in region %s", e.Estimator, e.Region)}
	}
	out := []string{fmt.Sprintf("%s: expected p99 error (%s, accuracy atlas, region %s):", e.Estimator, e.intervalWord(), e.Pooled)}
	if e.Fallback != "" {
		out = append(out, "  "+e.Fallback)
	}
	for _, iv := range e.Intervals {
		mark := ""
		if slices.Contains(e.Untrusted, iv.Bin) {
			mark = "  not trustworthy"
		}
		out = append(out, fmt.Sprintf("  %-10s %+6.0f%% .. %+6.0f%%  median %+6.0f%%  worst %+6.0f%%  (%d scenarios)%s",
			iv.Bin, 100*iv.Lo, 100*iv.Hi, 100*iv.P50, 100*iv.Max, iv.N, mark))
	}
	return out
}

// Extra returns the expectation as frame metadata: atlas_region,
// atlas_pooled_region (and atlas_fallback when it is coarser),
// atlas_coverage, atlas_bins (the bins in order, "|"-separated), per bin
// atlas_p99_error[<bin>] = "lo,median,hi,n" (the stated interval) and
// atlas_untrusted_bins, the bins whose interval reaches beyond the
// threshold ("|"-separated, "" for none).
func (e Expectation) Extra() map[string]string {
	m := map[string]string{"atlas_region": e.Region.String()}
	if !e.Known() {
		m["atlas_interval"] = "unknown: too few atlas scenarios in this region"
		return m
	}
	m["atlas_pooled_region"] = e.Pooled.String()
	if e.Fallback != "" {
		m["atlas_fallback"] = e.Fallback
	}
	m["atlas_coverage"] = fmt.Sprintf("%g", e.Coverage)
	bins := make([]string, len(e.Intervals))
	for i, iv := range e.Intervals {
		bins[i] = iv.Bin
	}
	m["atlas_bins"] = strings.Join(bins, "|")
	m["atlas_untrusted_bins"] = strings.Join(e.Untrusted, "|")
	for _, iv := range e.Intervals {
		m["atlas_p99_error["+iv.Bin+"]"] = fmt.Sprintf("%.4g,%.4g,%.4g,%d", iv.Lo, iv.P50, iv.Hi, iv.N)
	}
	return m
}
