// Package metrics holds the flow-completion-time record every estimator
// returns, the ideal (unloaded) FCT and slowdown, link loads, size bins,
// percentiles and errors against a baseline.
package metrics

import (
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
)

// Record is the outcome of one flow as an estimator saw it. Together with
// the frame-level scenario id and estimator name it is the record shape of
// ARCHITECTURE.md.
type Record struct {
	FlowID   int
	Src      int
	Dst      int
	Size     int64   // bytes
	Start    int64   // ns
	FCT      int64   // ns, until the last byte is delivered
	Ideal    int64   // ns, unloaded FCT on the flow's path (IdealFCT)
	Slowdown float64 // FCT / Ideal
	Class    int     // workload component (mixed workloads)
}

// IdealFCT is the completion time of a flow of size bytes alone on the
// channels of path (REFERENCE.md, "Ideal FCT"): its first packet is stored
// and forwarded at every hop, the rest stream at the path's slowest rate,
// plus the propagation delays. It is rounded to the nearest nanosecond.
func IdealFCT(net *topo.Network, path []int, size int64, cfg netcfg.Config) int64 {
	first := min(size, cfg.PayloadBytes) + cfg.HeaderBytes
	var ns float64
	minBw := int64(-1)
	for _, c := range path {
		ch := net.Channels[c]
		ns += float64(first*8) * 1e9 / float64(ch.Bandwidth)
		ns += float64(ch.Delay)
		if minBw < 0 || ch.Bandwidth < minBw {
			minBw = ch.Bandwidth
		}
	}
	if rest := size - min(size, cfg.PayloadBytes); rest > 0 {
		wire := rest + cfg.Packets(rest)*cfg.HeaderBytes
		ns += float64(wire*8) * 1e9 / float64(minBw)
	}
	return int64(ns + 0.5)
}
