package metrics

import (
	"math"
	"strings"
	"testing"
)

func TestMeanCIHandCase(t *testing.T) {
	// mean 3, s = sqrt(2.5); t(4 d.o.f., 0.975) = 2.776445 from tables.
	iv, err := MeanCI([]float64{1, 2, 3, 4, 5}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	wantHalf := 2.776445 * math.Sqrt(2.5) / math.Sqrt(5)
	if iv.Mean != 3 || math.Abs(iv.StdDev-math.Sqrt(2.5)) > 1e-12 || math.Abs(iv.Half-wantHalf) > 1e-5 {
		t.Errorf("MeanCI = %+v, want mean 3, sd %.6f, half %.6f", iv, math.Sqrt(2.5), wantHalf)
	}
	if !iv.Contains(iv.Lo()) || iv.Contains(iv.Hi()+1e-9) || iv.Converged(0.5) || !iv.Converged(0.66) {
		t.Errorf("bounds or convergence wrong for %v (relative %.4f)", iv, iv.Relative())
	}
}

func TestMeanCIErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		xs    []float64
		level float64
		want  string
	}{
		{"one sample", []float64{1}, 0.95, "at least 2"},
		{"level 1", []float64{1, 2}, 1, "confidence level"},
		{"level 0", []float64{1, 2}, 0, "confidence level"},
		{"NaN", []float64{1, math.NaN()}, 0.95, "sample 1"},
		{"Inf", []float64{math.Inf(1), 1}, 0.95, "sample 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := MeanCI(c.xs, c.level); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("MeanCI error = %v, want one mentioning %q", err, c.want)
			}
		})
	}
}
