package cc

import (
	"math/rand/v2"

	"github.com/tailscope/tailscope/lib/netcfg"
)

// RED is DCQCN's RED-style ECN marking at switch ports: a data packet
// that finds q bytes queued (ahead of it at enqueue, behind it at
// dequeue) is marked with probability 0 up to Kmin, rising linearly to
// Pmax at Kmax, and 1 beyond.
//
// Each port draws from a random stream of its own, seeded from the run's
// seed and the port's number, so a port's marks depend on the packets
// that port sees and not on the order in which events at other ports
// ran. A simulator that splits the network among workers thus marks the
// same packets as one that does not.
type RED struct {
	kmin, kmax, pmax float64
	ports            []rand.PCG
}

// redStream is the second word of port 0's stream state; port p adds p
// times redStride, the golden-ratio increment, so that streams of
// neighbouring ports start far apart.
const (
	redStream = 0x5eed_dc9c
	redStride = 0x9e37_79b9_7f4a_7c15
)

// NewRED returns the marking of DCQCN parameters p at ports numbered 0
// to ports-1 (a simulator's channels), port i drawing from a stream
// seeded with seed and i.
func NewRED(p netcfg.DCQCN, seed uint64, ports int) *RED {
	r := &RED{kmin: float64(p.KminBytes), kmax: float64(p.KmaxBytes), pmax: p.Pmax, ports: make([]rand.PCG, max(ports, 0))}
	for i := range r.ports {
		r.ports[i].Seed(seed, redStream+uint64(i)*redStride)
	}
	return r
}

// Mark decides whether a data packet finding q bytes queued at port is
// marked.
func (r *RED) Mark(port int, q float64) bool {
	switch {
	case q <= r.kmin:
		return false
	case q > r.kmax:
		return true
	}
	// As rand.Rand's Float64, without a Rand per port.
	u := float64(r.ports[port].Uint64()<<11>>11) / (1 << 53)
	return u < r.pmax*(q-r.kmin)/(r.kmax-r.kmin)
}
