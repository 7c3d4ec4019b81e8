package m3

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/tailscope/tailscope/datasets"
	"github.com/tailscope/tailscope/lib/internal/pool"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/progress"
)

// MinTargetFlows is the fewest foreground flows an output bucket of a
// training sample needs for its packet-level percentiles to enter the loss;
// fewer make a p99 that is mostly noise.
const MinTargetFlows = 20

// Model is the learned correction of flowSim (m3 §3.4): an MLP over the
// foreground feature map, the mean and maximum over hops of the background
// maps (all in log slowdown), the network-spec vector, the foreground flow
// counts and flowSim's own output-bucket percentiles. It outputs a log
// correction per output bucket and percentile, so that the prediction is
// flowSim's percentile times exp(correction) and an untrained model
// predicts flowSim.
//
// A model is an ensemble of such MLPs, trained alike from different seeds,
// whose corrections are averaged: a network's paths lie at the edge of the
// training distribution (low loads, one foreground flow), where single
// networks disagree by several percent at p99; their mean varies less.
type Model struct {
	nets      []*mlp
	mean, std []float64 // input standardisation, from the training set
	spec      []int     // the spec entries read (Info.SpecNames), as SpecVector indices
	// Info records how the model was trained.
	Info ModelInfo
	// digest is the hash of the file the model was read from.
	digest string
}

// Digest names the model file the model was read from (ReadModel,
// LoadModel, DefaultModel): "sha256:" and the first 16 hex digits of the
// file's SHA-256, FileDigest's. A model not read from a file has none.
// Results keyed by it are never taken for another model's.
func (m *Model) Digest() string { return m.digest }

// FileDigest is the Digest of the model in the file at path, read without
// decoding the model.
func FileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("m3: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("m3: %s: %w", path, err)
	}
	return digestOf(h), nil
}

func digestOf(h hash.Hash) string { return "sha256:" + hex.EncodeToString(h.Sum(nil))[:16] }

// ModelInfo is the provenance of a trained model.
type ModelInfo struct {
	Hidden       []int     `json:"hidden"`
	Members      int       `json:"members"`
	Seed         uint64    `json:"seed"`
	LR           float64   `json:"lr"`            // Adam step at the start, decaying to a tenth (cosine)
	Epochs       int       `json:"epochs"`        // epochs run per member
	BestEpochs   []int     `json:"best_epochs"`   // per member, the epoch whose weights were kept (lowest validation loss)
	MemberLoss   []float64 `json:"member_losses"` // per member, its validation loss
	TrainSamples int       `json:"train_samples"` // after thinning
	ValSamples   int       `json:"val_samples"`
	ValLoss      float64   `json:"val_loss"`         // mean relative error of the ensemble on the validation set
	FlowSimLoss  float64   `json:"flowsim_val_loss"` // the same for flowSim alone
	Notes        string    `json:"notes,omitempty"`
	// Space is the configuration space of the training data; nil (models
	// trained before it was recorded) means DCTCPSpace.
	Space *Space `json:"space,omitempty"`
	// SpecNames are the network-spec entries the model reads, in order
	// (a subset of SpecNames); nil means LegacySpecNames.
	SpecNames []string `json:"spec_names,omitempty"`
}

// specIndex maps the model's spec entries to their places in SpecVector.
func (info ModelInfo) specIndex() ([]int, error) {
	names := info.SpecNames
	if names == nil {
		names = LegacySpecNames
	}
	idx := make([]int, len(names))
	for i, n := range names {
		if idx[i] = slices.Index(SpecNames, n); idx[i] < 0 {
			return nil, fmt.Errorf("m3: the model reads spec entry %q, which this tailscope does not compute", n)
		}
	}
	return idx, nil
}

// inputLen is the length of a sample's model input with spec entries.
func inputLen(spec int) int {
	in, out := metrics.M3Bins().Len(), metrics.M3OutputBins().Len()
	return 3*in*NumPercentiles + spec + out + out*NumPercentiles
}

// outputLen is the number of model outputs: output buckets x percentiles.
func outputLen() int { return metrics.M3OutputBins().Len() * NumPercentiles }

// input is the raw (unstandardised) model input of s with the spec
// entries at spec (indices into SpecVector).
func (s *Sample) input(spec []int) []float64 {
	x := make([]float64, 0, inputLen(len(spec)))
	for _, row := range s.FG {
		for _, v := range row {
			x = append(x, math.Log(v))
		}
	}
	nb := len(s.FG)
	mean := make([]float64, nb*NumPercentiles)
	mx := make([]float64, nb*NumPercentiles)
	for _, m := range s.BG {
		for b, row := range m {
			for p, v := range row {
				l := math.Log(v)
				mean[b*NumPercentiles+p] += l / float64(len(s.BG))
				mx[b*NumPercentiles+p] = max(mx[b*NumPercentiles+p], l)
			}
		}
	}
	x = append(x, mean...)
	x = append(x, mx...)
	for _, j := range spec {
		x = append(x, s.Spec[j])
	}
	for _, c := range s.Count {
		x = append(x, math.Log1p(float64(c)))
	}
	for _, row := range s.Base {
		for _, v := range row {
			x = append(x, math.Log(v))
		}
	}
	return x
}

// matrix stacks the standardised inputs of samples.
func (m *Model) matrix(samples []*Sample) *mat.Dense {
	n := inputLen(len(m.spec))
	x := mat.NewDense(len(samples), n, nil)
	for i, s := range samples {
		row := s.input(m.spec)
		for j, v := range row {
			x.Set(i, j, (v-m.mean[j])/m.std[j])
		}
	}
	return x
}

// Predict returns the model's foreground slowdown percentiles 1..100 per
// output bucket (M3OutputBins) for each sample.
func (m *Model) Predict(samples []*Sample) [][][]float64 {
	out := m.forward(m.matrix(samples))
	res := make([][][]float64, len(samples))
	for i, s := range samples {
		res[i] = correct(s.Base, out.RawRowView(i))
	}
	return res
}

// forward is the members' mean output (log corrections) for inputs x.
func (m *Model) forward(x *mat.Dense) *mat.Dense {
	sum, _ := m.nets[0].forward(x) // a fresh matrix: accumulate in place
	for _, n := range m.nets[1:] {
		out, _ := n.forward(x)
		sum.Add(sum, out)
	}
	sum.Scale(1/float64(len(m.nets)), sum)
	return sum
}

// correct applies log corrections c to base percentiles, keeping each row
// non-decreasing and at least 1 (percentiles of slowdowns).
func correct(base [][]float64, c []float64) [][]float64 {
	res := make([][]float64, len(base))
	for b, row := range base {
		res[b] = make([]float64, len(row))
		lo := 1.0
		for p, v := range row {
			lo = max(lo, v*math.Exp(c[b*len(row)+p]))
			res[b][p] = lo
		}
	}
	return res
}

// loss is the mean relative L1 error of outputs out (log corrections) over
// the usable entries of samples' targets, and its gradient.
func loss(out *mat.Dense, samples []*Sample) (float64, *mat.Dense) {
	rows, cols := out.Dims()
	grad := mat.NewDense(rows, cols, nil)
	var sum float64
	n := 0
	for i, s := range samples {
		for b, row := range s.Target {
			if s.TargetCount[b] < MinTargetFlows {
				continue
			}
			for p, t := range row {
				pred := s.Base[b][p] * math.Exp(out.At(i, b*NumPercentiles+p))
				sum += math.Abs(pred-t) / t
				n++
				sign := 1.0
				if pred < t {
					sign = -1
				}
				grad.Set(i, b*NumPercentiles+p, sign*pred/t)
			}
		}
	}
	if n == 0 {
		return 0, grad
	}
	grad.Scale(1/float64(n), grad)
	return sum / float64(n), grad
}

// TrainOptions tune Train.
type TrainOptions struct {
	Hidden  []int   // hidden layer widths (default 128, 128)
	Members int     // ensemble members (default 1)
	Epochs  int     // default 60
	Batch   int     // default 32
	LR      float64 // Adam step at the start, decaying to a tenth (default 1e-3)
	Decay   float64 // decoupled weight decay (default 1e-4)
	Seed    uint64  // initialisation and shuffling
	// Progress, when set, gets every member's every epoch.
	Progress progress.Reporter
}

// Train fits a model to train by Adam on the mean relative error. Each
// member starts from its own seed, steps with a cosine-decaying step size,
// is evaluated on val after every epoch, and keeps the weights of its best
// epoch. Members train in parallel; each is a deterministic function of
// the inputs, the options and its index (gonum's matrix products do not
// depend on scheduling), and so is the model.
func Train(train, val []*Sample, o TrainOptions) (*Model, error) {
	if len(train) == 0 || len(val) == 0 {
		return nil, fmt.Errorf("m3: training needs training and validation samples (got %d and %d)", len(train), len(val))
	}
	for _, s := range append(append([]*Sample(nil), train...), val...) {
		if s.Target == nil {
			return nil, fmt.Errorf("m3: a training sample has no packet-level target")
		}
	}
	if o.Hidden == nil {
		o.Hidden = []int{128, 128}
	}
	if o.Members == 0 {
		o.Members = 1
	}
	if o.Epochs == 0 {
		o.Epochs = 60
	}
	if o.Batch == 0 {
		o.Batch = 32
	}
	if o.LR == 0 {
		o.LR = 1e-3
	}
	if o.Decay == 0 {
		o.Decay = 1e-4
	}
	if o.Members < 0 || o.Epochs < 0 || o.Batch < 0 || o.LR < 0 {
		return nil, fmt.Errorf("m3: training options must not be negative: %+v", o)
	}
	// A new model reads the whole configuration and records the space
	// its training data spans.
	space := spanned(train)
	m := &Model{Info: ModelInfo{Hidden: o.Hidden, Members: o.Members, Seed: o.Seed, LR: o.LR, Epochs: o.Epochs,
		TrainSamples: len(train), ValSamples: len(val), SpecNames: slices.Clone(SpecNames), Space: &space}}
	var err error
	if m.spec, err = m.Info.specIndex(); err != nil {
		return nil, err
	}
	m.standardise(train)
	xTrain, xVal := m.matrix(train), m.matrix(val)
	m.Info.FlowSimLoss, _ = loss(mat.NewDense(len(val), outputLen(), nil), val)
	m.nets = make([]*mlp, o.Members)
	m.Info.BestEpochs, m.Info.MemberLoss = make([]int, o.Members), make([]float64, o.Members)
	var (
		mu     sync.Mutex
		epochs int
	)
	report := func(what string) {
		mu.Lock()
		defer mu.Unlock()
		epochs++
		progress.Report(o.Progress, epochs, o.Members*o.Epochs, what)
	}
	// Members do not fail, so the pool's error is nil.
	_ = pool.Run(context.Background(), o.Members, pool.Options{}, func(_ context.Context, k int) error {
		net, best, epoch := trainMember(k, xTrain, xVal, train, val, o, report)
		m.nets[k], m.Info.MemberLoss[k], m.Info.BestEpochs[k] = net, best, epoch
		return nil
	})
	for _, n := range m.nets {
		n.roundToFloat32()
	}
	m.Info.ValLoss, _ = loss(m.forward(xVal), val)
	return m, nil
}

// trainMember trains ensemble member k and returns its best weights, their
// validation loss and epoch. mu serialises progress lines.
func trainMember(k int, xTrain, xVal *mat.Dense, train, val []*Sample, o TrainOptions, report func(what string)) (*mlp, float64, int) {
	r := rand.New(rand.NewPCG(o.Seed, 0x7472+uint64(k))) // "tr"
	_, in := xTrain.Dims()
	net := newMLP(append(append([]int{in}, o.Hidden...), outputLen()), r, 0.01)
	opt := newAdam(net, o.LR, o.Decay)
	best, bestEpoch := math.Inf(1), 0
	var keep *mlp
	order := make([]int, len(train))
	for i := range order {
		order[i] = i
	}
	for e := 1; e <= o.Epochs; e++ {
		// Cosine decay from LR to LR/10 over the epochs.
		opt.lr = o.LR * (0.1 + 0.45*(1+math.Cos(math.Pi*float64(e-1)/float64(max(o.Epochs-1, 1)))))
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var sum float64
		for at := 0; at < len(order); at += o.Batch {
			idx := order[at:min(at+o.Batch, len(order))]
			x := mat.NewDense(len(idx), in, nil)
			batch := make([]*Sample, len(idx))
			for i, j := range idx {
				x.SetRow(i, xTrain.RawRowView(j))
				batch[i] = train[j]
			}
			out, tr := net.forward(x)
			l, g := loss(out, batch)
			sum += l * float64(len(idx))
			dW, dB := net.backward(tr, g)
			opt.step(net, dW, dB)
		}
		out, _ := net.forward(xVal)
		v, _ := loss(out, val)
		report(fmt.Sprintf("member %d epoch %d: train %.4f val %.4f", k, e, sum/float64(len(train)), v))
		if v < best {
			best, keep, bestEpoch = v, net.clone(), e
		}
	}
	return keep, best, bestEpoch
}

// standardise sets the input mean and standard deviation from samples;
// constant inputs get deviation 1.
func (m *Model) standardise(samples []*Sample) {
	n := inputLen(len(m.spec))
	m.mean, m.std = make([]float64, n), make([]float64, n)
	for _, s := range samples {
		for j, v := range s.input(m.spec) {
			m.mean[j] += v / float64(len(samples))
		}
	}
	for _, s := range samples {
		for j, v := range s.input(m.spec) {
			m.std[j] += (v - m.mean[j]) * (v - m.mean[j]) / float64(len(samples))
		}
	}
	for j, v := range m.std {
		m.std[j] = math.Sqrt(v)
		if m.std[j] < 1e-6 {
			m.std[j] = 1
		}
	}
	roundSlice(m.mean)
	roundSlice(m.std)
}

// clone copies the weights.
func (m *mlp) clone() *mlp {
	c := &mlp{}
	for l, w := range m.W {
		c.W = append(c.W, mat.DenseCopyOf(w))
		c.B = append(c.B, append([]float64(nil), m.B[l]...))
	}
	return c
}

// roundToFloat32 rounds every weight to float32, the precision the model
// file stores, so that a trained model and its saved copy agree exactly.
func (m *mlp) roundToFloat32() {
	for l, w := range m.W {
		roundSlice(w.RawMatrix().Data)
		roundSlice(m.B[l])
	}
}

func roundSlice(xs []float64) {
	for i, v := range xs {
		xs[i] = float64(float32(v))
	}
}

// modelMagic starts a model file.
const modelMagic = "tailscope-m3-model-v2\n"

// header is the JSON part of a model file.
type header struct {
	Dims    []int     `json:"dims"`
	Members int       `json:"members"`
	Info    ModelInfo `json:"info"`
}

// Save writes the model: a magic line, a length-prefixed JSON header
// (layer sizes, members, provenance), then little-endian float32 input
// means and deviations and, member by member, each layer's weights
// (row-major) and biases.
func (m *Model) Save(path string) (err error) {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("m3: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	w := bufio.NewWriter(f)
	h, err := json.Marshal(header{Dims: m.nets[0].dims(), Members: len(m.nets), Info: m.Info})
	if err != nil {
		return err
	}
	w.WriteString(modelMagic)
	binary.Write(w, binary.LittleEndian, uint32(len(h)))
	w.Write(h)
	put := func(xs []float64) {
		for _, v := range xs {
			binary.Write(w, binary.LittleEndian, float32(v))
		}
	}
	put(m.mean)
	put(m.std)
	for _, n := range m.nets {
		for l, wt := range n.W {
			put(wt.RawMatrix().Data)
			put(n.B[l])
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("m3: %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("m3: %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

// LoadModel reads a model Save wrote.
func LoadModel(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("m3: %w", err)
	}
	defer f.Close()
	m, err := ReadModel(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("m3: %s: %w", path, err)
	}
	return m, nil
}

// ReadModel reads a model in Save's format from r, to its end.
func ReadModel(r io.Reader) (*Model, error) {
	h := sha256.New()
	m, err := readModel(io.TeeReader(r, h))
	if err != nil {
		return nil, err
	}
	m.digest = digestOf(h)
	return m, nil
}

func readModel(r io.Reader) (*Model, error) {
	magic := make([]byte, len(modelMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != modelMagic {
		return nil, fmt.Errorf("not a tailscope m3 model file")
	}
	var n uint32
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil || n > 1<<20 {
		return nil, fmt.Errorf("bad model header length")
	}
	hb := make([]byte, n)
	if _, err := io.ReadFull(r, hb); err != nil {
		return nil, fmt.Errorf("truncated model header")
	}
	var h header
	if err := json.Unmarshal(hb, &h); err != nil {
		return nil, fmt.Errorf("model header: %w", err)
	}
	spec, err := h.Info.specIndex()
	if err != nil {
		return nil, err
	}
	if len(h.Dims) < 2 || h.Dims[0] != inputLen(len(spec)) || h.Dims[len(h.Dims)-1] != outputLen() {
		return nil, fmt.Errorf("model layer sizes %v do not fit %d inputs and %d outputs", h.Dims, inputLen(len(spec)), outputLen())
	}
	if h.Members < 1 || h.Members > 64 {
		return nil, fmt.Errorf("model has %d members; want 1 to 64", h.Members)
	}
	get := func(k int) ([]float64, error) {
		buf := make([]float32, k)
		if err := binary.Read(r, binary.LittleEndian, buf); err != nil {
			return nil, fmt.Errorf("truncated model weights")
		}
		out := make([]float64, k)
		for i, v := range buf {
			out[i] = float64(v)
		}
		return out, nil
	}
	m := &Model{Info: h.Info, spec: spec}
	if m.mean, err = get(h.Dims[0]); err != nil {
		return nil, err
	}
	if m.std, err = get(h.Dims[0]); err != nil {
		return nil, err
	}
	for range h.Members {
		n := &mlp{}
		for l := 0; l+1 < len(h.Dims); l++ {
			w, err := get(h.Dims[l] * h.Dims[l+1])
			if err != nil {
				return nil, err
			}
			b, err := get(h.Dims[l+1])
			if err != nil {
				return nil, err
			}
			n.W = append(n.W, mat.NewDense(h.Dims[l+1], h.Dims[l], w))
			n.B = append(n.B, b)
		}
		if err := n.check(); err != nil {
			return nil, err
		}
		m.nets = append(m.nets, n)
	}
	if _, err := r.Read(make([]byte, 1)); err != io.EOF {
		return nil, fmt.Errorf("trailing bytes after the model weights")
	}
	return m, nil
}

// DefaultModelFile is the trained model's path inside datasets.FS.
const DefaultModelFile = "models/m3.model"

// embedded are the trained models inside datasets.FS by name: "" the
// default, trained on rate-based DCTCP over infinite buffers, where it is
// most accurate; "table4-pfc" over m3 Table 4's CCs and parameters with
// shared switch buffers and PFC (issue 18), less accurate on the
// default's own configurations.
var embedded = map[string]string{
	"":           DefaultModelFile,
	"table4-pfc": "models/m3-table4pfc.model",
}

// EmbeddedModels lists the names of the embedded models other than the
// default, sorted.
func EmbeddedModels() []string {
	var names []string
	for n := range embedded {
		if n != "" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// DefaultModel returns the trained model embedded from datasets/models.
func DefaultModel() (*Model, error) { return EmbeddedModel("") }

// EmbeddedModel returns the embedded model of the given name ("" the
// default; EmbeddedModels lists the others).
func EmbeddedModel(name string) (*Model, error) {
	file, ok := embedded[name]
	if !ok {
		return nil, fmt.Errorf("m3: no embedded model %q (embedded: %s)", name, strings.Join(EmbeddedModels(), ", "))
	}
	f, err := datasets.FS.Open(file)
	if err != nil {
		return nil, fmt.Errorf("m3: embedded model: %w", err)
	}
	defer f.Close()
	m, err := ReadModel(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("m3: embedded model %s: %w", file, err)
	}
	return m, nil
}
