package parsimon

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestWMAPE(t *testing.T) {
	for _, c := range []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, []float64{1, 2, 3, 4}, 0},
		{[]float64{1, 2, 3, 4}, []float64{2, 2, 3, 2}, 0.3},     // (1+0+0+2)/10
		{[]float64{2, 2, 3, 2}, []float64{1, 2, 3, 4}, 3.0 / 9}, // not symmetric
		{[]float64{0, 0}, []float64{0, 0}, 0},
		{[]float64{0, 0}, []float64{0, 1}, math.Inf(1)},
	} {
		if got := WMAPE(c.a, c.b); math.Abs(got-c.want) > 1e-12 && got != c.want {
			t.Errorf("WMAPE(%v, %v) = %g, want %g", c.a, c.b, got, c.want)
		}
	}
}

// TestWMAPEBelow checks that the early-stopping comparison decides as
// WMAPE(a, b) < t does, at thresholds on both sides of the exact value.
func TestWMAPEBelow(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for n := range 300 {
		a, b := make([]float64, 1000), make([]float64, 1000)
		spread := float64(n%7) / 20 // from equal to far apart
		for i := range a {
			a[i] = r.ExpFloat64() * 1e4
			b[i] = a[i] * (1 + spread*r.NormFloat64())
		}
		if n%50 == 0 {
			clear(a) // a zero denominator
		}
		w := WMAPE(a, b)
		for _, th := range []float64{0.1, w, math.Nextafter(w, 0), math.Nextafter(w, 1), w / 2, 2 * w} {
			if got, want := wmapeBelow(a, b, absSum(a), th), w < th; got != want {
				t.Fatalf("case %d: wmapeBelow(t = %g) = %v, WMAPE %g < t is %v", n, th, got, w, want)
			}
		}
	}
}

func TestQuantiles(t *testing.T) {
	// 5 quantiles of 0..100 at probabilities 0, .25, .5, .75, 1.
	v := make([]int64, 101)
	for i := range v {
		v[100-i] = int64(i) // unsorted input
	}
	if got, want := quantiles(v, 5), []float64{0, 25, 50, 75, 100}; !reflect.DeepEqual(got, want) {
		t.Errorf("quantiles = %v, want %v", got, want)
	}
	if got := quantiles(nil, 3); !reflect.DeepEqual(got, []float64{0, 0, 0}) {
		t.Errorf("quantiles of nothing = %v", got)
	}
}

// TestSortInts checks the byte-wise sort of non-negative values (and the
// comparison sort it falls back to) against slices.Sort.
func TestSortInts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		n      int
		lo, hi int64
	}{
		{0, 0, 1}, {1, 0, 1}, {63, 0, 1 << 20}, {64, 0, 1 << 20}, {3000, 0, 1 << 25},
		{3000, 1 << 40, 1<<40 + 255}, {3000, 5, 6}, {5000, 0, math.MaxInt64}, {3000, -1 << 30, 1 << 30},
	} {
		v := make([]int64, c.n)
		for i := range v {
			v[i] = c.lo + r.Int64N(c.hi-c.lo)
		}
		want := slices.Sorted(slices.Values(v))
		sortInts(v)
		if !slices.Equal(v, want) {
			t.Errorf("%d values in [%d, %d): not sorted as slices.Sort sorts them", c.n, c.lo, c.hi)
		}
	}
}

// ints are the integral values v as int64s.
func ints(v []float64) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// Synthetic channels: sizes and gaps on grids, scaled to make them as
// close or as far as wanted.
func synth(kind Kind, bw int64, load, sizeScale, gapScale float64) Features {
	sizes, starts := make([]int64, 200), make([]int64, 200)
	var t int64
	for i := range sizes {
		sizes[i] = int64(sizeScale * float64(1000+37*i))
		t += int64(gapScale * float64(500+i%13*100))
		starts[i] = t
	}
	return NewFeatures(kind, bw, load, sizes, starts, 1000)
}

func TestCluster(t *testing.T) {
	base := synth(Core, 40*gbps, 0.300, 1, 1)
	feats := []Features{
		base,                                    // 0: representative
		synth(Core, 40*gbps, 0.302, 1.05, 0.96), // 1: within 0.005 load, sizes/gaps 4-5% off: joins 0
		synth(Core, 40*gbps, 0.310, 1, 1),       // 2: load 0.01 away: own cluster
		synth(Core, 40*gbps, 0.300, 1.2, 1),     // 3: sizes 20% off: own cluster
		synth(Core, 40*gbps, 0.299, 1, 1.3),     // 4: gaps 30% off: own cluster
		synth(Uplink, 40*gbps, 0.300, 1, 1),     // 5: another shape: own cluster
		synth(Core, 10*gbps, 0.300, 1, 1),       // 6: another bandwidth: own cluster
		synth(Core, 40*gbps, 0.3085, 1, 1),      // 7: close to 2 (0.0015), not to 0
		synth(Core, 40*gbps, 0.3035, 1, 1),      // 8: close to 0 (0.0035) and to 2; 0 comes first
	}
	rep, err := Cluster(context.Background(), feats, ClusterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 0, 2, 3, 4, 5, 6, 2, 0}; !reflect.DeepEqual(rep, want) {
		t.Errorf("representatives %v, want %v", rep, want)
	}
	// A relative load error bound of 0.5% splits 1 (0.67% off) from 0.
	rep, err = Cluster(context.Background(), feats[:2], ClusterOptions{MaxLoadError: 0.005})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1}; !reflect.DeepEqual(rep, want) {
		t.Errorf("with MaxLoadError: representatives %v, want %v", rep, want)
	}
	if _, err := Cluster(context.Background(), feats, ClusterOptions{MaxWMAPE: -1}); err == nil {
		t.Error("negative threshold accepted")
	}
}

// Cluster's load windows give the clusters of Alg. 1's all-pairs loop,
// written out here as the paper states it, on random channels many of
// which are close.
func TestClusterMatchesAllPairs(t *testing.T) {
	allPairs := func(feats []Features, o ClusterOptions) []int {
		rep := make([]int, len(feats))
		for i := range rep {
			rep[i] = -1
		}
		for i := range feats {
			if rep[i] >= 0 {
				continue
			}
			rep[i] = i
			for j := i + 1; j < len(feats); j++ {
				if rep[j] < 0 && o.Close(feats[i], feats[j]) {
					rep[j] = i
				}
			}
		}
		return rep
	}
	for _, o := range []ClusterOptions{{}, {MaxLoadDiff: 0.02}, {MaxLoadError: 0.01}, {MaxWMAPE: 0.03, Quantiles: 50}} {
		r := rand.New(rand.NewPCG(1, 2))
		feats := make([]Features, 400)
		for i := range feats {
			f := synth(Kind(r.IntN(2)), int64(1+r.IntN(2))*10*gbps, 0.3+0.04*r.Float64(), 1+0.15*r.Float64(), 1+0.15*r.Float64())
			f.Sizes, f.Gaps = quantiles(ints(f.Sizes), o.withDefaults().Quantiles), quantiles(ints(f.Gaps), o.withDefaults().Quantiles)
			feats[i] = f
		}
		got, err := Cluster(context.Background(), feats, o)
		if err != nil {
			t.Fatal(err)
		}
		want := allPairs(feats, o.withDefaults())
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: clusters differ from the all-pairs loop", o)
		}
		reps := 0
		for i, r := range got {
			if r == i {
				reps++
			}
		}
		if reps == len(feats) || reps < 2 {
			t.Errorf("%+v: %d representatives of %d: the case does not exercise clustering", o, reps, len(feats))
		}
	}
	if _, err := Cluster(context.Background(), []Features{{Load: math.NaN()}}, ClusterOptions{}); err == nil {
		t.Error("a NaN load was clustered")
	}
}
