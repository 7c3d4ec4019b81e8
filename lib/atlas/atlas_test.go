package atlas

import (
	"bytes"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

func spec(preset, topology string, load float64, flows int) scenario.Spec {
	cfg, err := netcfg.Preset(preset)
	if err != nil {
		panic(err)
	}
	return scenario.Spec{Topology: scenario.Topology{Preset: topology}, Network: cfg,
		Workload: workload.Spec{Flows: flows, Components: []workload.Component{{Matrix: "A", MaxLoad: load}}}}
}

// reg is the region of infinite buffers with the other fields in order.
func reg(network, fabric, load, oversub, flows string) Region {
	return Region{Network: network, Fabric: fabric, Load: load, Oversub: oversub, Flows: flows}
}

// buffered is s with its network's switch buffers changed by f.
func buffered(s scenario.Spec, f func(c *netcfg.Config)) scenario.Spec {
	f(&s.Network)
	return s
}

func TestRegionOf(t *testing.T) {
	for _, c := range []struct {
		name string
		spec scenario.Spec
		want Region
	}{
		{"stock ns-3", spec("ns3", "meta32-4:1", 0.65, 20_000), reg("ns3", "32 racks", ">60%", "4:1", "5k-50k")},
		{"fork dcqcn", spec("fork-dcqcn", "meta32-2:1", 0.45, 10_000), reg("fork-dcqcn", "32 racks", "40-60%", "2:1", "5k-50k")},
		{"fork dctcp is dctcp", spec("fork-dctcp", "meta32-1:1", 0.2, 5_000), reg("dctcp", "32 racks", "<40%", "1:1", "5k-50k")},
		{"plain hpcc, 384 racks", spec("hpcc", "meta384-2:1", 0.6, 1_000_000), reg("hpcc", "384 racks", "40-60%", "2:1", ">=500k")},
		{"below the atlas", spec("timely", "meta32-2:1", 0.4, 4_999), reg("timely", "32 racks", "40-60%", "2:1", "<5k")},
		{"not a fabric", spec("dctcp", "", 0.39, 100_000), reg("dctcp", "other", "<40%", "other", "50k-500k")},
		{"per-port buffers", buffered(spec("dctcp", "meta32-2:1", 0.5, 10_000), func(c *netcfg.Config) { c.BufferBytes = 300_000 }),
			Region{Network: "dctcp", Buffer: "per-port buffer", Fabric: "32 racks", Load: "40-60%", Oversub: "2:1", Flows: "5k-50k"}},
		{"shared buffers", buffered(spec("dcqcn", "meta384-1:1", 0.7, 200_000), func(c *netcfg.Config) { c.Buffer.SharedBytes = 300_000 }),
			Region{Network: "dcqcn", Buffer: "shared buffer", Fabric: "384 racks", Load: ">60%", Oversub: "1:1", Flows: "50k-500k"}},
		{"PFC", buffered(spec("fork-hpcc", "meta32-4:1", 0.3, 50_000), func(c *netcfg.Config) { c.Buffer.SharedBytes, c.PFC.Enabled = 300_000, true }),
			Region{Network: "fork-hpcc", Buffer: "shared buffer+PFC", Fabric: "32 racks", Load: "<40%", Oversub: "4:1", Flows: "50k-500k"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := RegionOf(c.spec); got != c.want {
				t.Errorf("RegionOf = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestExpect(t *testing.T) {
	r := reg("dcqcn", "32 racks", "40-60%", "2:1", "5k-50k")
	coarse := r.Pooled()[2] // network and flows only
	every := r.Pooled()[3]  // flows only, over every network family
	anyBuf := r.Pooled()[4] // and over every buffer band
	anyFlows := r.Pooled()[5]
	hpcc := reg("hpcc", "32 racks", "", "", "5k-50k")
	iv := func(est string, reg Region, bin string, n int, p10, p90 float64) Interval {
		abs := max(-p10, p90)
		return Interval{Estimator: est, Region: reg, Bin: bin, N: n, P10: p10, P50: (p10 + p90) / 2, P90: p90, Max: p10, AbsP90: abs}
	}
	s := &Summary{Threshold: 0.25, MinScenarios: 5, Coverage: 0.8,
		Widen: map[string]map[string]float64{"m3": {"all": 2}},
		Intervals: []Interval{
			iv("m3", r, "all", 4, -0.1, 0.1),          // too few: not stated
			iv("m3", coarse, "<=10KB", 9, -0.5, -0.2), // stated, not trustworthy
			iv("m3", coarse, "all", 9, -0.1, 0.1),     // widened by 2: -0.2..+0.2, answers
			iv("m3", hpcc, "all", 9, -0.1, 0.15),      // widened by 2: -0.225..+0.275, refuses
			iv("parsimon", hpcc, "<=10KB", 9, -0.1, 0.1),
			iv("parsimon", hpcc, "all", 9, -0.3, 0.1), // not widened: refuses
			iv("m3", every, "all", 20, -0.2, 0.2),     // widened by 2: refuses
			iv("m3", anyBuf, "all", 25, -0.1, 0.1),
			iv("m3", anyFlows, "all", 30, -0.05, 0.05),
		}}
	for _, c := range []struct {
		name      string
		est       string
		region    Region
		pooled    Region
		bins      int
		untrusted []string
		refuses   bool
		fallback  bool
	}{
		{"falls back to the coarsest region with enough scenarios, marks a bin", "m3", r, coarse, 2, []string{"<=10KB"}, false, true},
		{"another flow band falls back to every flow count's errors", "m3", reg("dcqcn", "32 racks", "40-60%", "2:1", "50k-500k"), anyFlows, 1, nil, false, true},
		{"fewer flows than any atlas scenario is unknown", "m3", reg("dcqcn", "32 racks", "40-60%", "2:1", FlowBand(10)), Region{}, 0, nil, false, false},
		{"another fabric is unknown", "m3", reg("dcqcn", "384 racks", "40-60%", "2:1", "5k-50k"), Region{}, 0, nil, false, false},
		{"rarely measured buffers fall back to every buffer band's errors", "m3", Region{Network: "dcqcn", Buffer: "shared buffer", Fabric: "32 racks", Load: "40-60%", Oversub: "2:1", Flows: "5k-50k"}, anyBuf, 1, nil, false, true},
		{"all flows' widened interval beyond the threshold", "m3", reg("hpcc", "32 racks", ">60%", "1:1", "5k-50k"), hpcc, 1, nil, true, true},
		{"all flows' bare interval beyond the threshold", "parsimon", hpcc, hpcc, 2, nil, true, false},
		{"an estimator without intervals", "flowsim", r, Region{}, 0, nil, false, false},
		{"a rarely measured family falls back to every family's errors", "m3", reg("timely", "32 racks", "<40%", "1:1", "5k-50k"), every, 1, nil, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := s.ExpectIn(c.est, c.region)
			if e.Pooled != c.pooled || len(e.Intervals) != c.bins || e.Refuse != c.refuses || !slices.Equal(e.Untrusted, c.untrusted) {
				t.Fatalf("got pooled %+v, %d bins, untrusted %v, refuse %v; want %+v, %d, %v, %v", e.Pooled, len(e.Intervals), e.Untrusted, e.Refuse, c.pooled, c.bins, c.untrusted, c.refuses)
			}
			if (e.Fallback != "") != c.fallback {
				t.Errorf("fallback %q, want one: %v", e.Fallback, c.fallback)
			}
			if c.refuses && !strings.Contains(e.Reason, "all flows") {
				t.Errorf("reason %q does not name the bin of all flows", e.Reason)
			}
			// A refusal from a coarser region names the scenario's own.
			if own := "the scenario's own region, " + c.region.String(); c.refuses && strings.Contains(e.Reason, own) != c.fallback {
				t.Errorf("reason %q: names %q: %v, want %v", e.Reason, own, !c.fallback, c.fallback)
			}
			for _, iv := range e.Intervals {
				lo, hi := iv.Widened(s.Factor(c.est, iv.Bin))
				if iv.Lo != lo || iv.Hi != hi {
					t.Errorf("%s: stated %g..%g, want the widened %g..%g", iv.Bin, iv.Lo, iv.Hi, lo, hi)
				}
			}
		})
	}
}

func TestWidened(t *testing.T) {
	iv := Interval{P10: -0.2, P50: 0.1, P90: 0.2}
	for _, c := range []struct {
		f, lo, hi float64
	}{{1, -0.2, 0.2}, {2, -0.5, 0.3}, {0.5, -0.05, 0.15}} {
		lo, hi := iv.Widened(c.f)
		if math.Abs(lo-c.lo) > 1e-12 || math.Abs(hi-c.hi) > 1e-12 {
			t.Errorf("Widened(%g) = %g..%g, want %g..%g", c.f, lo, hi, c.lo, c.hi)
		}
	}
}

func TestSummaryRoundTrip(t *testing.T) {
	s := &Summary{Bins: []string{"<=10KB", "all"}, Threshold: 0.25, MinScenarios: 5, Scenarios: 3, Source: "test",
		Coverage: 0.8, Widen: map[string]map[string]float64{"parsimon": {"all": 1.25}},
		Intervals: []Interval{{Estimator: "parsimon", Region: reg("ns3", "32 racks", "<40%", "4:1", "5k-50k"), Bin: "all", N: 3, P10: -0.1, P50: 0.2, P90: 0.7, Max: 1.5, AbsP90: 0.8}}}
	var b bytes.Buffer
	if err := s.Write(&b); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, s)
	}
	for _, bad := range []string{`{"threshold":0,"min_scenarios":5}`, `{"threshold":0.25,"min_scenarios":5,"coverage":1}`,
		`{"threshold":0.25,"min_scenarios":5,"widen":{"m3":{"all":0}}}`} {
		if _, err := Read(strings.NewReader(bad)); err == nil {
			t.Errorf("%s reads without error", bad)
		}
	}
}

func TestEmbedded(t *testing.T) {
	s, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, iv := range s.Intervals {
		if !(iv.P10 <= iv.P50 && iv.P50 <= iv.P90) || iv.N < 1 {
			t.Errorf("embedded interval %+v: quantiles out of order or no scenarios", iv)
		}
	}
}

func TestRegionString(t *testing.T) {
	r := Region{Network: "dcqcn", Buffer: "shared buffer+PFC", Fabric: "384 racks", Load: ">60%", Oversub: "2:1", Flows: ">=500k"}
	for i, want := range []string{
		"dcqcn, shared buffer+PFC, 384 racks, load >60%, 2:1, >=500k flows",
		"dcqcn, shared buffer+PFC, 384 racks, load >60%, >=500k flows",
		"dcqcn, shared buffer+PFC, 384 racks, >=500k flows",
		"any network, shared buffer+PFC, 384 racks, >=500k flows",
		"any network, any buffers, 384 racks, >=500k flows",
		"any network, any buffers, 384 racks, any flow count",
	} {
		if got := r.Pooled()[i].String(); got != want {
			t.Errorf("level %d: %q, want %q", i, got, want)
		}
	}
}
