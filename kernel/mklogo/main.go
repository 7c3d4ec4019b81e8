// Command mklogo draws the tailscope-go kernelspec logo: a heavy-tailed CDF
// curve (white) on a dark square, with the tail above the 99th percentile in
// orange. Jupyter shows logo-64x64.png and logo-32x32.png next to the kernel
// name; drawing them here keeps the repository free of copied artwork.
//
// Usage:
//
//	mklogo -size 64 -o logo-64x64.png
package main

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
)

var (
	background = color.RGBA{0x1f, 0x2a, 0x44, 0xff}
	body       = color.RGBA{0xff, 0xff, 0xff, 0xff}
	tail       = color.RGBA{0xff, 0x8c, 0x1a, 0xff}
)

func main() {
	size := flag.Int("size", 64, "logo width and height in pixels")
	out := flag.String("o", "", "output PNG file (required)")
	flag.Parse()
	if err := run(*size, *out); err != nil {
		fmt.Fprintln(os.Stderr, "mklogo:", err)
		os.Exit(1)
	}
}

func run(size int, out string) error {
	if out == "" {
		return fmt.Errorf("missing -o output file")
	}
	img, err := draw(size)
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// cdf is the curve drawn: the CDF of a Pareto-like law rescaled to [0,1],
// which rises steeply and then crawls towards 1 (the tail).
func cdf(x float64) float64 { return 1 - math.Pow(1-x, 6) }

// tailFrom is where the curve changes colour: the x where cdf reaches 0.99.
var tailFrom = 1 - math.Pow(0.01, 1.0/6)

// draw renders the logo at size x size pixels.
func draw(size int) (*image.RGBA, error) {
	if size < 16 || size > 1024 {
		return nil, fmt.Errorf("size %d out of range [16, 1024]", size)
	}
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	for y := 0; y < size; y++ {
		for x := 0; x < size; x++ {
			img.Set(x, y, background)
		}
	}
	margin := float64(size) / 8
	span := float64(size) - 2*margin
	thick := math.Max(1, float64(size)/24)
	// Sample the curve densely and stamp a disc at each point: simple, and
	// the steep part of the CDF stays connected at every size.
	steps := 40 * size
	for i := 0; i <= steps; i++ {
		u := float64(i) / float64(steps)
		px := margin + u*span
		py := float64(size) - margin - cdf(u)*span
		c := body
		if u >= tailFrom {
			c = tail
		}
		stamp(img, px, py, thick, c)
	}
	return img, nil
}

// stamp fills the pixels whose centres lie within r of (cx, cy).
func stamp(img *image.RGBA, cx, cy, r float64, c color.RGBA) {
	b := img.Bounds()
	for y := int(cy - r); y <= int(cy+r); y++ {
		for x := int(cx - r); x <= int(cx+r); x++ {
			dx, dy := float64(x)+0.5-cx, float64(y)+0.5-cy
			if dx*dx+dy*dy <= r*r && image.Pt(x, y).In(b) {
				img.SetRGBA(x, y, c)
			}
		}
	}
}
