package m3

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// hashedSpecNames is the spec layout of TestEmbeddedModelsUnchanged's
// hashes: the 25 network entries of m3 Table 4 and the foreground share.
var hashedSpecNames = append(slices.Clone(NetworkSpecNames[:25]), "log10_fg_share")

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
	// Entries are drawn by name in the layout TestEmbeddedModelsUnchanged's
	// hashes were computed with, so that every sample keeps its values;
	// the ECN threshold's own entries, added since, copy the threshold's.
	at := func(n string) *float64 { return &s.Spec[slices.Index(SpecNames, n)] }
	for _, n := range hashedSpecNames {
		*at(n) = r.Float64()
	}
	*at("ecn_k_first/bdp"), *at("ecn_k_max/bdp") = *at("k_first/bdp"), *at("k_max/bdp")
	s.Spec[0] = float64(hops) / 6
	for range 4 {
		s.Count = append(s.Count, r.IntN(60))
	}
	return s
}

// The embedded models answer exactly as they did: the hash of the default
// model's predictions on fixed random samples was computed by the code
// before the per-hop encoder (commit 8b2b993's lib/m3, this test's first
// version), so any change to the fixed-pooling path shows here;
// table4-pfc's is that of the model as embedded (it reads the ECN
// threshold's own entries and corrects the window-capped flowSim),
// computed when it was embedded.
func TestEmbeddedModelsUnchanged(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"", "0f7bd68e957e74c1"},
		{"table4-pfc", "6bad3d6ae71ddf27"},
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

// Backpropagation through the head, the pooling and the encoder matches
// finite differences on a tiny member, with samples of 1, 3 and 2 hops.
func TestEncoderGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 8))
	m := &member{head: newMLP([]int{4 + 2*3, 5, 2}, r, 1), enc: newMLP([]int{6, 4, 3}, r, 1)}
	randDense := func(rows, cols int) *mat.Dense {
		d := mat.NewDense(rows, cols, nil)
		for i := range d.RawMatrix().Data {
			d.RawMatrix().Data[i] = r.NormFloat64()
		}
		return d
	}
	in := &inputs{x: randDense(3, 4), hops: randDense(6, 6), at: []int{0, 1, 4, 6}}
	// L = sum of out^2 / 2, so dL/dout = out.
	lossOf := func() float64 {
		out, _ := m.forward(in)
		return 0.5 * mat.Sum(mulElem(out, out))
	}
	out, tr := m.forward(in)
	g := m.backward(tr, mat.DenseCopyOf(out))
	for _, n := range []struct {
		name string
		net  *mlp
		dW   []*mat.Dense
		dB   [][]float64
	}{{"head", m.head, g.headW, g.headB}, {"encoder", m.enc, g.encW, g.encB}} {
		for l := range n.net.W {
			checkGradient(t, fmt.Sprintf("%s layer %d weight", n.name, l), n.net.W[l].RawMatrix().Data, n.dW[l].RawMatrix().Data, lossOf)
			checkGradient(t, fmt.Sprintf("%s layer %d bias", n.name, l), n.net.B[l], n.dB[l], lossOf)
		}
	}
}

// The pooled context is each entry's mean, then maximum, over a sample's
// hops: the same for any order of the hops and for every hop repeated,
// the hop's own encoding twice for one hop, zero without hops.
func TestPooledContext(t *testing.T) {
	m := &member{enc: newMLP([]int{1, 2}, rand.New(rand.NewPCG(1, 1)), 1)}
	for _, tc := range []struct {
		name string
		e    [][]float64 // the hops' encodings
		want []float64
	}{
		{"one hop", [][]float64{{1, -2}}, []float64{1, -2, 1, -2}},
		{"three hops", [][]float64{{1, -2}, {4, -5}, {1, 1}}, []float64{2, -2, 4, 1}},
		{"reversed", [][]float64{{1, 1}, {4, -5}, {1, -2}}, []float64{2, -2, 4, 1}},
		{"repeated", [][]float64{{1, -2}, {4, -5}, {1, 1}, {1, -2}, {4, -5}, {1, 1}}, []float64{2, -2, 4, 1}},
		{"a hot hop among cold", [][]float64{{0, 0}, {0, 0}, {9, 0}}, []float64{3, 0, 9, 0}},
		{"no hops", nil, []float64{0, 0, 0, 0}},
	} {
		// Two samples: a fixed hop before, so that offsets matter.
		e := mat.NewDense(1+max(len(tc.e), 1), 2, nil)
		e.SetRow(0, []float64{7, 7})
		for i, row := range tc.e {
			e.SetRow(1+i, row)
		}
		ctx, _ := m.pool(e, []int{0, 1, 1 + len(tc.e)})
		if got := ctx.RawRowView(1); !floats.EqualApprox(got, tc.want, 1e-12) {
			t.Errorf("%s: context %v, want %v", tc.name, got, tc.want)
		}
		if got := ctx.RawRowView(0); !slices.Equal(got, []float64{7, 7, 7, 7}) {
			t.Errorf("%s: the first sample's context %v, want its hop's", tc.name, got)
		}
	}
}

// hotHopSample is a sample of 1 to 4 hops whose target is flowSim's
// percentiles (Base) times 1 + u, u uniform: one hop, at a random place,
// has every background percentile at 1 + 4u, the others near 1. Its
// foreground maps and spec are the same in every sample, so the hot hop
// is the only signal.
func hotHopSample(r *rand.Rand) *Sample {
	s := synthSample(rand.New(rand.NewPCG(0, 1)), 1)
	u := r.Float64()
	s.Hops = 1 + r.IntN(4)
	s.BG = nil
	hot := r.IntN(s.Hops)
	for k := range s.Hops {
		m := make([][]float64, 10)
		for b := range m {
			for range NumPercentiles {
				v := 1 + 0.05*r.Float64()
				if k == hot {
					v = 1 + 4*u
				}
				m[b] = append(m[b], v)
			}
		}
		s.BG = append(s.BG, m)
	}
	s.Spec[0] = 0
	for b, row := range s.Base {
		for p, v := range row {
			s.Target[b][p] = v * (1 + u)
		}
	}
	return s
}

// An encoder model learns a correction that only the background maps
// carry, is reproducible from its seed, and saves and loads (in the
// encoder file version) to the same predictions; a permutation of a
// path's hops leaves its prediction unchanged. One of them reads the fixed
// pooling beside the context; the other reads only the spec entries it is
// told.
func TestEncoderTrainingLearnsAndRoundTrips(t *testing.T) {
	for _, enc := range []string{EncoderHops, EncoderPoolHops} {
		t.Run(enc, func(t *testing.T) { testEncoderTraining(t, enc) })
	}
}

func testEncoderTraining(t *testing.T, enc string) {
	r := rand.New(rand.NewPCG(9, 18))
	var train, val []*Sample
	for i := range 150 {
		if s := hotHopSample(r); i < 120 {
			train = append(train, s)
		} else {
			val = append(val, s)
		}
	}
	// A step of 0.003: at 0.01 the pooled variant learned the hot hop
	// from some initializations only (four of six seeds missed).
	o := TrainOptions{Hidden: []int{16}, Members: 2, Epochs: 20, LR: 0.003, Seed: 3, Encoder: enc, EncoderHidden: []int{8}, Context: 4}
	if enc == EncoderHops { // and reads two spec entries only
		o.SpecNames = []string{"pfc", "hops/6"}
	}
	m, err := Train(train, val, o)
	if err != nil {
		t.Fatal(err)
	}
	if o.SpecNames != nil {
		s := *val[0]
		s.Spec = slices.Clone(s.Spec)
		s.Spec[slices.Index(SpecNames, "log10_fg_share")] = -3
		if !slices.Equal(m.Info.SpecNames, o.SpecNames) || !reflect.DeepEqual(m.Predict([]*Sample{&s}), m.Predict(val[:1])) {
			t.Errorf("a model of spec entries %v reads %v or moves with another", o.SpecNames, m.Info.SpecNames)
		}
	}
	// flowSim alone is off by the factor 1 + u: a relative error of
	// 1 - 1/(1+u), 0.31 on average.
	if m.Info.FlowSimLoss < 0.25 || m.Info.ValLoss > m.Info.FlowSimLoss/4 {
		t.Errorf("validation loss %.3f, flowSim %.3f: training did not learn the hot hop", m.Info.ValLoss, m.Info.FlowSimLoss)
	}
	if m.Info.Encoder != enc || m.Info.Context != 4 || !slices.Equal(m.Info.EncoderHidden, []int{8}) {
		t.Errorf("model info %+v does not record the encoder", m.Info)
	}
	again, _ := Train(train, val, o)
	if !reflect.DeepEqual(again.Predict(val), m.Predict(val)) {
		t.Error("training with the same seed is not reproducible")
	}
	path := filepath.Join(t.TempDir(), "m.model")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(b), encoderMagic) {
		t.Fatalf("encoder model file starts %q (%v)", b[:min(len(b), len(encoderMagic))], err)
	}
	back, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Predict(val), m.Predict(val)) || !reflect.DeepEqual(back.Info, m.Info) {
		t.Error("saved and loaded model predicts differently")
	}
	// A fixed-pooling reader's magic on an encoder file is refused.
	bad := filepath.Join(t.TempDir(), "bad.model")
	os.WriteFile(bad, append([]byte(modelMagic), b[len(encoderMagic):]...), 0o644)
	if _, err := LoadModel(bad); err == nil || !strings.Contains(err.Error(), "does not match its encoder") {
		t.Errorf("encoder model under the old magic: %v", err)
	}
	for _, s := range val[:10] {
		rev := *s
		rev.BG = slices.Clone(s.BG)
		slices.Reverse(rev.BG)
		p, q := m.Predict([]*Sample{s})[0], m.Predict([]*Sample{&rev})[0]
		for b := range p {
			if !floats.EqualApprox(p[b], q[b], 1e-9) {
				t.Fatalf("hops reversed: bucket %d predicted %v, was %v", b, q[b][:3], p[b][:3])
			}
		}
	}
}

func TestTrainEncoderOptions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 18))
	train, val := []*Sample{hotHopSample(r)}, []*Sample{hotHopSample(r)}
	for _, tc := range []struct {
		o    TrainOptions
		want string
	}{
		{TrainOptions{Encoder: "lstm"}, `unknown encoder "lstm" (known: pool, hops, pool+hops)`},
		{TrainOptions{Context: 8}, `need encoder "hops"`},
		{TrainOptions{Encoder: EncoderPool, EncoderHidden: []int{8}}, `need encoder "hops"`},
		{TrainOptions{Encoder: EncoderHops, Context: -1}, "must not be negative"},
		{TrainOptions{SpecNames: []string{"hops/6", "pfc", "hops/6"}}, `spec entry "hops/6" named twice`},
		{TrainOptions{SpecNames: []string{"hops/6", "queue"}}, `reads spec entry "queue", which this tailscope does not compute`},
	} {
		if _, err := Train(train, val, tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.o, err, tc.want)
		}
	}
}

// BenchmarkPredict times one batched prediction for 500 paths of 1-6 hops
// (m3's default sample count) by an ensemble of the table4-pfc model's
// size, with the fixed pooling and with the per-hop encoder (random
// weights: the cost does not depend on them).
func BenchmarkPredict(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 0))
	var samples []*Sample
	for i := range 500 {
		samples = append(samples, randomSample(r, 1+i%6))
	}
	for _, enc := range []string{"", EncoderHops} {
		m := &Model{Info: ModelInfo{Encoder: enc, SpecNames: SpecNames}}
		if enc != "" {
			m.Info.Context = 32
		}
		m.spec, _ = m.Info.specIndex()
		n := inputLen(len(m.spec), m.Info.pooled())
		m.mean, m.std = make([]float64, n), slices.Repeat([]float64{1}, n)
		m.hopMean, m.hopStd = make([]float64, hopInputLen()), slices.Repeat([]float64{1}, hopInputLen())
		for range 3 {
			mb := &member{head: newMLP([]int{m.Info.headInputLen(len(m.spec)), 96, 96, outputLen()}, r, 0.01)}
			if enc != "" {
				mb.enc = newMLP([]int{hopInputLen(), 64, 32}, r, 1)
			}
			m.nets = append(m.nets, mb)
		}
		b.Run(cmp.Or(enc, EncoderPool), func(b *testing.B) {
			for b.Loop() {
				m.Predict(samples)
			}
		})
	}
}
