package cc

import (
	"math"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
)

// TestREDProfile: the fraction of packets RED marks at a queue length is
// 0 up to Kmin, Pmax (q - Kmin)/(Kmax - Kmin) in between (within four
// binomial standard deviations) and 1 above Kmax.
func TestREDProfile(t *testing.T) {
	p := netcfg.Default().DCQCN
	p.KminBytes, p.KmaxBytes, p.Pmax = 20_000, 100_000, 0.2
	r := NewRED(p, 7)
	const n = 200_000
	for _, c := range []struct{ q, want float64 }{
		{0, 0}, {20_000, 0}, {40_000, 0.05}, {60_000, 0.1}, {100_000, 0.2}, {100_001, 1}, {1e9, 1},
	} {
		marked := 0
		for range n {
			if r.Mark(c.q) {
				marked++
			}
		}
		got := float64(marked) / n
		if tol := 4 * math.Sqrt(c.want*(1-c.want)/n); math.Abs(got-c.want) > tol {
			t.Errorf("queue %g bytes: marked %.4f of packets, want %.4f +- %.4f", c.q, got, c.want, tol)
		}
	}
}
