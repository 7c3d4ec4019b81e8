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
// collide), with unlabelled minor ticks at the other integers times 10^k.
// With log10 set the axis carries log10 values (a colour bar of log10
// slowdowns) and the labels show 10^v; with bytes set labels read 1KB, 1MB.
type logTicks struct{ log10, bytes bool }

// Ticks implements plot.Ticker.
func (t logTicks) Ticks(lo, hi float64) []plot.Tick {
	if t.log10 {
		lo, hi = math.Pow(10, lo), math.Pow(10, hi)
	}
	var ts []plot.Tick
	labelled := 0
	wide := math.Log10(hi/lo) > 3
	for k := math.Floor(math.Log10(lo)); k <= math.Ceil(math.Log10(hi)); k++ {
		for m := 1.0; m <= 9; m++ {
			v := m * math.Pow(10, k)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			tick := plot.Tick{Value: v}
			if m == 1 || !wide && (m == 2 || m == 5) {
				tick.Label = strconv.FormatFloat(v, 'g', 4, 64)
				if t.bytes {
					tick.Label = metrics.ByteSize(int64(v + 0.5))
				}
				labelled++
			}
			ts = append(ts, tick)
		}
	}
	if labelled < 2 { // a narrow range: label its ends too
		// A label within a tenth of the axis of an end would print over
		// the end's label: keep its tick, drop its label.
		near := 0.1 * math.Log10(hi/lo)
		for i := range ts {
			if math.Log10(ts[i].Value/lo) < near || math.Log10(hi/ts[i].Value) < near {
				ts[i].Label = ""
			}
		}
		ts = append(ts, plot.Tick{Value: lo, Label: strconv.FormatFloat(lo, 'g', 3, 64)},
			plot.Tick{Value: hi, Label: strconv.FormatFloat(hi, 'g', 3, 64)})
	}
	if t.log10 {
		for i := range ts {
			ts[i].Value = math.Log10(ts[i].Value)
		}
	}
	return ts
}
