package plot

import (
	"math"
	"testing"
)

// lab converts an sRGB colour to CIELAB (D65 white), the space in which
// Euclidean distance approximates perceived difference (CIE76 delta E).
func lab(r, g, b uint32) (l, a, bb float64) {
	lin := func(c uint32) float64 {
		v := float64(c) / 0xffff
		if v <= 0.04045 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	R, G, B := lin(r), lin(g), lin(b)
	x := (0.4124*R + 0.3576*G + 0.1805*B) / 0.95047
	y := 0.2126*R + 0.7152*G + 0.0722*B
	z := (0.0193*R + 0.1192*G + 0.9505*B) / 1.08883
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return (24389.0/27*t + 16) / 116
	}
	return 116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))
}

// Series colours must read on white (lightness L* at most 75) and differ
// from each other clearly (delta E of at least 25, where 2.3 is just
// noticeable; gonum's soft colours come to 23.7), so that the curves of
// a multi-series legend can be told apart at notebook size.
func TestPaletteDistinguishable(t *testing.T) {
	type lab3 [3]float64
	var cs []lab3
	for i := range palette {
		r, g, b, _ := seriesColor(i).RGBA()
		l, a, bb := lab(r, g, b)
		if l > 75 {
			t.Errorf("colour %d: lightness %.0f, too light on white", i, l)
		}
		cs = append(cs, lab3{l, a, bb})
	}
	for i := range cs {
		for j := i + 1; j < len(cs); j++ {
			d := math.Sqrt(math.Pow(cs[i][0]-cs[j][0], 2) + math.Pow(cs[i][1]-cs[j][1], 2) + math.Pow(cs[i][2]-cs[j][2], 2))
			if d < 25 {
				t.Errorf("colours %d and %d differ by delta E %.1f, want at least 25", i, j, d)
			}
		}
	}
	if seriesColor(len(palette)) != seriesColor(0) {
		t.Error("seriesColor does not cycle")
	}
}
