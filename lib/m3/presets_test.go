package m3

import (
	"fmt"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
)

// The presets space holds every plain preset's spec vector on a fabric
// path (each entry within the draws' range of its congestion control, as
// Model.Outside allows: 5% of the span), which table4-pfc's draws do not,
// and presets-fork every fork-* preset's, which table4-fork's do not.
// The presets space keeps table4-pfc's congestion controls and buffers. The ECN
// threshold read by every control (k_first/bdp, k_max/bdp) is left out:
// only DCTCP reads it, and a model of these controls reads the entries
// that hold it for DCTCP alone (ecn_k_first/bdp, ecn_k_max/bdp), as the
// embedded table4-pfc model does.
func TestPresetsNetworkHoldsThePresets(t *testing.T) {
	bws := []int64{10e9, 40e9, 40e9, 10e9}
	delays := []int64{1000, 1000, 1000, 1000}
	ranges := func(space, cc string) (lo, hi []float64) {
		for i := range 3000 {
			n, err := Table4NetworkIn(space, 7, i)
			if err != nil {
				t.Fatal(err)
			}
			if n.CC != cc {
				continue
			}
			v := SpecVector(bws, delays, n)
			if lo == nil {
				lo, hi = append([]float64(nil), v...), append([]float64(nil), v...)
			}
			for j, x := range v {
				lo[j], hi[j] = min(lo[j], x), max(hi[j], x)
			}
		}
		return lo, hi
	}
	outside := func(v, lo, hi []float64) []string {
		var out []string
		for j, x := range v {
			if n := NetworkSpecNames[j]; n == "k_first/bdp" || n == "k_max/bdp" {
				continue
			}
			if m := 0.05 * (hi[j] - lo[j]); x < lo[j]-m || x > hi[j]+m {
				out = append(out, fmt.Sprintf("%s %.3g not in [%.3g, %.3g]", NetworkSpecNames[j], x, lo[j], hi[j]))
			}
		}
		return out
	}
	for _, c := range []struct{ preset, space, before string }{
		{"dcqcn", "presets", "table4-pfc"}, {"hpcc", "presets", "table4-pfc"}, {"timely", "presets", "table4-pfc"},
		{"fork-dcqcn", "presets-fork", "table4-fork"}, {"fork-hpcc", "presets-fork", "table4-fork"}, {"fork-timely", "presets-fork", "table4-fork"},
	} {
		t.Run(c.preset, func(t *testing.T) {
			p, err := netcfg.Preset(c.preset)
			if err != nil {
				t.Fatal(err)
			}
			shared := p
			shared.Buffer.SharedBytes, shared.PFC.Enabled = 300_000, true
			for _, sp := range []netcfg.Config{p, shared} {
				v := SpecVector(bws, delays, sp)
				if lo, hi := ranges(c.space, p.CC); outside(v, lo, hi) != nil {
					t.Errorf("%s space: %v", c.space, outside(v, lo, hi))
				}
				if lo, hi := ranges(c.before, p.CC); outside(v, lo, hi) == nil {
					t.Errorf("%s's draws hold the %s preset already: the %s space is not needed for it", c.before, c.preset, c.space)
				}
			}
		})
	}
	for i := range 200 {
		a, b := Table4Network(7, i, true), PresetsNetwork(7, i)
		if a.CC != b.CC || a.Buffer != b.Buffer || a.PFC != b.PFC || a.BufferBytes != b.BufferBytes {
			t.Fatalf("network %d: presets draws %s %+v %+v, table4-pfc %s %+v %+v", i, b.CC, b.Buffer, b.PFC, a.CC, a.Buffer, a.PFC)
		}
	}
}
