package experiment

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
)

func TestSampleDeterministicAndExtensible(t *testing.T) {
	a, err := Sample(DefaultSpace(), 50, 3)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Sample(DefaultSpace(), 50, 3)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same space, n and seed gave different samples")
	}
	prefix, _ := Sample(DefaultSpace(), 20, 3)
	if !reflect.DeepEqual(prefix, a[:20]) {
		t.Error("the first 20 of 50 draws differ from a 20-draw sample")
	}
	other, _ := Sample(DefaultSpace(), 50, 4)
	same := 0
	ids := map[string]bool{}
	for i := range a {
		if a[i].ID() == other[i].ID() {
			same++
		}
		ids[a[i].ID()] = true
	}
	if same != 0 || len(ids) != len(a) {
		t.Errorf("seed 4 repeats %d of seed 3's scenarios; %d distinct ids of %d", same, len(ids), len(a))
	}
}

// Every choice of every dimension is drawn about equally often and the
// max load is uniform on its range: counts are checked against the
// binomial standard deviation (5 sigma), the load's mean and variance
// against 1/2 and 1/12 of the range.
func TestSampleCoversSpace(t *testing.T) {
	const n = 6000
	sp := DefaultSpace()
	specs, err := Sample(sp, n, 11)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	var sum, sum2 float64
	for _, s := range specs {
		c := s.Workload.Components[0]
		count["preset "+s.Topology.Preset]++
		count["matrix "+c.Matrix]++
		count["sizes "+c.Sizes.Dist]++
		count["sigma "+map[float64]string{1: "1", 2: "2"}[c.Arrival.Sigma]]++
		if c.MaxLoad < sp.MaxLoad.Min || c.MaxLoad > sp.MaxLoad.Max {
			t.Fatalf("max load %g outside [%g, %g]", c.MaxLoad, sp.MaxLoad.Min, sp.MaxLoad.Max)
		}
		u := (c.MaxLoad - sp.MaxLoad.Min) / (sp.MaxLoad.Max - sp.MaxLoad.Min)
		sum += u
		sum2 += u * u
		if s.Workload.Flows != DefaultFlows || s.Network.PayloadBytes != 1000 {
			t.Fatalf("flows %d, payload %d", s.Workload.Flows, s.Network.PayloadBytes)
		}
	}
	dims := []struct {
		prefix  string
		choices []string
	}{
		{"preset ", sp.Presets}, {"matrix ", sp.Matrices}, {"sizes ", sp.Sizes}, {"sigma ", []string{"1", "2"}},
	}
	for _, d := range dims {
		p := 1 / float64(len(d.choices))
		sd := math.Sqrt(n * p * (1 - p))
		for _, c := range d.choices {
			if got := float64(count[d.prefix+c]); math.Abs(got-n*p) > 5*sd {
				t.Errorf("%s%s drawn %g times, want %g +- %.0f", d.prefix, c, got, n*p, 5*sd)
			}
		}
	}
	mean, variance := sum/n, sum2/n-(sum/n)*(sum/n)
	if math.Abs(mean-0.5) > 5*math.Sqrt(1.0/12/n) || math.Abs(variance-1.0/12) > 0.01 {
		t.Errorf("normalized max load: mean %.4f, variance %.4f; want 0.5, 0.0833", mean, variance)
	}
	// Sampled specs build into scenarios hitting their load target.
	for _, s := range specs[:3] {
		s.Workload.Flows = 500
		sc, err := scenario.Build(s)
		if err != nil {
			t.Fatal(err)
		}
		if len(sc.Flows) != 500 || len(sc.Net.Hosts()) != 256 {
			t.Errorf("%s: %d flows on %d hosts", s.Name, len(sc.Flows), len(sc.Net.Hosts()))
		}
	}
}

func TestParseSpace(t *testing.T) {
	s, err := ParseSpace(strings.NewReader(`{"presets":["meta32-4:1"],"flows":[300,600],"max_load":{"min":0.3,"max":0.3}}`))
	if err != nil {
		t.Fatal(err)
	}
	def := DefaultSpace()
	if !reflect.DeepEqual(s.Matrices, def.Matrices) || !reflect.DeepEqual(s.Sizes, def.Sizes) || len(s.Sigmas) != 2 {
		t.Errorf("dimensions left out must keep the defaults: %+v", s)
	}
	specs, err := Sample(s, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range specs {
		c := sp.Workload.Components[0]
		if sp.Topology.Preset != "meta32-4:1" || c.MaxLoad != 0.3 || (sp.Workload.Flows != 300 && sp.Workload.Flows != 600) {
			t.Errorf("spec outside the space: %s", sp.JSON())
		}
	}

	// A network preset by name: every sampled spec carries the resolved
	// configuration.
	s, err = ParseSpace(strings.NewReader(`{"network":{"preset":"hpcc","hpcc":{"eta":0.9}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := netcfg.Preset("hpcc")
	want.HPCC.Eta = 0.9
	if specs, err = Sample(s, 3, 1); err != nil {
		t.Fatal(err)
	}
	for _, sp := range specs {
		if !reflect.DeepEqual(sp.Network, want) {
			t.Errorf("network %+v, want hpcc at eta 0.9", sp.Network)
		}
	}

	bad := []struct{ name, json, want string }{
		{"not json", `{"presets":`, "malformed space"},
		{"network preset", `{"network":{"preset":"reno"}}`, `unknown network preset "reno"`},
		{"unknown field", `{"preset":["meta32-1:1"]}`, `unknown field "preset"`},
		{"empty dimension", `{"matrices":[]}`, "no matrices"},
		{"unknown preset", `{"presets":["meta64"]}`, `unknown fabric preset "meta64"`},
		{"unknown sizes", `{"sizes":["bimodal"]}`, `sizes "bimodal"`},
		{"bad sigma", `{"sigmas":[0]}`, "sigma 0"},
		{"load range", `{"max_load":{"min":0.5,"max":1.2}}`, "max_load range [0.5, 1.2]"},
		{"reversed range", `{"max_load":{"min":0.5,"max":0.4}}`, "min <= max"},
		{"flows", `{"flows":[0]}`, "flow count 0"},
		{"network", `{"network":{"cc":"reno"}}`, `"reno"`},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSpace(strings.NewReader(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := Sample(DefaultSpace(), 0, 1); err == nil || !strings.Contains(err.Error(), "sample size 0") {
		t.Errorf("n = 0: err = %v", err)
	}
	if _, err := LoadSpace("no/such/space.json"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: err = %v", err)
	}
}

// Replicas of a scenario differ only in their seed: distinct ids, one
// family each, and the first replica is the spec itself.
func TestReplicate(t *testing.T) {
	specs, err := Sample(DefaultSpace(), 3, 5)
	if err != nil {
		t.Fatal(err)
	}
	reps, err := Replicate(specs, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != 12 {
		t.Fatalf("%d replicas, want 12", len(reps))
	}
	ids := map[string]bool{}
	for i, r := range reps {
		s := specs[i/4]
		if r.FamilyID() != s.FamilyID() || r.Seed != s.Seed+uint64(i%4) {
			t.Errorf("replica %d: family %s seed %d, want %s and %d", i, r.FamilyID(), r.Seed, s.FamilyID(), s.Seed+uint64(i%4))
		}
		r.Seed = s.Seed
		if !reflect.DeepEqual(r, s) {
			t.Errorf("replica %d differs from its spec beyond the seed", i)
		}
		ids[reps[i].ID()] = true
	}
	if len(ids) != 12 || reps[0].ID() != specs[0].ID() {
		t.Errorf("%d distinct ids of 12; first replica id %s, spec %s", len(ids), reps[0].ID(), specs[0].ID())
	}
	if specs[0].FamilyID() == specs[1].FamilyID() {
		t.Error("two different scenarios share a family")
	}
	if _, err := Replicate(specs, 0); err == nil {
		t.Error("0 seeds: no error")
	}
}
