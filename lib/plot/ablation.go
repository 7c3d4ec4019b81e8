package plot

import (
	"fmt"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Ablation draws m3's Fig. 16: the mean |p99 slowdown error| per size
// bucket of flowSim alone next to flowSim corrected by the model, as
// grouped bars (errors as fractions; m3.AblationSummary computes them).
func Ablation(labels []string, flowSim, model []float64, title string) (*Figure, error) {
	if len(flowSim) != len(labels) || len(model) != len(labels) || len(labels) == 0 {
		return nil, fmt.Errorf("plot: Ablation needs one flowSim and one model error per bucket (%d buckets, %d and %d errors)", len(labels), len(flowSim), len(model))
	}
	p := newPlot(title, "flow size", "mean |p99 slowdown error| (%)")
	w := vg.Points(14)
	for i, s := range []struct {
		name string
		v    []float64
	}{{"flowSim", flowSim}, {"flowSim + model", model}} {
		vals := make(plotter.Values, len(s.v))
		for j, v := range s.v {
			vals[j] = 100 * v
		}
		bars, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		bars.Offset = vg.Length(2*i-1) * w / 2
		bars.Color = seriesColor(i)
		bars.LineStyle.Width = 0
		p.Add(bars)
		p.Legend.Add(s.name, bars)
	}
	p.Legend.Top = true
	p.NominalX(labels...)
	return Single(p), nil
}
