package m3

import (
	"slices"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
)

// Extrapolations names, per spec entry, the routes outside the model's
// training range, as Outside does route by route (a second reading of
// the same ranges), with the values and the range: the plain hpcc
// preset's 50 Mbps rate AI against the embedded table4-pfc model, which
// saw 0.5-1 Gbps, and nothing once the rate AI lies inside.
func TestExtrapolations(t *testing.T) {
	m, err := EmbeddedModel("table4-pfc")
	if err != nil {
		t.Fatal(err)
	}
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 2})
	if err != nil {
		t.Fatal(err)
	}
	hosts := net.Hosts()
	var routes [][]int
	for _, dst := range hosts[1:] {
		p, err := net.Path(0, hosts[0], dst)
		if err != nil {
			t.Fatal(err)
		}
		routes = append(routes, p)
	}
	hpcc, err := netcfg.Preset("hpcc")
	if err != nil {
		t.Fatal(err)
	}
	inRange := hpcc
	inRange.HPCC.AIRateBps = 750_000_000
	ai := slices.Index(m.Info.SpecNames, "hpcc_ai_rate/1Gbps")
	trained := m.Info.SpecRangeCC["hpcc"][ai]
	for _, tc := range []struct {
		name     string
		cfg      netcfg.Config
		aiInside bool
	}{{"preset", hpcc, false}, {"rate AI 750 Mbps", inRange, true}} {
		t.Run(tc.name, func(t *testing.T) {
			ex := m.Extrapolations(net, routes, tc.cfg)
			// Outside, route by route, but for the foreground share (the
			// workload's, which Extrapolations leaves out).
			want := map[string]int{}
			for _, r := range routes {
				var bws, ds []int64
				for _, c := range r {
					bws, ds = append(bws, net.Channels[c].Bandwidth), append(ds, net.Channels[c].Delay)
				}
				s := &Sample{Spec: append(SpecVector(bws, ds, tc.cfg), -2), Network: tc.cfg}
				for _, n := range m.Outside(s) {
					if n != "log10_fg_share" {
						want[n]++
					}
				}
			}
			got := map[string]int{}
			for _, e := range ex {
				got[e.Entry] = e.Routes
				if e.Checked != len(routes) {
					t.Errorf("%s: %d routes checked, want %d", e.Entry, e.Checked, len(routes))
				}
				if e.Parameter == "" {
					t.Errorf("%s: no parameter named", e.Entry)
				}
			}
			if !sameCounts(got, want) {
				t.Errorf("extrapolations %v, Outside route by route %v", got, want)
			}
			i := slices.IndexFunc(ex, func(e Extrapolation) bool { return e.Entry == "hpcc_ai_rate/1Gbps" })
			if tc.aiInside {
				if i >= 0 {
					t.Errorf("rate AI inside the range named: %v", ex[i])
				}
				return
			}
			if i < 0 {
				t.Fatalf("rate AI 50 Mbps not named: %v", ex)
			}
			e := ex[i]
			if e.Low != 0.05 || e.High != 0.05 || e.Routes != len(routes) || e.TrainedLow != trained[0] || e.TrainedHigh != trained[1] {
				t.Errorf("rate AI: %+v, want 0.05 on all %d routes, trained %v", e, len(routes), trained)
			}
			if s := e.String(); !strings.Contains(s, "hpcc.ai_rate_bps") || !strings.Contains(s, "= 0.05") {
				t.Errorf("String() = %q", s)
			}
		})
	}
	// A model that records no ranges has none to leave.
	old, err := EmbeddedModel("")
	if err != nil {
		t.Fatal(err)
	}
	if ex := old.Extrapolations(net, routes, netcfg.Default()); ex != nil {
		t.Errorf("a model without ranges: %v", ex)
	}
}

// sameCounts reports whether two counts by name are equal.
func sameCounts(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Every plain network preset, on the 32-rack 2:1 fabric, lies inside an
// embedded model's space and training ranges or is refused by it with a
// reason: the table of docs/explanation/m3.md. Inside: the default model
// (which records no ranges) on DCTCP, the presets model on the plain
// DCQCN, HPCC and TIMELY presets, the presets-fork model on their fork-*
// versions; refused for a range, each entry names the setting it comes
// from.
func TestPresetsInsideOrRefused(t *testing.T) {
	spec, err := topo.Preset("meta32-2:1")
	if err != nil {
		t.Fatal(err)
	}
	net, err := topo.Fabric(spec)
	if err != nil {
		t.Fatal(err)
	}
	hosts := net.Hosts()
	var routes [][]int
	for _, src := range []int{hosts[0], hosts[len(hosts)-1]} {
		for _, dst := range hosts {
			if dst != src {
				p, err := net.Path(0, src, dst)
				if err != nil {
					t.Fatal(err)
				}
				routes = append(routes, p)
			}
		}
	}
	// want[model][preset]: "inside", "space" or the entries outside.
	want := map[string]map[string]string{
		"": {"dctcp": "inside", "fork-dctcp": "inside"},
		"table4-fork": {
			"dctcp": "ecn_k_first/bdp ecn_k_max/bdp", "fork-dctcp": "ecn_k_first/bdp ecn_k_max/bdp",
			"fork-dcqcn": "init_window/bdp dcqcn_kmin/bdp dcqcn_kmax/bdp", "fork-hpcc": "hpcc_ai_rate/1Gbps",
			"fork-timely": "init_window/bdp timely_thigh/100us",
		},
		"presets": {
			"dctcp": "ecn_k_first/bdp ecn_k_max/bdp", "fork-dctcp": "ecn_k_first/bdp ecn_k_max/bdp",
			"dcqcn": "inside", "hpcc": "inside", "timely": "inside",
		},
		"presets-fork": {
			"dctcp": "ecn_k_first/bdp ecn_k_max/bdp", "fork-dctcp": "ecn_k_first/bdp ecn_k_max/bdp",
			"fork-dcqcn": "inside", "fork-hpcc": "inside", "fork-timely": "inside",
		},
		"table4-pfc": {
			"dctcp": "ecn_k_first/bdp ecn_k_max/bdp", "fork-dctcp": "ecn_k_first/bdp ecn_k_max/bdp",
			"dcqcn": "init_window/bdp dcqcn_kmin/bdp dcqcn_kmax/bdp", "hpcc": "hpcc_ai_rate/1Gbps",
			"timely": "init_window/bdp timely_thigh/100us",
		},
	}
	for _, name := range append([]string{""}, EmbeddedModels()...) {
		m, err := EmbeddedModel(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range netcfg.Presets() {
			t.Run(name+"/"+p, func(t *testing.T) {
				cfg, err := netcfg.Preset(p)
				if err != nil {
					t.Fatal(err)
				}
				got := "inside"
				if err := m.Space().Covers(cfg); err != nil {
					got = "space"
				} else if ex := m.Extrapolations(net, routes, cfg); len(ex) > 0 {
					var names []string
					for _, e := range ex {
						names = append(names, e.Entry)
						if e.Parameter == "" || e.Routes < 1 || e.Checked != len(routes) {
							t.Errorf("%+v: no parameter or route counts", e)
						}
					}
					got = strings.Join(names, " ")
				}
				w := want[name][p]
				if w == "" {
					w = "space"
				}
				if got != w {
					t.Errorf("got %q, want %q", got, w)
				}
			})
		}
	}
}
