package plot

import (
	"math"
	"testing"
)

// TestLogTicksReadable checks what makes a log axis readable: at least two
// labels (three under half a decade, where the ends alone say little),
// every tick inside the axis and one at every power of ten in it, a label
// at or within a tenth of the axis of each end (where the axis stops),
// and no two labels so close (under a tenth of the axis) that they print
// over each other.
func TestLogTicksReadable(t *testing.T) {
	for _, r := range []struct{ lo, hi float64 }{
		{1.01, 2.05}, // the panel that showed "2" over "2.05"
		{1, 1.94},
		{1.03, 1.76},
		{1, 10},
		{0.9, 1000},
		{1, 1e6},
		{3, 3.5},
		{1, 37},     // a slowdown axis that read as ending at 20
		{1.2, 850},  // neither end a round number
		{0.05, 1e4}, // wide: labels only at powers of ten
	} {
		ts := logTicks{}.Ticks(r.lo, r.hi)
		var labels []float64
		for _, tk := range ts {
			if tk.Value < r.lo*(1-1e-9) || tk.Value > r.hi*(1+1e-9) {
				t.Errorf("[%g, %g]: tick %g outside the axis", r.lo, r.hi, tk.Value)
			}
			if tk.Label != "" {
				labels = append(labels, tk.Value)
			}
		}
		for k := math.Ceil(math.Log10(r.lo)); k <= math.Floor(math.Log10(r.hi)); k++ {
			found := false
			for _, tk := range ts {
				found = found || math.Abs(tk.Value/math.Pow(10, k)-1) < 1e-9
			}
			if !found {
				t.Errorf("[%g, %g]: no tick at 1e%g", r.lo, r.hi, k)
			}
		}
		span := math.Log10(r.hi / r.lo)
		if want := map[bool]int{true: 3, false: 2}[span < 0.5]; len(labels) < want {
			t.Errorf("[%g, %g]: labels %v, want at least %d", r.lo, r.hi, labels, want)
		}
		for _, end := range []float64{r.lo, r.hi} {
			near := false
			for _, l := range labels {
				near = near || math.Abs(math.Log10(l/end))/span < 0.1+1e-9
			}
			if !near {
				t.Errorf("[%g, %g]: no label at or near the end %g (labels %v)", r.lo, r.hi, end, labels)
			}
		}
		for i := range labels {
			for j := i + 1; j < len(labels); j++ {
				if d := math.Abs(math.Log10(labels[i]/labels[j])) / span; d < 0.1 {
					t.Errorf("[%g, %g]: labels at %g and %g are %.0f%% of the axis apart", r.lo, r.hi, labels[i], labels[j], 100*d)
				}
			}
		}
	}
}
