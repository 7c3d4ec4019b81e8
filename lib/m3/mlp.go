package m3

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// mlp is a fully connected network with ReLU hidden layers and a linear
// output, trained by hand-written backpropagation and Adam.
type mlp struct {
	W []*mat.Dense // layer l: out x in
	B [][]float64
}

// trace holds the activations of a forward pass for backward: A[0] is the
// input, Z[l] the pre-activation of layer l, A[l+1] its output. Keeping
// them out of mlp lets concurrent estimator runs share one model.
type trace struct {
	A, Z []*mat.Dense
}

// newMLP initialises layer sizes dims (input first) with He-normal weights
// drawn from r, the output layer scaled by outScale (small, so an untrained
// model starts close to predicting no correction).
func newMLP(dims []int, r *rand.Rand, outScale float64) *mlp {
	m := &mlp{}
	for l := 0; l+1 < len(dims); l++ {
		in, out := dims[l], dims[l+1]
		sd := math.Sqrt(2 / float64(in))
		if l+2 == len(dims) {
			sd *= outScale
		}
		w := make([]float64, in*out)
		for i := range w {
			w[i] = sd * r.NormFloat64()
		}
		m.W = append(m.W, mat.NewDense(out, in, w))
		m.B = append(m.B, make([]float64, out))
	}
	return m
}

// dims returns the layer sizes, input first.
func (m *mlp) dims() []int {
	_, in := m.W[0].Dims()
	d := []int{in}
	for _, w := range m.W {
		out, _ := w.Dims()
		d = append(d, out)
	}
	return d
}

// forward computes the outputs for the rows of x (batch x input) and the
// activations backward needs.
func (m *mlp) forward(x *mat.Dense) (*mat.Dense, *trace) {
	tr := &trace{A: []*mat.Dense{x}}
	a := x
	for l, w := range m.W {
		var z mat.Dense
		z.Mul(a, w.T())
		rows, cols := z.Dims()
		raw := z.RawMatrix()
		for i := range rows {
			row := raw.Data[i*raw.Stride : i*raw.Stride+cols]
			for j := range row {
				row[j] += m.B[l][j]
			}
		}
		tr.Z = append(tr.Z, &z)
		if l == len(m.W)-1 {
			a = &z
			break
		}
		var h mat.Dense
		h.Apply(func(_, _ int, v float64) float64 { return max(v, 0) }, &z)
		tr.A = append(tr.A, &h)
		a = &h
	}
	return a, tr
}

// backward takes the trace of a forward pass and the loss gradient with
// respect to its outputs and returns the gradients of every weight and
// bias and, when wantIn is set, of the input (for a network fed by
// another, the per-hop encoder's context into the head).
func (m *mlp) backward(tr *trace, dOut *mat.Dense, wantIn bool) (dW []*mat.Dense, dB [][]float64, dIn *mat.Dense) {
	L := len(m.W)
	dW, dB = make([]*mat.Dense, L), make([][]float64, L)
	d := dOut
	for l := L - 1; l >= 0; l-- {
		var g mat.Dense
		g.Mul(d.T(), tr.A[l])
		dW[l] = &g
		rows, cols := d.Dims()
		dB[l] = make([]float64, cols)
		for i := range rows {
			for j := range cols {
				dB[l][j] += d.At(i, j)
			}
		}
		if l == 0 {
			if wantIn {
				dIn = &mat.Dense{}
				dIn.Mul(d, m.W[0])
			}
			break
		}
		var da mat.Dense
		da.Mul(d, m.W[l])
		z := tr.Z[l-1]
		da.Apply(func(i, j int, v float64) float64 {
			if z.At(i, j) > 0 {
				return v
			}
			return 0
		}, &da)
		d = &da
	}
	return dW, dB, dIn
}

// adam is the Adam optimiser with decoupled weight decay (AdamW).
type adam struct {
	lr, b1, b2, eps, decay float64
	t                      int
	mW, vW                 []*mat.Dense
	mB, vB                 [][]float64
}

func newAdam(m *mlp, lr, decay float64) *adam {
	a := &adam{lr: lr, b1: 0.9, b2: 0.999, eps: 1e-8, decay: decay}
	for l, w := range m.W {
		r, c := w.Dims()
		a.mW, a.vW = append(a.mW, mat.NewDense(r, c, nil)), append(a.vW, mat.NewDense(r, c, nil))
		a.mB, a.vB = append(a.mB, make([]float64, len(m.B[l]))), append(a.vB, make([]float64, len(m.B[l])))
	}
	return a
}

// step applies one update with gradients dW, dB.
func (a *adam) step(m *mlp, dW []*mat.Dense, dB [][]float64) {
	a.t++
	c1 := 1 - math.Pow(a.b1, float64(a.t))
	c2 := 1 - math.Pow(a.b2, float64(a.t))
	upd := func(p, g, mm, vv []float64, decay float64) {
		for i := range p {
			mm[i] = a.b1*mm[i] + (1-a.b1)*g[i]
			vv[i] = a.b2*vv[i] + (1-a.b2)*g[i]*g[i]
			p[i] -= a.lr * (mm[i]/c1/(math.Sqrt(vv[i]/c2)+a.eps) + decay*p[i])
		}
	}
	for l := range m.W {
		upd(m.W[l].RawMatrix().Data, dW[l].RawMatrix().Data, a.mW[l].RawMatrix().Data, a.vW[l].RawMatrix().Data, a.decay)
		upd(m.B[l], dB[l], a.mB[l], a.vB[l], 0)
	}
}

// check reports a weight shape that does not chain.
func (m *mlp) check() error {
	if len(m.W) == 0 || len(m.W) != len(m.B) {
		return fmt.Errorf("m3: model has %d weight matrices and %d bias vectors", len(m.W), len(m.B))
	}
	for l, w := range m.W {
		r, c := w.Dims()
		if len(m.B[l]) != r {
			return fmt.Errorf("m3: layer %d has %d outputs but %d biases", l, r, len(m.B[l]))
		}
		if l > 0 {
			if pr, _ := m.W[l-1].Dims(); pr != c {
				return fmt.Errorf("m3: layer %d takes %d inputs but layer %d gives %d", l, c, l-1, pr)
			}
		}
	}
	return nil
}
