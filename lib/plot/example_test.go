package plot_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/plot"
)

// Two estimators' records as tail-zoomed slowdown CDFs per size bin,
// written as PNG (Image gives the same figure to a notebook cell).
func ExampleSlowdownCDF() {
	var base, est []metrics.Record
	for i := 0; i < 1000; i++ {
		size := int64(100 + 997*(i%300))
		base = append(base, metrics.Record{FlowID: i, Size: size, Slowdown: 1 + float64(i%97)/10})
		est = append(est, metrics.Record{FlowID: i, Size: size, Slowdown: 1 + float64(i%97)/9})
	}
	f, err := plot.SlowdownCDF([]string{"baseline", "estimate"}, [][]metrics.Record{base, est}, metrics.ParsimonBins(), 0.9)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "plot-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := plot.Save(f, filepath.Join(dir, "cdf.png")); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(f.Panels), "rows of", len(f.Panels[0]), "panels;", plot.Image(f).Bounds().Size())
	// Output: 2 rows of 2 panels; (1296,1008)
}
