package whatif

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/estimator"
)

// result is a sweep of two values and three seeds with the given p99s
// per seed, packetsim as the baseline and m3 beside it, one class.
func result(seeds int, base0, base1, m30, m31 []float64) *Result {
	r := &Result{Values: []string{"10", "60"}, Estimators: []string{"packetsim", "m3"}, Baseline: "packetsim", Seeds: seeds, Level: 0.95, Classes: []string{All}}
	add := func(v, e string, ps []float64) {
		r.Points = append(r.Points, Point{Value: v, Estimator: e, Class: All, PerSeed: ps})
	}
	add("10", "packetsim", base0)
	add("60", "packetsim", base1)
	add("10", "m3", m30)
	add("60", "m3", m31)
	r.effects()
	return r
}

func TestEffects(t *testing.T) {
	t.Run("a paired difference without spread is shown", func(t *testing.T) {
		// Every seed moves by exactly -1: mean -1, interval 0.
		r := result(3, []float64{5, 6, 7}, []float64{4, 5, 6}, []float64{3, 3, 3}, []float64{3.5, 3.5, 3.5})
		if len(r.Effects) != 2 || !r.Effects[0].Shown || math.Abs(r.Effects[0].Diff+1) > 1e-12 || r.Effects[0].Half != 0 {
			t.Fatalf("effects %+v, want packetsim's -1 shown", r.Effects)
		}
		if !r.Resolved() {
			t.Error("not resolved")
		}
		if fig, err := r.Figure(); err != nil || strings.Contains(fig.Title, "larger than its interval") {
			t.Errorf("figure %v: title says no difference is shown where one is", err)
		}
		l := strings.Join(r.EffectLines(), "\n")
		if !strings.Contains(l, "m3: direction right in 0 of the 1 changes") {
			t.Errorf("lines %q: want m3 wrong on the one shown change", l)
		}
	})
	t.Run("noise larger than the change", func(t *testing.T) {
		// Differences +1, -1, +0.5: mean 1/6, sd sqrt(13/12)
		// ~1.041, t(0.975, 2) = 4.303: half ~2.586.
		r := result(3, []float64{5, 6, 7}, []float64{6, 5, 7.5}, []float64{3, 3, 3}, []float64{4, 4, 4})
		e := r.Effects[0]
		if e.Shown || math.Abs(e.Diff-1.0/6) > 1e-12 || math.Abs(e.Half-4.303*math.Sqrt(13.0/12)/math.Sqrt(3)) > 1e-3 {
			t.Fatalf("effect %+v, want +1/6 ± 2.586, not shown", e)
		}
		// 3 (2.5856 / 0.16667)^2 = 721.99: 722 seeds.
		if got := e.SeedsFor(3); got != 722 {
			t.Errorf("SeedsFor = %d, want 722", got)
		}
		l := strings.Join(r.EffectLines(), "\n")
		for _, want := range []string{"no difference shown here is larger than its 95% interval", "about 722 seeds"} {
			if !strings.Contains(l, want) {
				t.Errorf("lines %q lack %q", l, want)
			}
		}
		if r.Resolved() {
			t.Error("resolved")
		}
		if fig, err := r.Figure(); err != nil || !strings.Contains(fig.Title, "no packetsim difference is larger than its interval") {
			t.Errorf("figure %v: title does not say that no difference is shown", err)
		}
	})
	t.Run("one seed", func(t *testing.T) {
		r := result(1, []float64{5}, []float64{4}, []float64{3}, []float64{3.5})
		if r.Effects[0].Shown || !math.IsNaN(r.Effects[0].Half) {
			t.Fatalf("effect %+v, want no interval", r.Effects[0])
		}
		if l := strings.Join(r.EffectLines(), "\n"); !strings.Contains(l, "--seeds 5") {
			t.Errorf("lines %q: want more seeds recommended", l)
		}
	})
}

func TestSeedsNeeded(t *testing.T) {
	for _, c := range []struct {
		name string
		r    *Result
		want int
	}{
		{"shown", result(3, []float64{5, 6, 7}, []float64{4, 5, 6}, []float64{3, 3, 3}, []float64{3, 3, 3}), 0},
		{"noise", result(3, []float64{5, 6, 7}, []float64{6, 5, 7.5}, []float64{3, 3, 3}, []float64{3, 3, 3}), 722},
		{"one seed", result(1, []float64{5}, []float64{4}, []float64{3}, []float64{3}), FirstSeeds},
		{"no change at all", result(3, []float64{5, 6, 7}, []float64{5, 6, 7}, []float64{3, 3, 3}, []float64{3, 3, 3}), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.r.SeedsNeeded(); got != c.want {
				t.Errorf("SeedsNeeded = %d, want %d", got, c.want)
			}
		})
	}
}

// With MaxSeeds, Run adds seeds while packetsim shows no change, and
// stops at MaxSeeds or once one is shown.
func TestRunChoosesSeeds(t *testing.T) {
	o := Options{Spec: small(), Param: "hpcc.eta", Values: []string{"0.7", "0.95"}, Estimators: []string{"packetsim"},
		Seeds: 1, MaxSeeds: 4, Dir: t.TempDir()}
	res, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.SeedsAsked != 1 || res.Seeds < FirstSeeds || res.Seeds > 4 {
		t.Fatalf("asked %d seeds, ran %d; want at least %d and at most 4", res.SeedsAsked, res.Seeds, FirstSeeds)
	}
	if need := res.SeedsNeeded(); !res.Resolved() && res.Seeds < 4 && need > res.Seeds {
		t.Errorf("stopped at %d seeds, unresolved, needing %d", res.Seeds, need)
	}
	if l := strings.Join(res.EffectLines(), "\n"); !strings.Contains(l, "seeds raised from 1 to") {
		t.Errorf("lines %q do not say the seeds were raised", l)
	}
}

// DirectionLines state, for each estimator the accuracy atlas measures
// (not the ground truth), its score for the swept setting over all flows.
func TestDirectionLines(t *testing.T) {
	r := &Result{Param: "cc", Estimators: []string{"packetsim", "m3", "parsimon", "flowsim"}}
	for _, e := range r.Estimators[:3] { // flowsim refused every value
		r.Points = append(r.Points, Point{Value: `"hpcc"`, Estimator: e, Class: All})
	}
	lines := r.DirectionLines()
	if len(lines) != 2 {
		t.Fatalf("%d lines, want one each for m3 and parsimon: %q", len(lines), lines)
	}
	tab := r.Table()
	clear, _ := tab.Int64s("atlas_clear")
	right, _ := tab.Int64s("atlas_right")
	for i, e := range []string{"m3", "parsimon"} {
		ds, measured, err := estimator.Directions(e, "cc")
		if err != nil || !measured || len(ds) == 0 {
			t.Fatalf("%s: the embedded atlas scores no change of cc (measured %v, err %v)", e, measured, err)
		}
		all := ds[len(ds)-1]
		if want := fmt.Sprintf("%d of the %d", all.Right, all.Clear); !strings.HasPrefix(lines[i], e+":") || !strings.Contains(lines[i], want) {
			t.Errorf("line %q: want %s's score %q", lines[i], e, want)
		}
		// The frame's row of e (row i+1: packetsim's is first).
		if clear[i+1] != int64(all.Clear) || right[i+1] != int64(all.Right) {
			t.Errorf("%s's row: atlas_clear %d, atlas_right %d; want %d and %d", e, clear[i+1], right[i+1], all.Clear, all.Right)
		}
	}
	if clear[0] != 0 || right[0] != 0 {
		t.Errorf("packetsim's row: atlas_clear %d, atlas_right %d; the atlas does not measure the ground truth", clear[0], right[0])
	}

	// m3 run with the Table-4 model where the atlas runs another: the
	// scores are the variant's, under its label.
	r.MeasuredAs = map[string]string{"m3": estimator.M3Table4}
	ds, measured, err := estimator.Directions(estimator.M3Table4, "cc")
	if err != nil || !measured || len(ds) == 0 {
		t.Fatalf("m3-table4: the embedded atlas scores no change of cc (measured %v, err %v)", measured, err)
	}
	all := ds[len(ds)-1]
	lines = r.DirectionLines()
	if want := fmt.Sprintf("%d of the %d", all.Right, all.Clear); !strings.HasPrefix(lines[0], "m3, measured as m3-table4:") || !strings.Contains(lines[0], want) {
		t.Errorf("line %q: want m3's line with m3-table4's score %q", lines[0], want)
	}
	clear, _ = r.Table().Int64s("atlas_clear")
	if clear[1] != int64(all.Clear) {
		t.Errorf("m3's row: atlas_clear %d, want m3-table4's %d", clear[1], all.Clear)
	}
	r.MeasuredAs = nil

	// m3 run with a model of the user's: the atlas's scores are not its.
	r.Unmeasured = map[string]string{"m3": "the accuracy atlas measures m3 here with other options"}
	lines = r.DirectionLines()
	if len(lines) != 2 || lines[0] != "m3: how often its direction is right is unknown: "+r.Unmeasured["m3"] || !strings.HasPrefix(lines[1], "parsimon:") {
		t.Errorf("lines %q: want m3's direction unknown, and why", lines)
	}
	clear, _ = r.Table().Int64s("atlas_clear")
	if clear[1] != 0 || clear[2] == 0 {
		t.Errorf("atlas_clear %v: want none for m3, parsimon's score kept", clear)
	}
}
