package experiment

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"reflect"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Space is a scenario sample space: a set of choices per dimension, each
// drawn uniformly and independently for every scenario (Parsimon Table 3).
type Space struct {
	// Presets are the topology presets to choose from (topo.Presets); on
	// the 32-rack fabric they set the oversubscription.
	Presets []string `json:"presets"`
	// Matrices are traffic matrix names or CSV paths (workload.Component).
	Matrices []string `json:"matrices"`
	// Sizes are flow-size distribution names (workload.SizeDistNames).
	Sizes []string `json:"sizes"`
	// Sigmas are the log-normal burstiness shapes of the arrivals.
	Sigmas []float64 `json:"sigmas"`
	// MaxLoad is the range the max-load target is drawn from, uniformly.
	MaxLoad Range `json:"max_load"`
	// Flows are the flow counts to choose from.
	Flows []int `json:"flows"`
	// Network is the network model of every scenario; nil keeps
	// netcfg.Default.
	Network *netcfg.Config `json:"network,omitempty"`
}

// Range is a closed interval [Min, Max].
type Range struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// DefaultFlows is the flow count of DefaultSpace. Parsimon ran 2M flows per
// scenario and m3 10M; 20k keeps a 192-scenario packet-level sweep to hours
// on two cores rather than weeks. It is too few for Parsimon on the
// all-to-all matrix A: a host channel there carries about 75 flows, fewer
// than Parsimon's bucket size B = 100, so every flow size on it shares one
// delay distribution, and Parsimon's p99 errors come out two to three
// times what they are at 100k flows (BENCHMARKS.md, Parsimon).
// Override it with the space's flows.
const DefaultFlows = 20_000

// DefaultSpace is the sample space of Parsimon's Table 3 (also m3's Table
// 3) on the 32-rack fabrics: oversubscription 1:1, 2:1 or 4:1, matrix A, B
// or C, CacheFollower, WebServer or Hadoop sizes, burstiness sigma 1 or 2,
// max load uniform in [26%, 83%], DefaultFlows flows.
func DefaultSpace() Space {
	return Space{
		Presets:  []string{"meta32-1:1", "meta32-2:1", "meta32-4:1"},
		Matrices: []string{"A", "B", "C"},
		Sizes:    []string{"cachefollower", "webserver", "hadoop"},
		Sigmas:   []float64{1, 2},
		MaxLoad:  Range{Min: 0.26, Max: 0.83},
		Flows:    []int{DefaultFlows},
	}
}

// ParseSpace reads a space from JSON. Unknown fields are errors, and
// dimensions left out keep DefaultSpace's choices, so a space file need
// only name what it changes; so do network fields left out, which keep
// netcfg.Default's values.
func ParseSpace(r io.Reader) (Space, error) {
	s := DefaultSpace()
	network := netcfg.Default()
	s.Network = &network
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Space{}, fmt.Errorf("experiment: malformed space: %w", err)
	}
	if dec.More() {
		return Space{}, errors.New("experiment: malformed space: more than one JSON value")
	}
	if reflect.DeepEqual(*s.Network, netcfg.Default()) {
		s.Network = nil
	}
	return s, s.Validate()
}

// LoadSpace reads a space file, or returns DefaultSpace for "default".
func LoadSpace(path string) (Space, error) {
	if path == "default" {
		return DefaultSpace(), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Space{}, fmt.Errorf("experiment: %w", err)
	}
	s, err := ParseSpace(bytes.NewReader(b))
	if err != nil {
		return Space{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Validate checks that every dimension has a choice and that the choices
// are ones the scenario builder knows, so a typo fails before a long sweep
// starts rather than in its hundredth scenario.
func (s Space) Validate() error {
	for _, d := range []struct {
		name string
		n    int
	}{{"presets", len(s.Presets)}, {"matrices", len(s.Matrices)}, {"sizes", len(s.Sizes)}, {"sigmas", len(s.Sigmas)}, {"flows", len(s.Flows)}} {
		if d.n == 0 {
			return fmt.Errorf("experiment: space has no %s to choose from", d.name)
		}
	}
	for _, p := range s.Presets {
		if _, err := topo.Preset(p); err != nil {
			return fmt.Errorf("experiment: space: %w", err)
		}
	}
	for _, z := range s.Sizes {
		if _, err := workload.NewSizeDist(workload.SizeSpec{Dist: z}); err != nil {
			return fmt.Errorf("experiment: space: sizes %q: %w", z, err)
		}
	}
	for _, g := range s.Sigmas {
		if !(g > 0) {
			return fmt.Errorf("experiment: space: sigma %g must be positive", g)
		}
	}
	if !(s.MaxLoad.Min > 0 && s.MaxLoad.Min <= s.MaxLoad.Max && s.MaxLoad.Max < 1) {
		return fmt.Errorf("experiment: space: max_load range [%g, %g] must lie in (0, 1) with min <= max", s.MaxLoad.Min, s.MaxLoad.Max)
	}
	for _, f := range s.Flows {
		if f <= 0 {
			return fmt.Errorf("experiment: space: flow count %d must be positive", f)
		}
	}
	if s.Network != nil {
		if err := s.Network.Validate(); err != nil {
			return fmt.Errorf("experiment: space: %w", err)
		}
	}
	return nil
}

// Sample draws n scenarios from the space. The same space, n and seed give
// the same specs, and the first k of n draws equal a k-draw sample, so a
// sweep can be extended without changing the scenarios it already has.
// Each spec's own seed (which drives its workload) is drawn too.
func Sample(s Space, n int, seed uint64) ([]scenario.Spec, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, fmt.Errorf("experiment: sample size %d must be positive", n)
	}
	network := netcfg.Default()
	if s.Network != nil {
		network = *s.Network
	}
	r := rand.New(rand.NewPCG(seed, 0x7461696c73636f70)) // "tailscop"
	specs := make([]scenario.Spec, n)
	for i := range specs {
		// Draw every dimension in a fixed order, each from the same stream.
		preset := s.Presets[r.IntN(len(s.Presets))]
		matrix := s.Matrices[r.IntN(len(s.Matrices))]
		sizes := s.Sizes[r.IntN(len(s.Sizes))]
		sigma := s.Sigmas[r.IntN(len(s.Sigmas))]
		load := s.MaxLoad.Min + r.Float64()*(s.MaxLoad.Max-s.MaxLoad.Min)
		flows := s.Flows[r.IntN(len(s.Flows))]
		specs[i] = scenario.Spec{
			Name:     fmt.Sprintf("sample-%d", i),
			Topology: scenario.Topology{Preset: preset},
			Workload: workload.Spec{
				Flows: flows,
				Components: []workload.Component{{
					Matrix:  matrix,
					Sizes:   workload.SizeSpec{Dist: sizes},
					Arrival: workload.Arrival{Process: "lognormal", Sigma: sigma},
					MaxLoad: load,
				}},
			},
			Network: network,
			Seed:    r.Uint64() >> 11, // below 2^53: exact in every JSON reader
		}
	}
	return specs, nil
}

// Replicate runs every scenario with n seeds: it returns, spec by spec, n
// copies of each with seeds Seed, Seed+1, ..., Seed+n-1. The first copy is
// the spec itself, so a sweep replicated later reuses its results. The
// copies share the spec's FamilyID, by which summaries combine them into
// means with confidence intervals (summary.CombineSeeds).
func Replicate(specs []scenario.Spec, n int) ([]scenario.Spec, error) {
	if n < 1 {
		return nil, fmt.Errorf("experiment: %d seeds per scenario; at least 1", n)
	}
	out := make([]scenario.Spec, 0, len(specs)*n)
	for _, s := range specs {
		for k := range n {
			r := s
			r.Seed = s.Seed + uint64(k)
			out = append(out, r)
		}
	}
	return out, nil
}
