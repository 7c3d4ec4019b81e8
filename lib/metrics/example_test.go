package metrics_test

import (
	"fmt"

	"github.com/tailscope/tailscope/lib/metrics"
)

// An estimator's records set against a baseline's, per Parsimon size bin.
func ExampleCompare() {
	var base, est []metrics.Record
	for i := 1; i <= 101; i++ {
		base = append(base, metrics.Record{Size: 800, Slowdown: float64(i)})
		est = append(est, metrics.Record{Size: 800, Slowdown: 1.08 * float64(i)})
		base = append(base, metrics.Record{Size: 200_000, Slowdown: 1 + float64(i)/100})
		est = append(est, metrics.Record{Size: 200_000, Slowdown: 1 + float64(i)/100})
	}
	c := metrics.Compare(est, base, metrics.ParsimonBins(), 99)
	for i, label := range c.Labels {
		fmt.Printf("%-10s n=%3d p99 %6.2f vs %6.2f error %+.1f%%\n", label, c.Count[i], c.Est[i], c.Base[i], 100*c.Error[i])
	}
	// Output:
	// <=1KB      n=101 p99 108.00 vs 100.00 error +8.0%
	// 1KB-10KB   n=  0 p99    NaN vs    NaN error +NaN%
	// 10KB-100KB n=  0 p99    NaN vs    NaN error +NaN%
	// >100KB     n=101 p99   2.00 vs   2.00 error +0.0%
}

func ExamplePercentile() {
	xs := []float64{15, 20, 35, 40, 50}
	fmt.Println(metrics.Percentile(xs, 40), metrics.Percentile(xs, 50), metrics.Percentile(xs, 100))
	// Output: 29 35 50
}
