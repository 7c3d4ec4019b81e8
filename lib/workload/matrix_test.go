package workload

import (
	"bytes"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/datasets"
	"github.com/tailscope/tailscope/lib/topo"
)

func mustMatrix(t testing.TB, name string, racks int) *Matrix {
	t.Helper()
	m, err := LoadMatrix(name, racks)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Published facts (REFERENCE.md "Workloads", Parsimon §5.1 / Fig. 6a):
// shares within 2 percentage points, on both fabric sizes.
func TestEmbeddedMatrixFacts(t *testing.T) {
	facts := map[string][2]float64{"A": {0.0005, 0.49}, "B": {0.01, 0.50}, "C": {0.51, 0.74}}
	for _, f := range []struct{ racks, perPod int }{{32, 16}, {384, 48}} {
		top := map[string]float64{}
		for _, name := range MatrixNames() {
			m := mustMatrix(t, strings.ToLower(name), f.racks)
			if m.Racks != f.racks || len(m.W) != f.racks*f.racks {
				t.Fatalf("%s-%d: %d racks, %d weights", name, f.racks, m.Racks, len(m.W))
			}
			sum := 0.0
			for _, w := range m.W {
				if w < 0 {
					t.Fatalf("%s-%d: negative weight %v", name, f.racks, w)
				}
				sum += w
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("%s-%d: weights sum to %v", name, f.racks, sum)
			}
			rack, pod := m.Shares(f.perPod)
			if want := facts[name]; math.Abs(rack-want[0]) > 0.02 || math.Abs(pod-want[1]) > 0.02 {
				t.Errorf("%s-%d: intra-rack %.4f, intra-pod %.4f; want %v, %v within 0.02", name, f.racks, rack, pod, want[0], want[1])
			}
			top[name] = m.TopShare(0.05)
		}
		// C the most skewed, A the most all-to-all.
		if !(top["A"] < top["B"] && top["B"] < top["C"]) {
			t.Errorf("%d racks: top-5%% pair shares A %.3f, B %.3f, C %.3f; want A < B < C", f.racks, top["A"], top["B"], top["C"])
		}
	}
}

// The embedded files are what "tailscope datasets matrices --seed 1" writes:
// re-synthesizing each reproduces its numbers exactly.
func TestEmbeddedMatricesReproduce(t *testing.T) {
	for _, s := range MatrixSpecs() {
		m, err := SynthesizeMatrix(s, 1)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := m.WriteCSV(&buf, nil); err != nil {
			t.Fatal(err)
		}
		file, err := fs.ReadFile(datasets.FS, fmt.Sprintf("matrices/%s-%d.csv", s.Name, s.Racks))
		if err != nil {
			t.Fatal(err)
		}
		var data []byte
		for _, line := range bytes.SplitAfter(file, []byte("\n")) {
			if !bytes.HasPrefix(line, []byte("#")) {
				data = append(data, line...)
			}
		}
		if !bytes.Equal(data, buf.Bytes()) {
			t.Errorf("%s-%d: the embedded file differs from SynthesizeMatrix(seed 1); rerun tailscope datasets matrices", s.Name, s.Racks)
		}
		if len(file) > 1<<20 {
			t.Errorf("%s-%d: file is %d bytes, want under 1 MiB", s.Name, s.Racks, len(file))
		}
	}
}

func TestSynthesizeMatrix(t *testing.T) {
	for _, s := range []MatrixSpec{
		{Name: "x", Racks: 12, RacksPerPod: 4, IntraRack: 0.2, IntraPod: 0.5, Spread: 1, Noise: 0.5},
		{Name: "y", Racks: 6, RacksPerPod: 3, IntraRack: 0, IntraPod: 0.3, Spread: 0, Noise: 0},
		{Name: "z", Racks: 4, RacksPerPod: 4, IntraRack: 0.1, IntraPod: 1, Spread: 2, Noise: 2},
	} {
		a, err := SynthesizeMatrix(s, 7)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := SynthesizeMatrix(s, 7)
		c, _ := SynthesizeMatrix(s, 8)
		rack, pod := a.Shares(s.RacksPerPod)
		if math.Abs(rack-s.IntraRack) > 1e-12 || math.Abs(pod-s.IntraPod) > 1e-12 {
			t.Errorf("%s: shares %v, %v; want exactly %v, %v", s.Name, rack, pod, s.IntraRack, s.IntraPod)
		}
		same, diff := true, false
		for i := range a.W {
			same = same && a.W[i] == b.W[i]
			diff = diff || a.W[i] != c.W[i]
		}
		if !same {
			t.Errorf("%s: seed 7 gave two different matrices", s.Name)
		}
		if !diff && (s.Spread > 0 || s.Noise > 0) {
			t.Errorf("%s: seeds 7 and 8 gave the same matrix", s.Name)
		}
		if s.Spread == 0 && s.Noise == 0 {
			// No randomness: each category is uniform over its pairs.
			// 6 racks in pods of 3: 6 intra-rack, 12 intra-pod, 18 cross-pod pairs.
			if w := a.W[0*6+1]; math.Abs(w-0.3/12) > 1e-15 {
				t.Errorf("%s: intra-pod pair weight %v, want %v", s.Name, w, 0.3/12)
			}
			if w := a.W[0*6+5]; math.Abs(w-0.7/18) > 1e-15 {
				t.Errorf("%s: cross-pod pair weight %v, want %v", s.Name, w, 0.7/18)
			}
		}
	}
	for _, tc := range []struct {
		s    MatrixSpec
		want string
	}{
		{MatrixSpec{Name: "q", Racks: 10, RacksPerPod: 3, IntraPod: 0.5}, "do not split into pods of 3"},
		{MatrixSpec{Name: "q", Racks: 1, RacksPerPod: 1, IntraPod: 1, IntraRack: 1}, "at least 2 racks"},
		{MatrixSpec{Name: "q", Racks: 8, RacksPerPod: 4, IntraRack: 0.6, IntraPod: 0.5}, "intra-rack share (0.6) <= intra-pod share (0.5)"},
		{MatrixSpec{Name: "q", Racks: 8, RacksPerPod: 8, IntraRack: 0.1, IntraPod: 0.5}, "single pod"},
		{MatrixSpec{Name: "q", Racks: 8, RacksPerPod: 1, IntraRack: 0.1, IntraPod: 0.5}, "one rack per pod"},
		{MatrixSpec{Name: "q", Racks: 8, RacksPerPod: 4, IntraPod: 0.5, Spread: -1}, "non-negative"},
	} {
		if _, err := SynthesizeMatrix(tc.s, 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.s, err, tc.want)
		}
	}
}

// Closed forms for the uniform matrix: intra-rack 1/racks, intra-pod
// perPod/racks, TopShare(frac) = frac.
func TestUniformMatrix(t *testing.T) {
	m := mustMatrix(t, "Uniform", 32)
	rack, pod := m.Shares(16)
	if math.Abs(rack-1.0/32) > 1e-12 || math.Abs(pod-0.5) > 1e-12 {
		t.Errorf("shares %v, %v; want 1/32, 1/2", rack, pod)
	}
	for _, f := range []float64{0.01, 0.25, 1} {
		if got := m.TopShare(f); math.Abs(got-math.Ceil(f*1024)/1024) > 1e-12 {
			t.Errorf("TopShare(%v) = %v", f, got)
		}
	}
	if r, p := m.Shares(0); !math.IsNaN(r) || !math.IsNaN(p) {
		t.Errorf("Shares(0) = %v, %v; want NaNs", r, p)
	}
}

func TestLoadMatrix(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.csv")
	if err := os.WriteFile(path, []byte("# mine\n1, 3\n\n0,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := mustMatrix(t, path, 2)
	if want := []float64{0.125, 0.375, 0, 0.5}; fmt.Sprint(m.W) != fmt.Sprint(want) || m.Name != path {
		t.Errorf("read %v named %q, want %v named %q", m.W, m.Name, want, path)
	}
	if m0 := mustMatrix(t, path, 0); m0.Racks != 2 {
		t.Errorf("racks 0 read %d racks", m0.Racks)
	}
	for _, tc := range []struct {
		name  string
		racks int
		want  string
	}{
		{"A", 64, "no embedded matrix A for 64 racks (have matrices/A-32.csv, matrices/A-384.csv)"},
		{path, 3, "has 2 racks, the fabric 3"},
		{"D", 32, "neither A, B, C, uniform nor a readable file"},
		{"uniform", 0, "needs a rack count"},
		{"B", -1, "negative rack count"},
	} {
		if _, err := LoadMatrix(tc.name, tc.racks); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadMatrix(%q, %d): error %v, want one containing %q", tc.name, tc.racks, err, tc.want)
		}
	}
}

func TestReadMatrixCSVErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "has no rows"},
		{"#x\n1,2\n3\n", "line 3: 1 columns, want 2"},
		{"1,2\n3,4\n5,6\n", "line 3: more than 2 rows"},
		{"1,2,3\n4,5,6\n", "has 2 rows of 3 columns"},
		{"1,-2\n3,4\n", "line 1 column 2: \"-2\" is not a non-negative number"},
		{"1,2\n3,x\n", "line 2 column 2: \"x\""},
		{"1,2\n3,NaN\n", "line 2 column 2"},
		{"0,0\n0,0\n", "all zero"},
	} {
		_, err := ReadMatrixCSV("t.csv", strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "t.csv") {
			t.Errorf("%q: error %v, want one naming t.csv and containing %q", tc.in, err, tc.want)
		}
	}
}

// chiSquare returns the Pearson statistic of counts against expected
// probabilities (cells with probability 0 must have count 0).
func chiSquare(t *testing.T, counts []int, p []float64, n int) float64 {
	t.Helper()
	x := 0.0
	for i, c := range counts {
		e := p[i] * float64(n)
		if e == 0 {
			if c != 0 {
				t.Fatalf("cell %d has probability 0 but %d draws", i, c)
			}
			continue
		}
		x += (float64(c) - e) * (float64(c) - e) / e
	}
	return x
}

// Rack pairs follow the weights, hosts are uniform in their racks, and a
// flow never goes from a host to itself.
func TestPairSamplerFrequencies(t *testing.T) {
	// 3 racks with 2, 3, 1 hosts; rack 2's intra-rack pair is infeasible and
	// rack pair (1, 0) has no weight.
	m := &Matrix{Name: "t", Racks: 3, W: []float64{
		0.10, 0.20, 0.05,
		0.00, 0.30, 0.15,
		0.05, 0.05, 0.10,
	}}
	racks := [][]int{{10, 11}, {20, 21, 22}, {30}}
	rackOf := map[int]int{10: 0, 11: 0, 20: 1, 21: 1, 22: 1, 30: 2}
	ps := m.Sampler()
	if err := ps.Check(racks); err != nil {
		t.Fatal(err)
	}
	const n = 400_000
	r := rand.New(rand.NewPCG(9, 9))
	pairCount := make([]int, 9)
	hostCount := map[[2]int]int{}
	for range n {
		s, d := ps.Sample(r, racks)
		if s == d {
			t.Fatalf("drew host %d to itself", s)
		}
		pairCount[rackOf[s]*3+rackOf[d]]++
		hostCount[[2]int{s, d}]++
	}
	// Expected: the weights without the infeasible (2, 2), renormalized.
	p := slices.Clone(m.W)
	p[8] = 0
	for i := range p {
		p[i] /= 0.9
	}
	// Chi-square critical value, 6 degrees of freedom (7 cells), alpha 0.001: 22.46.
	if x := chiSquare(t, pairCount, p, n); x > 22.46 {
		t.Errorf("rack pairs: chi-square %.1f > 22.46; counts %v", x, pairCount)
	}
	// Within rack pair (1, 1), the 6 ordered host pairs of distinct hosts are equally likely.
	var cells []int
	for _, a := range racks[1] {
		for _, b := range racks[1] {
			if a != b {
				cells = append(cells, hostCount[[2]int{a, b}])
			}
		}
	}
	// 5 degrees of freedom, alpha 0.001: 20.52.
	if x := chiSquare(t, cells, []float64{1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6, 1. / 6}, pairCount[4]); x > 20.52 {
		t.Errorf("hosts in rack 1: chi-square %.1f > 20.52; counts %v", x, cells)
	}
	// The statistic must be able to fail: against the raw weights (with the
	// infeasible pair's share not redistributed) it rejects.
	raw := slices.Clone(m.W)
	raw[8] = 0
	if x := chiSquare(t, pairCount, raw, n); x <= 22.46 {
		t.Errorf("chi-square against the wrong distribution is only %.1f", x)
	}
}

// On the 32-rack fabric, sampled flows reproduce matrix C's shares.
func TestPairSamplerOnFabric(t *testing.T) {
	spec, err := topo.Preset("meta32-1:1")
	if err != nil {
		t.Fatal(err)
	}
	net, err := topo.Fabric(spec)
	if err != nil {
		t.Fatal(err)
	}
	m := mustMatrix(t, "C", 32)
	ps := m.Sampler()
	racks := net.Racks()
	if err := ps.Check(racks); err != nil {
		t.Fatal(err)
	}
	const n = 200_000
	r := rand.New(rand.NewPCG(3, 3))
	var intraRack, intraPod int
	for range n {
		s, d := ps.Sample(r, racks)
		a, b := net.Nodes[s], net.Nodes[d]
		if s == d || !net.IsHost(s) || !net.IsHost(d) {
			t.Fatalf("bad pair %d -> %d", s, d)
		}
		if a.Rack == b.Rack {
			intraRack++
		}
		if a.Pod == b.Pod {
			intraPod++
		}
	}
	wantRack, wantPod := m.Shares(16)
	// Binomial standard deviations are below 0.0012; allow 5 of them.
	if got := float64(intraRack) / n; math.Abs(got-wantRack) > 0.006 {
		t.Errorf("intra-rack share of sampled flows %.4f, matrix %.4f", got, wantRack)
	}
	if got := float64(intraPod) / n; math.Abs(got-wantPod) > 0.006 {
		t.Errorf("intra-pod share of sampled flows %.4f, matrix %.4f", got, wantPod)
	}
}

func TestPairSamplerSameSeed(t *testing.T) {
	ps := mustMatrix(t, "B", 32).Sampler()
	racks := make([][]int, 32)
	for i := range racks {
		racks[i] = []int{2 * i, 2*i + 1}
	}
	a, b := rand.New(rand.NewPCG(5, 0)), rand.New(rand.NewPCG(5, 0))
	for i := range 1000 {
		s1, d1 := ps.Sample(a, racks)
		s2, d2 := ps.Sample(b, racks)
		if s1 != s2 || d1 != d2 {
			t.Fatalf("draw %d: %d->%d vs %d->%d with the same seed", i, s1, d1, s2, d2)
		}
	}
}

func TestPairSamplerInfeasible(t *testing.T) {
	diag := &Matrix{Name: "diag", Racks: 2, W: []float64{0.5, 0, 0, 0.5}}
	for _, tc := range []struct {
		m     *Matrix
		racks [][]int
		want  string
	}{
		{diag, [][]int{{1}, {2}}, "no rack pair"},
		{diag, [][]int{{}, {}}, "no rack pair"},
		{diag, [][]int{{1, 2}}, "the matrix has 2 racks, the topology 1"},
	} {
		ps := tc.m.Sampler()
		if err := ps.Check(tc.racks); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%v): %v, want %q", tc.racks, err, tc.want)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Sample(%v) did not panic", tc.racks)
				}
			}()
			ps.Sample(rand.New(rand.NewPCG(1, 1)), tc.racks)
		}()
	}
	if err := diag.Sampler().Check([][]int{{1}, {2, 3}}); err != nil {
		t.Errorf("rack 1 has two hosts, yet Check says %v", err)
	}
}

func BenchmarkPairSample(b *testing.B) {
	m := mustMatrix(b, "C", 384)
	ps := m.Sampler()
	racks := make([][]int, 384)
	for i := range racks {
		for h := range 16 {
			racks[i] = append(racks[i], 16*i+h)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	sum := 0
	for b.Loop() {
		s, d := ps.Sample(r, racks)
		sum += s ^ d
	}
	if sum == 0 {
		b.Fatal("no pairs drawn")
	}
}

func ExampleMatrix_Shares() {
	m, err := LoadMatrix("C", 32)
	if err != nil {
		panic(err)
	}
	rack, pod := m.Shares(16) // 32-rack fabric: 2 pods of 16 racks
	fmt.Printf("matrix C: intra-rack %.0f%%, intra-pod %.0f%%\n", 100*rack, 100*pod)
	// Output: matrix C: intra-rack 51%, intra-pod 74%
}

func ExampleMatrix_Sampler() {
	spec, _ := topo.Preset("meta32-2:1")
	net, _ := topo.Fabric(spec)
	racks := net.Racks()
	m, err := LoadMatrix("A", len(racks))
	if err != nil {
		panic(err)
	}
	ps := m.Sampler()
	if err := ps.Check(racks); err != nil {
		panic(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	sameRack, samePod := 0, 0
	for range 10000 {
		src, dst := ps.Sample(r, racks)
		a, b := net.Nodes[src], net.Nodes[dst]
		if a.Rack == b.Rack {
			sameRack++
		}
		if a.Pod == b.Pod {
			samePod++
		}
	}
	fmt.Printf("matrix A, 10000 flows: %d inside a rack, %d inside a pod\n", sameRack, samePod)
	// Output: matrix A, 10000 flows: 5 inside a rack, 4791 inside a pod
}
