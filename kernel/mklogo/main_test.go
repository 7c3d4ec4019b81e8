package main

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestDrawSizes(t *testing.T) {
	for _, size := range []int{32, 64} {
		img, err := draw(size)
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != size || b.Dy() != size {
			t.Fatalf("size %d: bounds %v", size, b)
		}
		// The curve starts at the bottom-left corner of the plot area and
		// ends near the top right: both ends must be painted, the corners
		// outside the plot area must not.
		m := float64(size) / 8
		if got := img.RGBAAt(int(m), size-1-int(m)); got != body {
			t.Errorf("size %d: curve start pixel = %v, want %v", size, got, body)
		}
		if got := img.RGBAAt(size-1-int(m), int(m)); got != tail {
			t.Errorf("size %d: curve end pixel = %v, want %v", size, got, tail)
		}
		if got := img.RGBAAt(0, 0); got != background {
			t.Errorf("size %d: corner = %v, want background", size, got)
		}
		var painted int
		for y := 0; y < size; y++ {
			for x := 0; x < size; x++ {
				if img.RGBAAt(x, y) != background {
					painted++
				}
			}
		}
		// A curve of width about size/12 and length between 2 and 3 times
		// the plot span covers a few percent of the square, not most of it.
		if frac := float64(painted) / float64(size*size); frac < 0.05 || frac > 0.4 {
			t.Errorf("size %d: painted fraction %.3f outside [0.05, 0.4]", size, frac)
		}
	}
}

func TestTailStartsAtP99(t *testing.T) {
	if got := cdf(tailFrom); got < 0.99-1e-12 || got > 0.99+1e-12 {
		t.Fatalf("cdf(tailFrom) = %v, want 0.99", got)
	}
}

func TestRunWritesPNG(t *testing.T) {
	out := filepath.Join(t.TempDir(), "logo.png")
	if err := run(32, out); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != 32 || cfg.Height != 32 {
		t.Fatalf("decoded %dx%d, want 32x32", cfg.Width, cfg.Height)
	}
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		size int
		out  string
	}{{8, "x.png"}, {4096, "x.png"}, {64, ""}} {
		if err := run(tc.size, tc.out); err == nil {
			t.Errorf("run(%d, %q): want error", tc.size, tc.out)
		}
	}
}
