package cc

import (
	"math/rand/v2"

	"github.com/tailscope/tailscope/lib/netcfg"
)

// RED is DCQCN's RED-style ECN marking at a switch port: a data packet
// that finds q bytes queued (ahead of it at enqueue, behind it at
// dequeue) is marked with probability 0 up to Kmin, rising linearly to
// Pmax at Kmax, and 1 beyond. Every port of a run draws from one stream,
// so a run's marks depend on its seed only.
type RED struct {
	kmin, kmax, pmax float64
	rng              *rand.Rand
}

// NewRED returns the marking of DCQCN parameters p, drawing from a stream
// seeded with seed.
func NewRED(p netcfg.DCQCN, seed uint64) *RED {
	return &RED{kmin: float64(p.KminBytes), kmax: float64(p.KmaxBytes), pmax: p.Pmax, rng: rand.New(rand.NewPCG(seed, 0x5eed_dc9c))}
}

// Mark decides whether a data packet finding q bytes queued is marked.
func (r *RED) Mark(q float64) bool {
	switch {
	case q <= r.kmin:
		return false
	case q > r.kmax:
		return true
	}
	return r.rng.Float64() < r.pmax*(q-r.kmin)/(r.kmax-r.kmin)
}
