package accuracy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/atlas"
	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
)

// designDigest hashes what identifies a design's scenarios: sample,
// draw, preset, change and scenario ID, in order.
func designDigest(t *testing.T, o Options) (int, string) {
	t.Helper()
	scs, _, err := Design(o)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, s := range scs {
		fmt.Fprintf(h, "%s %d %s %s %s\n", s.Sample, s.Draw, s.Preset, s.Change, s.Spec.ID())
	}
	return len(scs), hex.EncodeToString(h.Sum(nil))
}

// The committed archive (results/accuracy-atlas) is keyed by the small
// design's scenario IDs: growing the designs must leave them as they
// were drawn.
func TestSmallDesignUnchanged(t *testing.T) {
	for _, c := range []struct {
		size   string
		n      int
		digest string
	}{
		{"small", 700, "3077ae76aaec6f8ebd056811c86f48ffdcd1c340173d88495f50dea2b5aa27b9"},
		{"tiny", 6, "af583e9a3b41b1cf09e05a57b986f6261b3f5773723e7476ad26416a6fa15d9f"},
	} {
		t.Run(c.size, func(t *testing.T) {
			n, d := designDigest(t, Sizes[c.size])
			if n != c.n || d != c.digest {
				t.Errorf("the %s design has %d scenarios, digest %s; want %d, %s", c.size, n, d, c.n, c.digest)
			}
		})
	}
}

// parts is a design of two small parts in the wide design's style.
var parts = Options{Parts: []Options{
	{Label: "big", Atlas: 6, Calibration: 2, Seed: 5, Topologies: []string{"meta384-2:1"}, Networks: []string{"dctcp", "fork-hpcc"}, SizeDists: []string{"webserver"}, Flows: []int{50_000, 1_000_000},
		PairShare: 0.5, Changes: ChangeNames(), PairSeeds: 3},
	{Label: "buf", Atlas: 8, Calibration: 2, Seed: 6, Flows: []int{10_000}, Buffers: []string{BufferPerPort, BufferShared, BufferSharedPFC},
		PairShare: 1, Changes: []string{"buffer*2", "max_load+0.1"}, PairSeeds: 3},
}}

func TestDesignParts(t *testing.T) {
	scs, pairs, err := Design(parts)
	if err != nil {
		t.Fatal(err)
	}
	byPart := map[string]Options{}
	for _, p := range parts.Parts {
		byPart[p.Label] = p
	}
	t.Run("each part draws its own space", func(t *testing.T) {
		for _, s := range scs {
			p := byPart[s.Part]
			c := s.Spec.Workload.Components[0]
			topo := p.Topologies
			if topo == nil {
				topo = Space(nil).Presets
			}
			if !slices.Contains(topo, s.Spec.Topology.Preset) || !slices.Contains(p.Flows, s.Spec.Workload.Flows) ||
				!strings.HasPrefix(s.Spec.Name, "accuracy "+p.Label+" ") || c.MaxLoad < 0.2 || c.MaxLoad > 0.9 {
				t.Errorf("%s (part %s): topology %s, %d flows, load %g outside its part", s.Spec.Name, s.Part, s.Spec.Topology.Preset, s.Spec.Workload.Flows, c.MaxLoad)
			}
			if p.SizeDists != nil && !slices.Contains(p.SizeDists, c.Sizes.Dist) {
				t.Errorf("%s: sizes %s outside its part's %v", s.Spec.Name, c.Sizes.Dist, p.SizeDists)
			}
			if p.Networks != nil && !slices.Contains(p.Networks, s.Preset) {
				t.Errorf("%s: network %s outside its part's %v", s.Spec.Name, s.Preset, p.Networks)
			}
			buffered := s.Spec.Network.BufferBytes > 0 || s.Spec.Network.SharedBuffer()
			if buffered != (p.Buffers != nil) {
				t.Errorf("%s: buffered %v in part %s", s.Spec.Name, buffered, s.Part)
			}
			if b := max(s.Spec.Network.BufferBytes, s.Spec.Network.Buffer.SharedBytes); buffered && s.Change == "" && (b < 200_000 || b > 500_000) {
				t.Errorf("%s: buffer of %d B outside 200-500 KB", s.Spec.Name, b)
			}
			if s.Spec.Network.PFC.Enabled && !s.Spec.Network.SharedBuffer() {
				t.Errorf("%s: PFC without a shared buffer", s.Spec.Name)
			}
		}
	})
	t.Run("pairs under three seeds", func(t *testing.T) {
		if len(pairs) < 5 {
			t.Fatalf("%d pairs", len(pairs))
		}
		for _, p := range pairs {
			// Each side: the drawn seed, and a noise scenario under the next
			// (TaskOf runs it under the one after).
			for side, sp := range []scenario.Spec{p.A, p.B} {
				n := 0
				for _, s := range scs {
					if s.Pair == p.A.ID() && s.Sample == SampleNoise && (s.Change != "") == (side == 1) {
						n++
						if s.Spec.Seed != sp.Seed+1 || !reflect.DeepEqual(s.Spec.Network, sp.Network) || s.Spec.Workload.Flows != sp.Workload.Flows {
							t.Errorf("pair %s side %d: noise scenario %s is not the side under seed + 1", p.A.Name, side, s.Spec.Name)
						}
					}
				}
				if n != 1 {
					t.Errorf("pair %s (%s) side %d: %d noise scenarios, want 1", p.A.Name, p.Change, side, n)
				}
			}
		}
	})
	t.Run("the buffer and load changes", func(t *testing.T) {
		seen := map[string]bool{}
		for _, p := range pairs {
			seen[p.Change] = true
			a, b := p.A, p.B
			switch p.Change {
			case "buffer*2":
				if b.Network.BufferBytes != 2*a.Network.BufferBytes || b.Network.Buffer.SharedBytes != 2*a.Network.Buffer.SharedBytes ||
					a.WorkloadID() != b.WorkloadID() {
					t.Errorf("%s: buffers %d/%d -> %d/%d", a.Name, a.Network.BufferBytes, a.Network.Buffer.SharedBytes, b.Network.BufferBytes, b.Network.Buffer.SharedBytes)
				}
			case "max_load+0.1":
				la, lb := a.Workload.Components[0].MaxLoad, b.Workload.Components[0].MaxLoad
				if math.Abs(lb-la-0.1) > 1e-12 || la > 0.7 || !reflect.DeepEqual(a.Network, b.Network) {
					t.Errorf("%s: load %g -> %g", a.Name, la, lb)
				}
			}
		}
		if !seen["buffer*2"] || !seen["max_load+0.1"] {
			t.Errorf("changes drawn %v, want the buffer and load changes among them", seen)
		}
	})
	t.Run("a part grows without changing its first draws", func(t *testing.T) {
		more := Options{Parts: slices.Clone(parts.Parts)}
		more.Parts[0].Atlas += 4
		big, _, err := Design(more)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, s := range big {
			ids[s.Spec.ID()] = true
		}
		for _, s := range scs {
			if !ids[s.Spec.ID()] {
				t.Errorf("%s is gone from the grown design", s.Spec.Name)
			}
		}
	})
}

func TestOptionsCheck(t *testing.T) {
	part := Options{Label: "a", Atlas: 1, Flows: []int{1000}}
	for _, c := range []struct {
		name string
		o    Options
		want string
	}{
		{"parts and draws", Options{Atlas: 1, Parts: []Options{part}}, "draws nothing itself"},
		{"nested parts", Options{Parts: []Options{{Label: "x", Parts: []Options{part}}}}, "parts of its own"},
		{"same label", Options{Parts: []Options{part, part}}, "not unique"},
		{"no label", Options{Parts: []Options{{Atlas: 1, Flows: []int{1000}}}}, "not unique"},
		{"even seeds", Options{Atlas: 1, Flows: []int{1000}, PairSeeds: 2}, "odd"},
		{"unknown buffer", Options{Atlas: 1, Flows: []int{1000}, Buffers: []string{"huge"}}, `buffer "huge"`},
		{"unknown change", Options{Atlas: 1, Flows: []int{1000}, Changes: []string{"k=1"}}, `change "k=1"`},
		{"skip an unknown estimator", Options{Atlas: 1, Flows: []int{1000}, Skip: []string{"packetsim"}}, `"packetsim" is not an estimator`},
		{"unknown sizes", Options{Atlas: 1, Flows: []int{1000}, SizeDists: []string{"pareto"}}, "pareto"},
		{"unknown network", Options{Atlas: 1, Flows: []int{1000}, Networks: []string{"tcp-reno"}}, "tcp-reno"},
		{"unknown topology", Options{Atlas: 1, Flows: []int{1000}, Topologies: []string{"meta7"}}, "meta7"},
		{"a bad part", Options{Parts: []Options{{Label: "b", Atlas: 0, Flows: []int{1}}}}, `part "b"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Design(c.o)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Design: %v; want an error saying %q", err, c.want)
			}
		})
	}
}

// The wide design covers what the small one leaves out, and a run of
// it stopped early holds some of every part.
func TestWideDesign(t *testing.T) {
	o := Sizes["wide"]
	scs, pairs, err := Design(o)
	if err != nil {
		t.Fatal(err)
	}
	fabric, flows, buffers, changes := map[string]bool{}, map[int]bool{}, map[string]bool{}, map[string]bool{}
	for _, s := range scs {
		fabric[s.Spec.Topology.Preset] = true
		flows[s.Spec.Workload.Flows] = true
		buffers[atlas.BufferBand(s.Spec.Network)] = true
		if s.Spec.Workload.Flows >= 1_000_000 && !strings.HasPrefix(s.Spec.Topology.Preset, "meta384") {
			t.Errorf("%s: a million flows off the 384-rack fabric", s.Spec.Name)
		}
	}
	for _, p := range pairs {
		changes[p.Change] = true
	}
	for _, want := range []string{"meta384-1:1", "meta384-2:1", "meta32-1:1", "meta32-2:1", "meta32-4:1"} {
		if !fabric[want] {
			t.Errorf("no scenario on %s", want)
		}
	}
	for _, want := range []int{50_000, 200_000, 1_000_000} {
		if !flows[want] {
			t.Errorf("no scenario of %d flows", want)
		}
	}
	for _, want := range []string{"", "per-port buffer", "shared buffer", "shared buffer+PFC"} {
		if !buffers[want] {
			t.Errorf("no scenario with buffers %q", want)
		}
	}
	// The kinds of change a counterfactual asks of: the ECN threshold,
	// the window, the buffer, the congestion control and the load.
	for kind, names := range map[string][]string{
		"ECN threshold": {"k_bytes=60000", "dcqcn.kmin_bytes=50000,kmax_bytes=100000"},
		"window":        {"dctcp.window_bytes=9000", "window_bytes=9000"},
		"buffer":        {"buffer*2"},
		"CC":            {"cc=hpcc"},
		"load":          {"max_load+0.1"},
	} {
		if !slices.ContainsFunc(names, func(n string) bool { return changes[n] }) {
			t.Errorf("no pair changes the %s (%v); drawn: %v", kind, names, changes)
		}
	}
	small, _, err := Design(Sizes["small"])
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, s := range small {
		ids[s.Spec.ID()] = true
	}
	for _, s := range scs {
		if ids[s.Spec.ID()] {
			t.Errorf("%s is a scenario of the small design too", s.Spec.Name)
		}
	}
	// The first tenth of the run order holds atlas scenarios of every part.
	interleave(scs, o)
	head := map[string]bool{}
	for _, s := range scs[:len(scs)/10] {
		head[s.Part] = true
	}
	for _, p := range o.Parts {
		if !head[p.Label] {
			t.Errorf("the first tenth of the run has no scenario of part %s", p.Label)
		}
	}
	// A pair's runs under further seeds follow it, not the whole design.
	at := map[string]int{}
	seededEarly := 0
	for i, s := range scs {
		if s.Sample != SampleNoise {
			at[s.Spec.ID()] = i
			continue
		}
		if _, ok := at[s.Pair]; !ok {
			t.Fatalf("%s runs before its pair", s.Spec.Name)
		}
		if i < len(scs)/10 {
			seededEarly++
		}
	}
	if seededEarly == 0 {
		t.Error("no pair's further seeds in the first tenth of the run")
	}
}

// A part that skips an estimator has no task of it, and its rows none.
func TestSkip(t *testing.T) {
	o := Options{Atlas: 2, Seed: 2, Flows: []int{1000}, Networks: []string{"dctcp"}, Skip: []string{estimator.ParsimonPublished, estimator.M3Table4}}
	scs, _, err := Design(o)
	if err != nil {
		t.Fatal(err)
	}
	ts, refused := Tasks(scs)
	var ests []string
	for _, tk := range ts {
		ests = append(ests, tk.Estimator+tk.Options)
	}
	if len(ts) != 2*(len(Estimators)-1) || len(refused) != 0 || slices.ContainsFunc(ests, func(e string) bool { return strings.Contains(e, "sparse_bucket_size") }) {
		t.Errorf("tasks %v, refused %v; want packetsim and %d estimators per scenario, not the befores", ests, refused, len(Estimators)-2)
	}
}

// A congestion control that sends by its rate alone over a buffer that
// loses packets collapses; the designs draw no such network, in a
// scenario or as a pair's change.
func TestCollapses(t *testing.T) {
	for _, c := range []struct {
		preset, buffer string
		want           bool
	}{
		{"dcqcn", BufferShared, true},
		{"dcqcn", BufferPerPort, true},
		{"fork-timely", BufferShared, true},
		{"timely", BufferPerPort, true},
		{"dcqcn", BufferSharedPFC, false},
		{"dcqcn", BufferInfinite, false},
		{"hpcc", BufferShared, false}, // a window of one bandwidth-delay product
		{"dctcp", BufferPerPort, false},
		{"ns3", BufferShared, false},
	} {
		cfg, err := netcfg.Preset(c.preset)
		if err != nil {
			t.Fatal(err)
		}
		if got := collapses(withBuffer(cfg, c.buffer, 300_000)); got != c.want {
			t.Errorf("%s over a %s buffer: collapses %v, want %v", c.preset, c.buffer, got, c.want)
		}
	}
	for _, size := range []string{"small", "wide"} {
		scs, _, err := Design(Sizes[size])
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range scs {
			if collapses(s.Spec.Network) {
				t.Errorf("%s: %s collapses", size, s.Spec.Name)
			}
		}
	}
}

// m3 runs the presets model on the plain DCQCN preset and m3-table4 the
// Table-4 model it ran before; on DCTCP both would run the default
// model, so m3-table4 is not run there.
func TestM3Before(t *testing.T) {
	for _, c := range []struct {
		network, m3, before, refused string
	}{
		{"dcqcn", `"model":"presets"`, `"model":"table4-pfc"`, ""},
		{"dctcp", `{"answer_anyway":true}`, "", "same model"},
	} {
		t.Run(c.network, func(t *testing.T) {
			scs, _, err := Design(Options{Atlas: 1, Seed: 3, Flows: []int{1000}, Networks: []string{c.network}})
			if err != nil {
				t.Fatal(err)
			}
			m3t, why := TaskOf(scs[0], "m3")
			if why != "" || !strings.Contains(m3t.Options, c.m3) {
				t.Errorf("m3: options %s (%s), want %s", m3t.Options, why, c.m3)
			}
			bt, why := TaskOf(scs[0], estimator.M3Table4)
			if c.refused != "" {
				if !strings.Contains(why, c.refused) {
					t.Errorf("m3-table4: task %+v, reason %q; want it not run: %s", bt, why, c.refused)
				}
				return
			}
			if why != "" || bt.Estimator != "m3" || !strings.Contains(bt.Options, c.before) {
				t.Errorf("m3-table4: %s %s (%s), want m3 with %s", bt.Estimator, bt.Options, why, c.before)
			}
		})
	}
}
