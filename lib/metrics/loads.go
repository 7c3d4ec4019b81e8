package metrics

import (
	"errors"
	"fmt"
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
		return Loads{}, errNoSpan
	}
	bytes, err := workload.ChannelBytes(net, flows)
	if err != nil {
		return Loads{}, err
	}
	lo, hi := flows[0].Start, flows[0].Start
	for _, f := range flows {
		lo, hi = min(lo, f.Start), max(hi, f.Start)
	}
	return ChannelLoads(net, bytes, hi-lo)
}

var errNoSpan = errors.New("metrics: link loads need at least two flows (a span of start times)")

// ChannelLoads turns the payload bytes of flows on each channel of net
// (bytes[c] for channel c) and the span of their start times in ns into
// Loads: what LinkLoads gives, for a caller that routed the flows itself.
func ChannelLoads(net *topo.Network, bytes []int64, span int64) (Loads, error) {
	if len(bytes) != len(net.Channels) {
		return Loads{}, fmt.Errorf("metrics: bytes of %d channels for a network of %d", len(bytes), len(net.Channels))
	}
	if span == 0 {
		return Loads{}, errors.New("metrics: all flows start at the same time; load is undefined")
	}
	l := Loads{Channel: make([]float64, len(bytes)), SpanNs: span}
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

// LoadMeter measures channel loads flow by flow, for workloads that are
// streamed (workload.Source) rather than held: Add every flow, then
// Loads gives what LinkLoads gives on the same flows.
type LoadMeter struct {
	net    *topo.Network
	bytes  []int64
	lo, hi int64
	n      int
	path   []int
}

// NewLoadMeter starts measuring the loads flows put on net.
func NewLoadMeter(net *topo.Network) *LoadMeter {
	return &LoadMeter{net: net, bytes: make([]int64, len(net.Channels))}
}

// Add routes one flow and counts its bytes on every channel of its path.
func (m *LoadMeter) Add(f workload.Flow) error {
	var err error
	if m.path, err = m.net.AppendPath(m.path[:0], f.ID, f.Src, f.Dst); err != nil {
		return err
	}
	for _, c := range m.path {
		m.bytes[c] += f.Size
	}
	if m.n == 0 {
		m.lo, m.hi = f.Start, f.Start
	}
	m.lo, m.hi = min(m.lo, f.Start), max(m.hi, f.Start)
	m.n++
	return nil
}

// Loads returns the channel loads of the flows added so far.
func (m *LoadMeter) Loads() (Loads, error) {
	if m.n < 2 {
		return Loads{}, errNoSpan
	}
	return ChannelLoads(m.net, m.bytes, m.hi-m.lo)
}
