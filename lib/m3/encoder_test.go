package m3

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"testing"
)

// randomSample is a sample of the given hop count with random
// non-decreasing percentile rows (at least 1), a random spec vector and
// foreground counts, drawn from r; it has no target.
func randomSample(r *rand.Rand, hops int) *Sample {
	rows := func(n int, spread float64) [][]float64 {
		m := make([][]float64, n)
		for b := range m {
			v := 1 + spread*r.Float64()
			for range NumPercentiles {
				v += spread * 0.05 * r.Float64()
				m[b] = append(m[b], v)
			}
		}
		return m
	}
	s := &Sample{Hops: hops, FG: rows(10, 2), Base: rows(4, 2), Spec: make([]float64, len(SpecNames))}
	for range hops {
		s.BG = append(s.BG, rows(10, 4*r.Float64()))
	}
	for i := range s.Spec {
		s.Spec[i] = r.Float64()
	}
	s.Spec[0] = float64(hops) / 6
	for range 4 {
		s.Count = append(s.Count, r.IntN(60))
	}
	return s
}

// The embedded models answer exactly as the code before the per-hop
// encoder did: the hash of their predictions on fixed random samples was
// computed by that code (commit 8b2b993's lib/m3, this test's first
// version), so any change to the fixed-pooling path shows here.
func TestEmbeddedModelsUnchanged(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"", "0f7bd68e957e74c1"},
		{"table4-pfc", "90f0d49753635259"},
	} {
		m, err := EmbeddedModel(tc.name)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(18, 3))
		var samples []*Sample
		for i := range 24 {
			samples = append(samples, randomSample(r, 1+i%6))
		}
		h := sha256.New()
		for _, p := range m.Predict(samples) {
			for _, row := range p {
				for _, v := range row {
					binary.Write(h, binary.LittleEndian, math.Float64bits(v))
				}
			}
		}
		if got := hex.EncodeToString(h.Sum(nil))[:16]; got != tc.want {
			t.Errorf("model %q: predictions hash %s, want %s", tc.name, got, tc.want)
		}
	}
}
