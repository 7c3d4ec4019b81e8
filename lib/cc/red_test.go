package cc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
)

// TestREDProfile: the fraction of packets RED marks at a queue length is
// 0 up to Kmin, Pmax (q - Kmin)/(Kmax - Kmin) in between (within four
// binomial standard deviations) and 1 above Kmax.
func TestREDProfile(t *testing.T) {
	p := netcfg.Default().DCQCN
	p.KminBytes, p.KmaxBytes, p.Pmax = 20_000, 100_000, 0.2
	r := NewRED(p, 7, 2)
	const n = 200_000
	for _, c := range []struct{ q, want float64 }{
		{0, 0}, {20_000, 0}, {40_000, 0.05}, {60_000, 0.1}, {100_000, 0.2}, {100_001, 1}, {1e9, 1},
	} {
		marked := 0
		for range n {
			if r.Mark(1, c.q) {
				marked++
			}
		}
		got := float64(marked) / n
		if tol := 4 * math.Sqrt(c.want*(1-c.want)/n); math.Abs(got-c.want) > tol {
			t.Errorf("queue %g bytes: marked %.4f of packets, want %.4f +- %.4f", c.q, got, c.want, tol)
		}
	}
}

// TestREDPortStreams: a port's marks depend on its own packets only (the
// same whether other ports draw in between or not), ports draw from
// different streams, and port 0's stream is rand.Rand's over PCG seeded
// (seed, 0x5eed_dc9c), the one stream every port shared before.
func TestREDPortStreams(t *testing.T) {
	p := netcfg.Default().DCQCN
	p.KminBytes, p.KmaxBytes, p.Pmax = 0, 100_000, 1
	const n, seed = 2000, 11
	marks := func(r *RED, port int, interleave bool) []bool {
		out := make([]bool, n)
		for i := range out {
			q := float64(1 + i*37%99_999)
			if interleave {
				r.Mark((port+1)%3, q)
				r.Mark((port+2)%3, q)
			}
			out[i] = r.Mark(port, q)
		}
		return out
	}
	for port := range 3 {
		t.Run(fmt.Sprint("port ", port), func(t *testing.T) {
			alone, mixed := marks(NewRED(p, seed, 3), port, false), marks(NewRED(p, seed, 3), port, true)
			if !slices.Equal(alone, mixed) {
				t.Error("the port's marks changed when other ports drew in between")
			}
			other := marks(NewRED(p, seed, 3), (port+1)%3, false)
			if slices.Equal(alone, other) {
				t.Error("two ports marked the same packets")
			}
		})
	}
	t.Run("port 0 is the old shared stream", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed_dc9c))
		r := NewRED(p, seed, 1)
		for i := range n {
			q := float64(1 + i*37%99_999)
			want := rng.Float64() < q/100_000
			if got := r.Mark(0, q); got != want {
				t.Fatalf("packet %d: marked %v, want %v", i, got, want)
			}
		}
	})
}
