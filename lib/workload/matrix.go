package workload

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/datasets"
)

// Matrix is a rack-to-rack traffic matrix: W[s*Racks+d] is the share of
// flows from rack s to rack d (row-major, summing to 1).
type Matrix struct {
	Name  string
	Racks int
	W     []float64
}

// MatrixNames lists the embedded matrices LoadMatrix knows, besides
// "uniform" and file paths.
func MatrixNames() []string { return []string{"A", "B", "C"} }

// LoadMatrix returns the matrix name for a fabric of racks racks:
//
//   - "A", "B", "C" (any case): the embedded Meta matrices of a database,
//     web-server and Hadoop cluster (Parsimon Fig. 6a, from Roy et al.
//     SIGCOMM'15), synthesized by SynthesizeMatrix for 32 and 384 racks;
//   - "uniform": every ordered rack pair, intra-rack included, equally;
//   - anything else: the path of a matrix CSV (see ReadMatrixCSV), which
//     must have racks rows unless racks is 0.
func LoadMatrix(name string, racks int) (*Matrix, error) {
	if racks < 0 {
		return nil, fmt.Errorf("workload: matrix %s: negative rack count %d", name, racks)
	}
	switch up := strings.ToUpper(strings.TrimSpace(name)); up {
	case "A", "B", "C":
		file := fmt.Sprintf("matrices/%s-%d.csv", up, racks)
		f, err := datasets.FS.Open(file)
		if err != nil {
			have, _ := fs.Glob(datasets.FS, "matrices/"+up+"-*.csv")
			return nil, fmt.Errorf("workload: no embedded matrix %s for %d racks (have %s)", up, racks, strings.Join(have, ", "))
		}
		defer f.Close()
		return ReadMatrixCSV(up, f)
	case "UNIFORM":
		if racks == 0 {
			return nil, fmt.Errorf("workload: the uniform matrix needs a rack count")
		}
		w := make([]float64, racks*racks)
		for i := range w {
			w[i] = 1 / float64(len(w))
		}
		return &Matrix{Name: "uniform", Racks: racks, W: w}, nil
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("workload: matrix %q is neither A, B, C, uniform nor a readable file: %w", name, err)
	}
	defer f.Close()
	m, err := ReadMatrixCSV(name, f)
	if err != nil {
		return nil, err
	}
	if racks != 0 && m.Racks != racks {
		return nil, fmt.Errorf("workload: matrix %s has %d racks, the fabric %d", name, m.Racks, racks)
	}
	return m, nil
}

// IsMatrixFile reports whether LoadMatrix takes name for a file path
// (neither an embedded matrix nor "uniform"), so that a scenario can
// resolve and digest it.
func IsMatrixFile(name string) bool {
	switch strings.ToUpper(strings.TrimSpace(name)) {
	case "", "A", "B", "C", "UNIFORM":
		return false
	}
	return true
}

// ReadMatrixCSV reads a square matrix: '#' comment lines, then one row per
// source rack of comma-separated non-negative weights, one per destination
// rack. Weights are relative; the result is normalized to sum 1.
func ReadMatrixCSV(name string, r io.Reader) (*Matrix, error) {
	m := &Matrix{Name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20) // a 384-rack row is a few KB; allow big user files
	line, total := 0, 0.0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || t[0] == '#' {
			continue
		}
		fields := strings.Split(t, ",")
		if m.Racks == 0 {
			// W grows row by row: the first row's length is not yet
			// known to be the matrix's.
			m.Racks = len(fields)
		}
		row := len(m.W) / m.Racks
		switch {
		case len(fields) != m.Racks:
			return nil, fmt.Errorf("workload: matrix %s line %d: %d columns, want %d like the first row", name, line, len(fields), m.Racks)
		case row == m.Racks:
			return nil, fmt.Errorf("workload: matrix %s line %d: more than %d rows; the matrix must be square", name, line, m.Racks)
		}
		for i, f := range fields {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || !(v >= 0) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("workload: matrix %s line %d column %d: %q is not a non-negative number", name, line, i+1, f)
			}
			m.W = append(m.W, v)
			total += v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("workload: matrix %s: %w", name, err)
	}
	switch {
	case m.Racks == 0:
		return nil, fmt.Errorf("workload: matrix %s has no rows", name)
	case len(m.W) != m.Racks*m.Racks:
		return nil, fmt.Errorf("workload: matrix %s has %d rows of %d columns; it must be square", name, len(m.W)/m.Racks, m.Racks)
	case !(total > 0):
		return nil, fmt.Errorf("workload: matrix %s is all zero", name)
	case math.IsInf(total, 0):
		return nil, fmt.Errorf("workload: matrix %s: its weights sum beyond the float64 range; scale them down", name)
	}
	for i := range m.W {
		m.W[i] /= total
	}
	return m, nil
}

// WriteCSV writes m in the format ReadMatrixCSV reads: each header line as
// a '#' comment, then the rows with weights scaled so the mean entry is
// 1000 and rounded to integers, which keeps a 384-rack file near 0.6 MB
// while moving any share by at most 0.05 percentage points.
func (m *Matrix) WriteCSV(w io.Writer, header []string) error {
	bw := bufio.NewWriter(w)
	for _, h := range header {
		fmt.Fprintf(bw, "# %s\n", h)
	}
	scale := 1000 * float64(len(m.W))
	buf := make([]byte, 0, 16)
	for s := range m.Racks {
		for d := range m.Racks {
			if d > 0 {
				bw.WriteByte(',')
			}
			buf = strconv.AppendInt(buf[:0], int64(math.Round(m.W[s*m.Racks+d]*scale)), 10)
			bw.Write(buf)
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// Shares returns the share of traffic that stays inside a rack and inside
// a pod (intra-rack included), rack r being in pod r/racksPerPod. It
// returns NaNs for racksPerPod < 1.
func (m *Matrix) Shares(racksPerPod int) (intraRack, intraPod float64) {
	if racksPerPod < 1 {
		return math.NaN(), math.NaN()
	}
	for s := range m.Racks {
		for d := range m.Racks {
			w := m.W[s*m.Racks+d]
			if s == d {
				intraRack += w
			}
			if s/racksPerPod == d/racksPerPod {
				intraPod += w
			}
		}
	}
	return intraRack, intraPod
}

// TopShare returns the share of traffic carried by the heaviest frac of
// ordered rack pairs (at least one pair): a skew measure, frac for a
// uniform matrix.
func (m *Matrix) TopShare(frac float64) float64 {
	w := slices.Clone(m.W)
	slices.Sort(w)
	k := int(math.Ceil(frac * float64(len(w))))
	k = max(1, min(k, len(w)))
	sum := 0.0
	for _, v := range w[len(w)-k:] {
		sum += v
	}
	return sum
}

// MatrixSpec gives the published facts of one matrix and the knobs of our
// synthesis procedure (see SynthesizeMatrix).
type MatrixSpec struct {
	Name        string  // "A", "B" or "C"
	Cluster     string  // the cluster it describes
	Racks       int     // racks of the fabric
	RacksPerPod int     // racks per pod
	IntraRack   float64 // share of traffic inside a rack
	IntraPod    float64 // share inside a pod, intra-rack included
	Spread      float64 // sigma of the log-normal per-rack send and receive activity
	Noise       float64 // sigma of the log-normal per-pair noise
}

// MatrixSpecs returns the specs of the embedded matrices: A, B, C for the
// 32-rack (2 pods x 16) and 384-rack (8 pods x 48) fabrics. The shares are
// the 32-rack facts of Parsimon §5.1 / Fig. 6a; no separate figures are
// published for 384 racks, so those carry the same shares (a workload's
// locality, not a property of the pod count). Spread and Noise are ours,
// rising from A (the most all-to-all) to C (the most skewed).
func MatrixSpecs() []MatrixSpec {
	base := []MatrixSpec{
		{Name: "A", Cluster: "database", IntraRack: 0.0005, IntraPod: 0.49, Spread: 0.25, Noise: 0.25},
		{Name: "B", Cluster: "web server", IntraRack: 0.01, IntraPod: 0.50, Spread: 0.6, Noise: 0.5},
		{Name: "C", Cluster: "Hadoop", IntraRack: 0.51, IntraPod: 0.74, Spread: 1.0, Noise: 1.0},
	}
	var specs []MatrixSpec
	for _, f := range []struct{ racks, perPod int }{{32, 16}, {384, 48}} {
		for _, s := range base {
			s.Racks, s.RacksPerPod = f.racks, f.perPod
			specs = append(specs, s)
		}
	}
	return specs
}

// SynthesizeMatrix draws a matrix with exactly the shares of s: rack s
// sends a_s and rack d receives b_d, both log-normal with sigma Spread;
// pair (s, d) gets a_s b_d times log-normal noise of sigma Noise; then the
// intra-rack, intra-pod (other racks) and cross-pod pairs are each scaled
// to their share. The stream is seed and the spec's name and size, so each
// matrix is reproducible on its own.
func SynthesizeMatrix(s MatrixSpec, seed uint64) (*Matrix, error) {
	switch {
	case s.Racks < 2 || s.RacksPerPod < 1 || s.Racks%s.RacksPerPod != 0:
		return nil, fmt.Errorf("workload: matrix %s: %d racks do not split into pods of %d (need at least 2 racks)", s.Name, s.Racks, s.RacksPerPod)
	case !(s.IntraRack >= 0 && s.IntraRack <= s.IntraPod && s.IntraPod <= 1):
		return nil, fmt.Errorf("workload: matrix %s: need 0 <= intra-rack share (%v) <= intra-pod share (%v) <= 1", s.Name, s.IntraRack, s.IntraPod)
	case s.RacksPerPod == 1 && s.IntraPod != s.IntraRack:
		return nil, fmt.Errorf("workload: matrix %s: with one rack per pod the intra-pod share must equal the intra-rack share", s.Name)
	case s.Racks == s.RacksPerPod && s.IntraPod != 1:
		return nil, fmt.Errorf("workload: matrix %s: with a single pod the intra-pod share must be 1", s.Name)
	case !(s.Spread >= 0 && s.Noise >= 0):
		return nil, fmt.Errorf("workload: matrix %s: spread and noise must be non-negative", s.Name)
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", s.Name, s.Racks)
	r := rand.New(rand.NewPCG(seed, h.Sum64()))
	n := s.Racks
	send, recv := make([]float64, n), make([]float64, n)
	for i := range n {
		send[i] = math.Exp(s.Spread * r.NormFloat64())
		recv[i] = math.Exp(s.Spread * r.NormFloat64())
	}
	const rack, pod, cross = 0, 1, 2
	category := func(a, b int) int {
		switch {
		case a == b:
			return rack
		case a/s.RacksPerPod == b/s.RacksPerPod:
			return pod
		}
		return cross
	}
	w := make([]float64, n*n)
	var sum [3]float64
	for a := range n {
		for b := range n {
			v := send[a] * recv[b] * math.Exp(s.Noise*r.NormFloat64())
			w[a*n+b] = v
			sum[category(a, b)] += v
		}
	}
	target := [3]float64{s.IntraRack, s.IntraPod - s.IntraRack, 1 - s.IntraPod}
	for a := range n {
		for b := range n {
			c := category(a, b)
			w[a*n+b] *= target[c] / sum[c]
		}
	}
	return &Matrix{Name: s.Name, Racks: n, W: w}, nil
}

// PairSampler draws host pairs from a matrix; see Matrix.Sampler. It is
// read-only after construction, so goroutines may share it, each with its
// own rand.Rand.
type PairSampler struct {
	racks int
	w     []float64 // the matrix weights, for Check
	prob  []float64 // alias table (Vose): keep pair i with prob[i], else alias[i]
	alias []int32
}

// Sampler returns a sampler drawing rack pairs by weight in O(1) with the
// alias method.
func (m *Matrix) Sampler() *PairSampler {
	n := len(m.W)
	p := &PairSampler{racks: m.Racks, w: m.W, prob: make([]float64, n), alias: make([]int32, n)}
	total := 0.0
	for _, w := range m.W {
		total += w
	}
	scaled := make([]float64, n)
	var small, large []int32
	for i, w := range m.W {
		scaled[i] = w / total * float64(n)
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		p.prob[s], p.alias[s] = scaled[s], l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	// Leftovers are 1 up to rounding.
	for _, i := range append(small, large...) {
		p.prob[i], p.alias[i] = 1, i
	}
	return p
}

// maxRedraws bounds Sample's rejection loop; Check tells why it would fail.
const maxRedraws = 1 << 20

// Sample draws a rack pair by weight, then a source host uniformly in the
// source rack and a destination uniformly in the destination rack, never
// the source itself. racks[i] lists the hosts of rack i (topo's
// Network.Racks). Pairs that cannot carry a flow (an empty rack, or the
// intra-rack pair of a one-host rack) are redrawn, so the distribution is
// the matrix renormalized over feasible pairs. It panics when racks does
// not match the matrix or no feasible pair has weight: call Check first to
// get an error instead.
func (p *PairSampler) Sample(r *rand.Rand, racks [][]int) (src, dst int) {
	if len(racks) != p.racks {
		panic(fmt.Sprintf("workload: PairSampler for %d racks given %d racks", p.racks, len(racks)))
	}
	n := len(p.prob)
	for range maxRedraws {
		i := r.IntN(n)
		if r.Float64() >= p.prob[i] {
			i = int(p.alias[i])
		}
		s, d := racks[i/p.racks], racks[i%p.racks]
		switch {
		case len(s) == 0 || len(d) == 0:
			continue
		case i/p.racks != i%p.racks:
			return s[r.IntN(len(s))], d[r.IntN(len(d))]
		case len(s) < 2:
			continue
		}
		a, b := r.IntN(len(s)), r.IntN(len(s)-1)
		if b >= a {
			b++
		}
		return s[a], s[b]
	}
	panic("workload: PairSampler found no rack pair with hosts to carry a flow; see Check")
}

// Check reports why Sample cannot draw from racks: a rack count that does
// not match the matrix, or no weighted pair of racks with hosts able to
// carry a flow.
func (p *PairSampler) Check(racks [][]int) error {
	if len(racks) != p.racks {
		return fmt.Errorf("workload: the matrix has %d racks, the topology %d", p.racks, len(racks))
	}
	for i, w := range p.w {
		if w == 0 {
			continue
		}
		s, d := racks[i/p.racks], racks[i%p.racks]
		if len(s) > 0 && len(d) > 0 && (i/p.racks != i%p.racks || len(s) > 1) {
			return nil
		}
	}
	return fmt.Errorf("workload: no rack pair of the matrix with traffic has hosts that can exchange a flow")
}
