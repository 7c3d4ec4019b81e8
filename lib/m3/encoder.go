package m3

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/tailscope/tailscope/lib/metrics"
)

// The encoders a model reads its per-hop background maps with
// (ModelInfo.Encoder, TrainOptions.Encoder).
const (
	// EncoderPool is the fixed pooling: the mean and the maximum over
	// hops of the log background maps enter the MLP entry by entry. A
	// model that records no encoder has it.
	EncoderPool = "pool"
	// EncoderHops is m3's background context (§3.4): a small network,
	// shared by the hops, maps each hop's log background map to a vector;
	// the vectors' mean and maximum over the path's hops enter the MLP in
	// place of the fixed pooling, and both networks are trained together.
	// Mean and maximum make the context independent of the hops' order and
	// of how often a hop's map repeats, so a path of any length reads
	// alike; the hop count is in the spec vector.
	EncoderHops = "hops"
	// EncoderPoolHops gives the MLP both: the fixed pooling and the
	// learned context.
	EncoderPoolHops = "pool+hops"
)

// hopInputLen is the length of one hop's map as the encoder reads it.
func hopInputLen() int { return metrics.M3Bins().Len() * NumPercentiles }

// inputs are a batch of standardised model inputs: x the head's, a row per
// sample, without the background context; for an encoder model, hops the
// per-hop log background maps, sample i's in rows at[i] to at[i+1]-1.
type inputs struct {
	x    *mat.Dense
	hops *mat.Dense
	at   []int
}

// rows gathers the samples idx of in.
func (in *inputs) rows(idx []int) *inputs {
	_, n := in.x.Dims()
	b := &inputs{x: mat.NewDense(len(idx), n, nil)}
	for i, j := range idx {
		b.x.SetRow(i, in.x.RawRowView(j))
	}
	if in.hops == nil {
		return b
	}
	b.at = make([]int, 1, len(idx)+1)
	for _, j := range idx {
		b.at = append(b.at, b.at[len(b.at)-1]+in.at[j+1]-in.at[j])
	}
	if total := b.at[len(idx)]; total > 0 {
		_, h := in.hops.Dims()
		b.hops = mat.NewDense(total, h, nil)
		for i, j := range idx {
			for k := range in.at[j+1] - in.at[j] {
				b.hops.SetRow(b.at[i]+k, in.hops.RawRowView(in.at[j]+k))
			}
		}
	}
	return b
}

// member is one network of an ensemble: the head MLP and, for an
// encoder model, the per-hop encoder feeding it.
type member struct {
	enc  *mlp // nil: the fixed pooling
	head *mlp
}

// memberTrace is what a member's backward needs of its forward pass.
type memberTrace struct {
	enc, head *trace
	at        []int
	arg       []int // per sample and context entry, the hop row of the maximum
}

// forward computes the member's outputs (log corrections) for in.
func (m *member) forward(in *inputs) (*mat.Dense, *memberTrace) {
	if m.enc == nil {
		out, tr := m.head.forward(in.x)
		return out, &memberTrace{head: tr}
	}
	tr := &memberTrace{at: in.at}
	var e *mat.Dense
	if in.hops != nil {
		e, tr.enc = m.enc.forward(in.hops)
	}
	ctx, arg := m.pool(e, in.at)
	tr.arg = arg
	rows, n := in.x.Dims()
	_, c := ctx.Dims()
	x := mat.NewDense(rows, n+c, nil)
	x.Slice(0, rows, 0, n).(*mat.Dense).Copy(in.x)
	x.Slice(0, rows, n, n+c).(*mat.Dense).Copy(ctx)
	out, htr := m.head.forward(x)
	tr.head = htr
	return out, tr
}

// pool is the background context of each sample from its hops' encodings
// e (rows at[i] to at[i+1]-1): their mean, then their maximum, entry by
// entry, and the row of each maximum. A sample without hops gets a zero
// context (NewSample's paths have at least one).
func (m *member) pool(e *mat.Dense, at []int) (*mat.Dense, []int) {
	d, _ := m.enc.W[len(m.enc.W)-1].Dims()
	n := len(at) - 1
	ctx := mat.NewDense(n, 2*d, nil)
	arg := make([]int, n*d)
	for i := range n {
		row := ctx.RawRowView(i)
		lo, hi := at[i], at[i+1]
		if lo == hi {
			continue
		}
		for j := range d {
			sum, best, where := 0.0, math.Inf(-1), lo
			for k := lo; k < hi; k++ {
				v := e.At(k, j)
				sum += v
				if v > best {
					best, where = v, k
				}
			}
			row[j], row[d+j], arg[i*d+j] = sum/float64(hi-lo), best, where
		}
	}
	return ctx, arg
}

// grads are a member's weight and bias gradients.
type grads struct {
	encW, headW []*mat.Dense
	encB, headB [][]float64
}

// backward returns the gradients of the member's weights for the loss
// gradient dOut with respect to the outputs of the forward pass tr: the
// head's, then through the pooling (a mean spreads evenly over the hops,
// a maximum goes to its hop) into the encoder's.
func (m *member) backward(tr *memberTrace, dOut *mat.Dense) grads {
	var g grads
	if m.enc == nil {
		g.headW, g.headB, _ = m.head.backward(tr.head, dOut, false)
		return g
	}
	var dX *mat.Dense
	g.headW, g.headB, dX = m.head.backward(tr.head, dOut, true)
	if tr.enc == nil { // no hops in the batch: the encoder had no say
		for _, w := range m.enc.W {
			r, c := w.Dims()
			g.encW = append(g.encW, mat.NewDense(r, c, nil))
		}
		for _, b := range m.enc.B {
			g.encB = append(g.encB, make([]float64, len(b)))
		}
		return g
	}
	d, _ := m.enc.W[len(m.enc.W)-1].Dims()
	_, n := dX.Dims()
	rows, _ := tr.enc.A[0].Dims()
	dE := mat.NewDense(rows, d, nil)
	for i := range len(tr.at) - 1 {
		lo, hi := tr.at[i], tr.at[i+1]
		dc := dX.RawRowView(i)[n-2*d:]
		for j := range d {
			for k := lo; k < hi; k++ {
				dE.Set(k, j, dE.At(k, j)+dc[j]/float64(hi-lo))
			}
			k := tr.arg[i*d+j]
			dE.Set(k, j, dE.At(k, j)+dc[d+j])
		}
	}
	g.encW, g.encB, _ = m.enc.backward(tr.enc, dE, false)
	return g
}

// memberAdam steps a member's networks.
type memberAdam struct{ enc, head *adam }

func newMemberAdam(m *member, lr, decay float64) *memberAdam {
	a := &memberAdam{head: newAdam(m.head, lr, decay)}
	if m.enc != nil {
		a.enc = newAdam(m.enc, lr, decay)
	}
	return a
}

func (a *memberAdam) setLR(lr float64) {
	a.head.lr = lr
	if a.enc != nil {
		a.enc.lr = lr
	}
}

func (a *memberAdam) step(m *member, g grads) {
	a.head.step(m.head, g.headW, g.headB)
	if a.enc != nil {
		a.enc.step(m.enc, g.encW, g.encB)
	}
}

func (m *member) clone() *member {
	c := &member{head: m.head.clone()}
	if m.enc != nil {
		c.enc = m.enc.clone()
	}
	return c
}

func (m *member) roundToFloat32() {
	m.head.roundToFloat32()
	if m.enc != nil {
		m.enc.roundToFloat32()
	}
}

// checkEncoder reports encoder settings a model cannot have.
func checkEncoder(info ModelInfo, encDims []int) error {
	switch info.Encoder {
	case "":
		if encDims != nil || info.Context != 0 || info.EncoderHidden != nil {
			return fmt.Errorf("a model with the fixed pooling has encoder layers %v, context %d", encDims, info.Context)
		}
	case EncoderHops, EncoderPoolHops:
		if info.Context < 1 {
			return fmt.Errorf("encoder model with context width %d", info.Context)
		}
		if len(encDims) < 2 || encDims[0] != hopInputLen() || encDims[len(encDims)-1] != info.Context {
			return fmt.Errorf("encoder layer sizes %v do not fit %d inputs per hop and a context of %d", encDims, hopInputLen(), info.Context)
		}
	default:
		return fmt.Errorf("unknown encoder %q (known: %s, %s, %s)", info.Encoder, EncoderPool, EncoderHops, EncoderPoolHops)
	}
	return nil
}
