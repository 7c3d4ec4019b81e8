package plot

import (
	"fmt"
	"sort"

	"github.com/tailscope/tailscope/lib/dscale"
	"github.com/tailscope/tailscope/lib/topo"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// DSCALEQueues draws, for the k congested channels with the longest mean
// queue in the original, the CDF of the sampled queue length (KB) in the
// original and in every replica (DSCALE Fig. 4(ii)); panels are titled by
// channel and its nodes as label names them (node ids when label is nil).
func DSCALEQueues(ev *dscale.Evaluation, net *topo.Network, k int, label func(node int) string) (*Figure, error) {
	if len(ev.Systems) == 0 || len(ev.Congested) == 0 {
		return nil, fmt.Errorf("plot: DSCALEQueues: nothing evaluated")
	}
	if label == nil {
		label = func(n int) string { return fmt.Sprint(n) }
	}
	chans := append([]int(nil), ev.Congested...)
	mean := make(map[int]float64, len(chans)) // the original's mean queue per channel
	for _, c := range chans {
		q := ev.Systems[0].Queues[c]
		var s float64
		for _, x := range q {
			s += x
		}
		mean[c] = s / float64(max(1, len(q)))
	}
	sort.SliceStable(chans, func(a, b int) bool { return mean[chans[a]] > mean[chans[b]] })
	var panels []*plot.Plot
	for _, c := range chans[:min(k, len(chans))] {
		ch := net.Channels[c]
		p := newPlot(fmt.Sprintf("channel %d: %s -> %s", c, label(ch.Src), label(ch.Dst)), "queue (KB)", "CDF")
		for i, s := range ev.Systems {
			q := s.Queues[c]
			if len(q) == 0 {
				continue
			}
			kb := make([]float64, len(q))
			for j, x := range q {
				kb[j] = x / 1000
			}
			l, err := plotter.NewLine(cdfCurve(kb, 0))
			if err != nil {
				return nil, fmt.Errorf("plot: DSCALEQueues: %s: %w", s.Name, err)
			}
			l.LineStyle = lineStyle(i)
			p.Add(l)
			p.Legend.Add(s.Name, l)
		}
		p.Y.Min, p.Y.Max = 0, 1
		p.X.Min = 0
		p.X.Tick.Marker = linearTicks{}
		p.Legend.Top, p.Legend.Left = false, false
		panels = append(panels, p)
	}
	return &Figure{Panels: grid(panels, 2)}, nil
}
