package plot

import (
	"github.com/tailscope/tailscope/lib/metrics"
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// linearTicks labels a linear axis at 1, 2 or 5 x 10^k steps giving at
// most 6 labels, formatted without trailing zeros (gonum's default shows
// "25.00"), with unlabelled minor ticks between them.
type linearTicks struct{}

// Ticks implements plot.Ticker.
func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	step := math.Pow(10, math.Floor(math.Log10((hi-lo)/4)))
	for _, m := range []float64{1, 2, 5, 10} {
		if (hi-lo)/(m*step) <= 6 {
			step *= m
			break
		}
	}
	var ts []plot.Tick
	minor := step / 5
	for k := math.Ceil(lo / minor); k*minor <= hi+1e-9*step; k++ {
		v := k * minor
		t := plot.Tick{Value: v}
		if r := math.Round(v / step); math.Abs(v/step-r) < 1e-6 {
			t.Label = strconv.FormatFloat(r*step, 'g', 6, 64)
		}
		ts = append(ts, t)
	}
	return ts
}

// logTicks labels a logarithmic axis at 1, 2 and 5 x 10^k (only at 10^k
// when the axis spans more than three decades, where the others would
// collide; as a linear axis when it spans less than half a decade), with
// unlabelled minor ticks at the other integers times 10^k, and labels its
// ends when no label is near them, so that a reader sees
// where the axis stops (a slowdown axis ending at 37 would otherwise read
// as ending at 20). With log10 set the axis carries log10 values (a colour
// bar of log10 slowdowns) and the labels show 10^v; with bytes set labels
// read 1KB, 1MB.
type logTicks struct{ log10, bytes bool }

// Ticks implements plot.Ticker.
func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	if t.log10 {
		lo, hi = math.Pow(10, lo), math.Pow(10, hi)
	}
	label := func(v float64, digits int) string {
		if t.bytes {
			return metrics.ByteSize(int64(v + 0.5))
		}
		return strconv.FormatFloat(v, 'g', digits, 64)
	}
	var ts []plot.Tick
	narrow := math.Log10(hi/lo) < 0.5
	if narrow {
		// Under half a decade holds at most one 1, 2 or 5 x 10^k, so the
		// ends would be the only labels (a slowdown axis from 1.03 to 1.76):
		// label it as a linear axis.
		ts = linearTicks{}.Ticks(lo, hi)
		for i := range ts {
			if ts[i].Label != "" {
				ts[i].Label = label(ts[i].Value, 4)
			}
		}
	}
	wide := math.Log10(hi/lo) > 3
	for k := math.Floor(math.Log10(lo)); !narrow && k <= math.Ceil(math.Log10(hi)); k++ {
		for m := 1.0; m <= 9; m++ {
			v := m * math.Pow(10, k)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			tick := plot.Tick{Value: v}
			if m == 1 || !wide && (m == 2 || m == 5) {
				tick.Label = label(v, 4)
			}
			ts = append(ts, tick)
		}
	}
	// An end gets a label unless a label is within a tenth of the axis of
	// it; a label that close to a labelled end would print over it, so it
	// loses its label (its tick stays).
	near := 0.1 * math.Log10(hi/lo)
	for _, end := range []float64{lo, hi} {
		labelledAtEnd := false
		for _, tk := range ts {
			if tk.Label != "" && math.Abs(math.Log10(tk.Value/end)) < 1e-9 {
				labelledAtEnd = true
			}
		}
		if labelledAtEnd || countLabels(ts) >= 2 && labelNear(ts, end, near) {
			continue
		}
		for i := range ts {
			if math.Abs(math.Log10(ts[i].Value/end)) < near {
				ts[i].Label = ""
			}
		}
		ts = append(ts, plot.Tick{Value: end, Label: label(end, 3)})
	}
	if t.log10 {
		for i := range ts {
			ts[i].Value = math.Log10(ts[i].Value)
		}
	}
	return ts
}

// countLabels is the number of labelled ticks.
func countLabels(ts []plot.Tick) int {
	n := 0
	for _, t := range ts {
		if t.Label != "" {
			n++
		}
	}
	return n
}

// labelNear reports whether a labelled tick lies within near (a share of
// the axis in log10 units) of v.
func labelNear(ts []plot.Tick, v, near float64) bool {
	for _, t := range ts {
		if t.Label != "" && math.Abs(math.Log10(t.Value/v)) < near {
			return true
		}
	}
	return false
}
