package metrics

import (
	"math"
	"testing"
)

func TestSummarizeErrors(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name string
		errs []float64
		want ErrorSummary
	}{
		// |errors| 0.05 0.1 0.2 0.4: median (0.1+0.2)/2, mean 0.1875.
		{"four", []float64{-0.05, 0.1, 0.2, -0.4}, ErrorSummary{N: 4, WithinN: 2, Within: 0.5, MedianAbs: 0.15, MeanAbs: 0.1875, MaxAbs: 0.4, MeanSigned: -0.0375, Over: 0.5}},
		{"no answer left out", []float64{nan, 0.3, nan}, ErrorSummary{N: 1, WithinN: 0, Within: 0, MedianAbs: 0.3, MeanAbs: 0.3, MaxAbs: 0.3, MeanSigned: 0.3, Over: 1}},
		{"none", []float64{nan}, ErrorSummary{Within: nan, MedianAbs: nan, MeanAbs: nan, MaxAbs: nan, MeanSigned: nan, Over: nan}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := SummarizeErrors(c.errs)
			near := func(a, b float64) bool { return math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) < 1e-12 }
			if got.N != c.want.N || got.WithinN != c.want.WithinN || !near(got.Within, c.want.Within) || !near(got.MedianAbs, c.want.MedianAbs) ||
				!near(got.MeanAbs, c.want.MeanAbs) || !near(got.MaxAbs, c.want.MaxAbs) || !near(got.MeanSigned, c.want.MeanSigned) || !near(got.Over, c.want.Over) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
