package atlas

import (
	"bytes"
	"reflect"
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

func TestRegionOf(t *testing.T) {
	for _, c := range []struct {
		name string
		spec scenario.Spec
		want Region
	}{
		{"stock ns-3", spec("ns3", "meta32-4:1", 0.65, 20_000), Region{"ns3", "32 racks", ">60%", "4:1", "5k-50k"}},
		{"fork dcqcn", spec("fork-dcqcn", "meta32-2:1", 0.45, 10_000), Region{"fork-dcqcn", "32 racks", "40-60%", "2:1", "5k-50k"}},
		{"fork dctcp is dctcp", spec("fork-dctcp", "meta32-1:1", 0.2, 5_000), Region{"dctcp", "32 racks", "<40%", "1:1", "5k-50k"}},
		{"plain hpcc, 384 racks", spec("hpcc", "meta384-2:1", 0.6, 1_000_000), Region{"hpcc", "384 racks", "40-60%", "2:1", ">=500k"}},
		{"below the atlas", spec("timely", "meta32-2:1", 0.4, 4_999), Region{"timely", "32 racks", "40-60%", "2:1", "<5k"}},
		{"not a fabric", spec("dctcp", "", 0.39, 100_000), Region{"dctcp", "other", "<40%", "other", "50k-500k"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := RegionOf(c.spec); got != c.want {
				t.Errorf("RegionOf = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestExpect(t *testing.T) {
	r := Region{"dcqcn", "32 racks", "40-60%", "2:1", "5k-50k"}
	coarse := r.Pooled()[2] // network and flows only
	iv := func(reg Region, bin string, n int, p10, p90 float64) Interval {
		abs := max(-p10, p90)
		return Interval{Estimator: "m3", Region: reg, Bin: bin, N: n, P10: p10, P50: (p10 + p90) / 2, P90: p90, Max: p10, AbsP90: abs}
	}
	s := &Summary{Threshold: 0.25, MinScenarios: 5, Intervals: []Interval{
		iv(r, "all", 4, -0.1, 0.1),          // too few: not stated
		iv(coarse, "<=10KB", 9, -0.5, -0.2), // stated, refuses
		iv(coarse, "all", 9, -0.2, 0.1),     // stated
		iv(Region{"hpcc", "32 racks", "", "", "5k-50k"}, "all", 9, -0.05, 0.05),
	}}
	for _, c := range []struct {
		name    string
		est     string
		region  Region
		pooled  Region
		bins    int
		refuses bool
	}{
		{"falls back to the coarsest region with enough scenarios", "m3", r, coarse, 2, true},
		{"another flow band is unknown", "m3", Region{"dcqcn", "32 racks", "40-60%", "2:1", "50k-500k"}, Region{}, 0, false},
		{"within the threshold", "m3", Region{"hpcc", "32 racks", ">60%", "1:1", "5k-50k"}, Region{"hpcc", "32 racks", "", "", "5k-50k"}, 1, false},
		{"an estimator without intervals", "parsimon", r, Region{}, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := s.ExpectIn(c.est, c.region)
			if e.Pooled != c.pooled || len(e.Intervals) != c.bins || e.Refuse != c.refuses {
				t.Fatalf("got pooled %+v, %d bins, refuse %v; want %+v, %d, %v", e.Pooled, len(e.Intervals), e.Refuse, c.pooled, c.bins, c.refuses)
			}
			if c.refuses && !strings.Contains(e.Reason, "<=10KB") {
				t.Errorf("reason %q does not name the bin", e.Reason)
			}
		})
	}
}

func TestSummaryRoundTrip(t *testing.T) {
	s := &Summary{Bins: []string{"<=10KB", "all"}, Threshold: 0.25, MinScenarios: 5, Scenarios: 3, Source: "test",
		Intervals: []Interval{{Estimator: "parsimon", Region: Region{"ns3", "32 racks", "<40%", "4:1", "5k-50k"}, Bin: "all", N: 3, P10: -0.1, P50: 0.2, P90: 0.7, Max: 1.5, AbsP90: 0.8}}}
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
	if _, err := Read(strings.NewReader(`{"threshold":0,"min_scenarios":5}`)); err == nil {
		t.Error("a zero threshold reads without error")
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
