package plot

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// QueuePanel is one channel's sampled queue lengths (bytes) in several
// named systems, for QueueCDFs.
type QueuePanel struct {
	Title  string
	Names  []string
	Queues [][]float64
}

// QueueCDFs draws, one panel per channel, the CDF of the sampled queue
// length (KB) in every system (DSCALE Fig. 4(ii)); systems without samples
// on a channel are left out of its panel.
func QueueCDFs(panels []QueuePanel) (*Figure, error) {
	if len(panels) == 0 {
		return nil, fmt.Errorf("plot: QueueCDFs: no channels")
	}
	var ps []*plot.Plot
	for _, qp := range panels {
		if len(qp.Names) != len(qp.Queues) {
			return nil, fmt.Errorf("plot: QueueCDFs: %s: %d names, %d queues", qp.Title, len(qp.Names), len(qp.Queues))
		}
		p := newPlot(qp.Title, "queue (KB)", "CDF")
		for i, q := range qp.Queues {
			if len(q) == 0 {
				continue
			}
			kb := make([]float64, len(q))
			for j, x := range q {
				kb[j] = x / 1000
			}
			l, err := plotter.NewLine(cdfCurve(kb, 0))
			if err != nil {
				return nil, fmt.Errorf("plot: QueueCDFs: %s: %w", qp.Names[i], err)
			}
			l.LineStyle = lineStyle(i)
			p.Add(l)
			p.Legend.Add(qp.Names[i], l)
		}
		p.Y.Min, p.Y.Max = 0, 1
		p.X.Min = 0
		p.X.Tick.Marker = linearTicks{}
		p.Legend.Top, p.Legend.Left = false, false
		ps = append(ps, p)
	}
	return &Figure{Panels: grid(ps, 2)}, nil
}
