package metrics

import (
	"math"
	"slices"
)

// WithinTolerance is the |relative error| up to which the studies count
// an estimate "within" its baseline: 10%, as both papers do.
const WithinTolerance = 0.10

// ErrorSummary sums up relative errors (estimate over baseline, minus 1)
// over scenarios, as every study reports them: how many (N), the share
// within WithinTolerance, the median (type-7, Percentile), mean and
// largest |error|, the mean signed error and the share of overestimates.
// With no error every figure but N is NaN.
type ErrorSummary struct {
	N, WithinN                 int     // errors, and those within WithinTolerance
	Within                     float64 // share with |error| <= WithinTolerance
	MedianAbs, MeanAbs, MaxAbs float64
	MeanSigned                 float64
	Over                       float64 // share of errors > 0
}

// SummarizeErrors is the ErrorSummary of errs; NaN errors (an estimator
// that gave no answer) are left out.
func SummarizeErrors(errs []float64) ErrorSummary {
	var abs []float64
	var signed float64
	within, over := 0, 0
	for _, e := range errs {
		if math.IsNaN(e) {
			continue
		}
		a := math.Abs(e)
		abs = append(abs, a)
		signed += e
		if a <= WithinTolerance {
			within++
		}
		if e > 0 {
			over++
		}
	}
	n := len(abs)
	if n == 0 {
		nan := math.NaN()
		return ErrorSummary{Within: nan, MedianAbs: nan, MeanAbs: nan, MaxAbs: nan, MeanSigned: nan, Over: nan}
	}
	var sum float64
	for _, a := range abs {
		sum += a
	}
	return ErrorSummary{N: n, WithinN: within, Within: float64(within) / float64(n), MedianAbs: Percentile(abs, 50),
		MeanAbs: sum / float64(n), MaxAbs: slices.Max(abs), MeanSigned: signed / float64(n), Over: float64(over) / float64(n)}
}
