package workload

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// A CDF read from any text has a finite positive mean and samples sizes of
// at least one byte.
func FuzzReadCDF(f *testing.F) {
	f.Add("# comment\nsize_bytes,cdf\n100,0.5\n1000,1\n")
	f.Add("1,0\n2,1\n")
	f.Add("100,0.2\n50,1\n")
	f.Add("1e308,0.5\n1.7e308,1\n")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ReadCDF("fuzz", strings.NewReader(s))
		if err != nil {
			return
		}
		if m := d.Mean(); !(m > 0) || math.IsInf(m, 0) {
			t.Fatalf("mean %g", m)
		}
		r := rand.New(rand.NewPCG(1, 2))
		for range 100 {
			if v := d.Sample(r); v < 1 {
				t.Fatalf("sampled size %d", v)
			}
		}
	})
}

// A matrix read from any text is square and its weights sum to 1.
func FuzzReadMatrixCSV(f *testing.F) {
	f.Add("# m\n0,1\n1,0\n")
	f.Add("0,1,2\n3,0,4\n5,6,0\n")
	f.Add("0,0\n0,0\n")
	f.Add("1e308,1e308\n1e308,1e308\n")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ReadMatrixCSV("fuzz", strings.NewReader(s))
		if err != nil {
			return
		}
		if len(m.W) != m.Racks*m.Racks {
			t.Fatalf("%d weights for %d racks", len(m.W), m.Racks)
		}
		sum := 0.0
		for _, w := range m.W {
			if !(w >= 0) {
				t.Fatalf("weight %g", w)
			}
			sum += w
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("weights sum to %g", sum)
		}
	})
}
