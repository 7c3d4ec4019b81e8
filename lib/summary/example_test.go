package summary_test

import (
	"fmt"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/summary"
)

// Summary rows as Parsimon's Table 4 in Markdown.
func ExampleTopErrors() {
	rows := []metrics.Summary{
		{ScenarioID: "s1", Estimator: "parsimon", MaxLoad: 0.776, P99: metrics.Comparison{ErrorAll: 0.519},
			Params: metrics.Params{Matrix: "A", Sizes: "webserver", Oversub: 4, Sigma: 1}},
		{ScenarioID: "s2", Estimator: "parsimon", MaxLoad: 0.35, P99: metrics.Comparison{ErrorAll: 0.021},
			Params: metrics.Params{Matrix: "C", Sizes: "hadoop", Oversub: 1, Sigma: 2}},
	}
	fmt.Print(summary.Markdown(summary.TopErrors(rows, "parsimon", 5)))
	// Output:
	// | Error | Max load | Matrix | Sizes | Oversub | σ | Scenario |
	// | --- | --- | --- | --- | --- | --- | --- |
	// | +51.9% | 77.6% | A | webserver | 4-to-1 | 1 | s1 |
	// | +2.1% | 35.0% | C | hadoop | 1-to-1 | 2 | s2 |
}
