package plot

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tailscope/tailscope/lib/workload"
)

func TestWorkloadFigures(t *testing.T) {
	dir := t.TempDir()
	if d := os.Getenv("TAILSCOPE_FIGURES"); d != "" {
		dir = d
	}
	m, err := workload.LoadMatrix("C", 32)
	if err != nil {
		t.Fatal(err)
	}
	// The grid is relative to uniform: its entries average exactly 1.
	g := matrixGrid{m: m}
	sum := 0.0
	for r := 0; r < m.Racks; r++ {
		for c := 0; c < m.Racks; c++ {
			sum += math.Pow(10, g.Z(c, r))
		}
	}
	if mean := sum / float64(m.Racks*m.Racks); math.Abs(mean-1) > 1e-9 {
		t.Errorf("mean of matrix relative to uniform = %g, want 1", mean)
	}
	var dists []workload.SizeDist
	for _, n := range []string{"cachefollower", "webserver", "hadoop"} {
		d, err := workload.NewSizeDist(workload.SizeSpec{Dist: n})
		if err != nil {
			t.Fatal(err)
		}
		dists = append(dists, d)
	}
	figs := map[string]func() (*Figure, error){
		"matrix.png": func() (*Figure, error) { return MatrixHeatmap(m, "matrix C, 32 racks") },
		"sizes.png":  func() (*Figure, error) { return SizeCDFs(dists) },
		"loads.svg": func() (*Figure, error) {
			return LoadCDF([]string{"a", "b"}, [][]float64{{0.1, 0.5, 0, 1}, {0.2, 0.2, 0.4}})
		},
	}
	for name, mk := range figs {
		f, err := mk()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := Save(f, filepath.Join(dir, name)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := LoadCDF([]string{"z"}, [][]float64{{0, 0}}); err == nil {
		t.Error("LoadCDF of an idle network: no error")
	}
	if _, err := MatrixHeatmap(&workload.Matrix{Racks: 2, W: []float64{1}}, ""); err == nil {
		t.Error("MatrixHeatmap of a malformed matrix: no error")
	}
}
