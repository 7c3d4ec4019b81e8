package metrics

import (
	"errors"
	"sort"

	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Loads summarises how loaded a workload makes each channel.
type Loads struct {
	// Channel is each channel's load: payload bits over bandwidth times the
	// span of the flows' start times (the definition load targeting uses).
	Channel    []float64
	Max        float64 // the most loaded channel's load
	MaxChannel int     // its id
	// Top10 is the mean load of the 10% most loaded channels, the figure
	// Parsimon quotes to describe how loaded a topology is (§5.1).
	Top10  float64
	SpanNs int64
}

// LinkLoads routes flows over net and returns the channel loads.
func LinkLoads(net *topo.Network, flows []workload.Flow) (Loads, error) {
	if len(flows) < 2 {
		return Loads{}, errors.New("metrics: link loads need at least two flows (a span of start times)")
	}
	bytes, err := workload.ChannelBytes(net, flows)
	if err != nil {
		return Loads{}, err
	}
	lo, hi := flows[0].Start, flows[0].Start
	for _, f := range flows {
		lo, hi = min(lo, f.Start), max(hi, f.Start)
	}
	if hi == lo {
		return Loads{}, errors.New("metrics: all flows start at the same time; load is undefined")
	}
	l := Loads{Channel: make([]float64, len(bytes)), SpanNs: hi - lo}
	for c, b := range bytes {
		l.Channel[c] = float64(b) * 8 * 1e9 / float64(net.Channels[c].Bandwidth) / float64(l.SpanNs)
		if l.Channel[c] > l.Max {
			l.Max, l.MaxChannel = l.Channel[c], c
		}
	}
	sorted := append([]float64(nil), l.Channel...)
	sort.Sort(sort.Reverse(sort.Float64Slice(sorted)))
	k := (len(sorted) + 9) / 10
	for _, x := range sorted[:k] {
		l.Top10 += x
	}
	l.Top10 /= float64(k)
	return l, nil
}
