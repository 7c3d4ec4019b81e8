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
//
// With the per-hop encoder, each member's MLP reads a learned background
// context in place of the fixed mean and maximum (EncoderHops) or beside
// them (EncoderPoolHops).
type Model struct {
	nets      []*member
	mean, std []float64 // head input standardisation (without a learned context), from the training set
	// hopMean and hopStd standardise each hop's log background map
	// (encoder models).
	hopMean, hopStd []float64
	spec            []int // the spec entries read (Info.SpecNames), as SpecVector indices
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
	// WindowCap says the model corrects flowSim with flows capped at
	// their window (flowsim.Options.WindowCap), the base its training
	// samples had; Run simulates paths so for it.
	WindowCap bool `json:"flowsim_window_cap,omitempty"`
	// Space is the configuration space of the training data; nil (models
	// trained before it was recorded) means DCTCPSpace.
	Space *Space `json:"space,omitempty"`
	// SpecNames are the network-spec entries the model reads, in order
	// (a subset of SpecNames); nil means LegacySpecNames.
	SpecNames []string `json:"spec_names,omitempty"`
	// Encoder is how the per-hop background maps reach the MLP: ""
	// (EncoderPool), EncoderHops or EncoderPoolHops, the last two with
	// the encoder's hidden widths and its output, the context, Context
	// wide (mean and maximum over hops: twice that many MLP inputs).
	Encoder       string `json:"encoder,omitempty"`
	EncoderHidden []int  `json:"encoder_hidden,omitempty"`
	Context       int    `json:"context,omitempty"`
	// SpecRange holds, per entry of SpecNames, the smallest and largest
	// value among the training samples; nil for models trained before it
	// was recorded. Run counts the paths whose entries fall outside
	// (Model.Outside): there the correction is an extrapolation.
	SpecRange [][2]float64 `json:"spec_range,omitempty"`
	// SpecRangeCC holds the same ranges per congestion control, over that
	// CC's training samples; nil for models trained before it was
	// recorded. A CC's own parameters (HPCC's eta and rate AI, ...) keep
	// the other CCs' defaults in their samples, so only the CC's ranges
	// tell whether a path of that CC lies inside what the model saw.
	SpecRangeCC map[string][][2]float64 `json:"spec_range_cc,omitempty"`
	// TrainGroups and ValGroups count the networks whose pooled
	// prediction was fitted (TrainOptions.Groups), ValGroupLoss is the
	// ensemble's mean groupLoss on the validation networks and
	// FlowSimGroupLoss flowSim's.
	TrainGroups      int     `json:"train_networks,omitempty"`
	ValGroups        int     `json:"val_networks,omitempty"`
	ValGroupLoss     float64 `json:"val_network_loss,omitempty"`
	FlowSimGroupLoss float64 `json:"flowsim_val_network_loss,omitempty"`
}

// specRange is the smallest and largest value of each spec entry the
// model reads among the samples for which keep holds.
func (m *Model) specRange(samples []*Sample, keep func(*Sample) bool) [][2]float64 {
	rs := make([][2]float64, len(m.spec))
	for i, j := range m.spec {
		r := [2]float64{math.Inf(1), math.Inf(-1)}
		for _, x := range samples {
			if keep(x) {
				r[0], r[1] = min(r[0], x.Spec[j]), max(r[1], x.Spec[j])
			}
		}
		rs[i] = r
	}
	return rs
}

// Outside returns the spec entries of s that lie outside the range the
// model was trained on (ModelInfo.SpecRangeCC for s's congestion control,
// else ModelInfo.SpecRange, widened by 5% of its span on each side), nil
// when all lie inside or the model has no ranges.
func (m *Model) Outside(s *Sample) []string {
	var out []string
	for _, i := range m.outside(s.Spec, s.Network.CC) {
		out = append(out, m.Info.specNames()[i])
	}
	return out
}

// outside returns the positions, among the model's spec entries, of
// those of spec (a SpecNames vector) outside the training range for
// congestion control cc (Outside).
func (m *Model) outside(spec []float64, cc string) []int {
	var out []int
	for i, r := range m.ranges(cc) {
		tol := 0.05*(r[1]-r[0]) + 1e-9
		if v := spec[m.spec[i]]; v < r[0]-tol || v > r[1]+tol {
			out = append(out, i)
		}
	}
	return out
}

// ranges are the training ranges of the model's spec entries for
// congestion control cc: ModelInfo.SpecRangeCC's, else SpecRange (nil
// when the model records none).
func (m *Model) ranges(cc string) [][2]float64 {
	if r, ok := m.Info.SpecRangeCC[cc]; ok {
		return r
	}
	return m.Info.SpecRange
}

// specNames are the spec entries the model reads.
func (info ModelInfo) specNames() []string {
	if info.SpecNames == nil {
		return LegacySpecNames
	}
	return info.SpecNames
}

// specIndex maps the model's spec entries to their places in SpecVector.
func (info ModelInfo) specIndex() ([]int, error) {
	names := info.specNames()
	if info.SpecRange != nil && len(info.SpecRange) != len(names) {
		return nil, fmt.Errorf("m3: the model has %d spec ranges for %d spec entries", len(info.SpecRange), len(names))
	}
	for cc, r := range info.SpecRangeCC {
		if len(r) != len(names) {
			return nil, fmt.Errorf("m3: the model has %d spec ranges for congestion control %s, for %d spec entries", len(r), cc, len(names))
		}
	}
	idx := make([]int, len(names))
	for i, n := range names {
		if idx[i] = slices.Index(SpecNames, n); idx[i] < 0 {
			return nil, fmt.Errorf("m3: the model reads spec entry %q, which this tailscope does not compute", n)
		}
	}
	return idx, nil
}

// pooled reports whether the model reads the fixed pooling of the
// background maps.
func (info ModelInfo) pooled() bool { return info.Encoder == "" || info.Encoder == EncoderPoolHops }

// learned reports whether the model has a per-hop encoder.
func (info ModelInfo) learned() bool { return info.Context > 0 }

// inputLen is the length of a sample's standardised model input with spec
// entries, with or without the fixed pooling of the background maps.
func inputLen(spec int, pooled bool) int {
	in, out := metrics.M3Bins().Len(), metrics.M3OutputBins().Len()
	n := in*NumPercentiles + spec + out + out*NumPercentiles
	if pooled {
		n += 2 * in * NumPercentiles
	}
	return n
}

// headInputLen is the length of the MLP's input: the standardised input
// and, for an encoder model, the context's mean and maximum.
func (info ModelInfo) headInputLen(spec int) int {
	return inputLen(spec, info.pooled()) + 2*info.Context
}

// outputLen is the number of model outputs: output buckets x percentiles.
func outputLen() int { return metrics.M3OutputBins().Len() * NumPercentiles }

// input is the raw (unstandardised) model input of s with the spec
// entries at spec (indices into SpecVector), with the fixed pooling of the
// background maps if pooled.
func (s *Sample) input(spec []int, pooled bool) []float64 {
	x := make([]float64, 0, inputLen(len(spec), pooled))
	for _, row := range s.FG {
		for _, v := range row {
			x = append(x, math.Log(v))
		}
	}
	if pooled {
		x = s.appendPooled(x)
	}
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

// appendPooled appends the mean and then the maximum over hops of the log
// background maps to x.
func (s *Sample) appendPooled(x []float64) []float64 {
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
	return append(x, mx...)
}

// inputs stacks the standardised inputs of samples.
func (m *Model) inputs(samples []*Sample) *inputs {
	pooled := m.Info.pooled()
	x := mat.NewDense(len(samples), len(m.mean), nil)
	for i, s := range samples {
		row := s.input(m.spec, pooled)
		for j, v := range row {
			x.Set(i, j, (v-m.mean[j])/m.std[j])
		}
	}
	in := &inputs{x: x}
	if !m.Info.learned() {
		return in
	}
	in.at = make([]int, 1, len(samples)+1)
	for _, s := range samples {
		in.at = append(in.at, in.at[len(in.at)-1]+len(s.BG))
	}
	if total := in.at[len(samples)]; total > 0 {
		in.hops = mat.NewDense(total, len(m.hopMean), nil)
		k := 0
		for _, s := range samples {
			for _, bg := range s.BG {
				row := in.hops.RawRowView(k)
				for j, v := range logMap(bg) {
					row[j] = (v - m.hopMean[j]) / m.hopStd[j]
				}
				k++
			}
		}
	}
	return in
}

// logMap is a feature map's entries in log, row by row.
func logMap(m [][]float64) []float64 {
	var x []float64
	for _, row := range m {
		for _, v := range row {
			x = append(x, math.Log(v))
		}
	}
	return x
}

// Predict returns the model's foreground slowdown percentiles 1..100 per
// output bucket (M3OutputBins) for each sample.
func (m *Model) Predict(samples []*Sample) [][][]float64 {
	out := m.forward(m.inputs(samples))
	res := make([][][]float64, len(samples))
	for i, s := range samples {
		res[i] = correct(s.Base, out.RawRowView(i))
	}
	return res
}

// forward is the members' mean output (log corrections) for inputs x.
func (m *Model) forward(x *inputs) *mat.Dense {
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

// loss is the mean error of outputs out (log corrections) over the usable
// entries of samples' targets, and its gradient: the relative L1 error of
// each percentile of a target with at least MinTargetFlows flows, and the
// pinball loss of each percentile in log space against each flow of a
// flow-level target (Sample.TargetFlows), which is least where the
// percentile is the flows' conditional quantile.
func loss(out *mat.Dense, samples []*Sample) (float64, *mat.Dense) {
	rows, cols := out.Dims()
	grad := mat.NewDense(rows, cols, nil)
	var sum float64
	n := 0
	for i, s := range samples {
		if s.TargetFlows != nil {
			o, g := out.RawRowView(i), grad.RawRowView(i)
			for b, ys := range s.TargetFlows {
				for _, y := range ys {
					ly := math.Log(y)
					for p := range NumPercentiles {
						j := b*NumPercentiles + p
						d := ly - math.Log(s.Base[b][p]) - o[j] // log target over log prediction
						tau := pinballLevel(p)
						if d > 0 {
							sum += tau * d
							g[j] -= tau
						} else {
							sum -= (1 - tau) * d
							g[j] += 1 - tau
						}
						n++
					}
				}
			}
			continue
		}
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

// pinballLevel is the quantile level of output percentile index p
// (0..NumPercentiles-1): (p+1)/100, except that the maximum learns the
// 99.5th percentile, since the loss of the 100th would only ever push it
// up.
func pinballLevel(p int) float64 {
	return min(float64(p+1), NumPercentiles-0.5) / NumPercentiles
}

// TrainOptions tune Train.
type TrainOptions struct {
	Hidden []int // hidden layer widths (default 128, 128)
	// Encoder is EncoderPool (or "", the default), EncoderHops or
	// EncoderPoolHops, the last two with the encoder's hidden widths
	// (default 64) and its output width Context (default 32).
	Encoder       string
	EncoderHidden []int
	Context       int
	Members       int     // ensemble members (default 1)
	Epochs        int     // default 60
	Batch         int     // default 32
	LR            float64 // Adam step at the start, decaying to a tenth (default 1e-3)
	Decay         float64 // decoupled weight decay (default 1e-4)
	Seed          uint64  // initialisation and shuffling
	// SpecNames are the spec entries the model reads (default all of
	// SpecNames): a model trained on tasks of one foreground share, say,
	// can leave out the entry it would only extrapolate along.
	SpecNames []string
	// Groups, when set, are networks whose pooled prediction is fitted
	// besides the samples (groupLoss): one step per group, spread evenly
	// among each epoch's batches. ValGroups then join the validation loss
	// (its sum with the samples').
	Groups, ValGroups []*Group
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
	if (len(train) == 0 || len(val) == 0) && len(o.Groups)+len(o.ValGroups) > 0 {
		return nil, fmt.Errorf("m3: networks are learned beside parking-lot samples, and the data set has %d training and %d validation samples (add a data set of tailscope m3 gendata's parking lots)", len(train), len(val))
	}
	if len(train) == 0 || len(val) == 0 {
		return nil, fmt.Errorf("m3: training needs training and validation samples (got %d and %d)", len(train), len(val))
	}
	all := append(append([]*Sample(nil), train...), val...)
	for _, s := range all {
		if s.Target == nil {
			return nil, fmt.Errorf("m3: a training sample has no packet-level target")
		}
	}
	// A group's paths learn through their pooled prediction alone.
	for _, g := range append(slices.Clone(o.Groups), o.ValGroups...) {
		all = append(all, g.Samples...)
	}
	for _, s := range all {
		if s.WindowCap != train[0].WindowCap {
			return nil, fmt.Errorf("m3: training samples mix flowSim bases, with and without the window cap (load every data set with the same base)")
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
	if o.Members < 0 || o.Epochs < 0 || o.Batch < 0 || o.LR < 0 || o.Context < 0 {
		return nil, fmt.Errorf("m3: training options must not be negative: %+v", o)
	}
	// A new model reads the whole configuration unless told otherwise,
	// and records the space its training data spans.
	names := slices.Clone(SpecNames)
	if o.SpecNames != nil {
		names = slices.Clone(o.SpecNames)
		for i, n := range names {
			if slices.Contains(names[:i], n) {
				return nil, fmt.Errorf("m3: spec entry %q named twice", n)
			}
		}
	}
	space := spanned(train)
	m := &Model{Info: ModelInfo{Hidden: o.Hidden, Members: o.Members, Seed: o.Seed, LR: o.LR, Epochs: o.Epochs,
		TrainSamples: len(train), ValSamples: len(val), SpecNames: names, Space: &space, WindowCap: train[0].WindowCap}}
	var encDims []int
	switch o.Encoder {
	case "", EncoderPool:
		if o.EncoderHidden != nil || o.Context != 0 {
			return nil, fmt.Errorf("m3: encoder widths %v and context %d need encoder %q", o.EncoderHidden, o.Context, EncoderHops)
		}
	case EncoderHops, EncoderPoolHops:
		if o.EncoderHidden == nil {
			o.EncoderHidden = []int{64}
		}
		if o.Context == 0 {
			o.Context = 32
		}
		m.Info.Encoder, m.Info.EncoderHidden, m.Info.Context = o.Encoder, o.EncoderHidden, o.Context
		encDims = append(append([]int{hopInputLen()}, o.EncoderHidden...), o.Context)
	default:
		return nil, fmt.Errorf("m3: unknown encoder %q (known: %s, %s, %s)", o.Encoder, EncoderPool, EncoderHops, EncoderPoolHops)
	}
	var err error
	if m.spec, err = m.Info.specIndex(); err != nil {
		return nil, err
	}
	m.Info.SpecRange = m.specRange(train, func(*Sample) bool { return true })
	m.Info.SpecRangeCC = map[string][][2]float64{}
	for _, cc := range space.CCs {
		m.Info.SpecRangeCC[cc] = m.specRange(train, func(x *Sample) bool { return x.Network.CC == cc })
	}
	for _, g := range append(slices.Clone(o.Groups), o.ValGroups...) {
		if err := g.check(); err != nil {
			return nil, err
		}
	}
	if len(o.Groups) > 0 != (len(o.ValGroups) > 0) {
		return nil, fmt.Errorf("m3: %d training and %d validation network groups: want both or neither", len(o.Groups), len(o.ValGroups))
	}
	m.Info.TrainGroups, m.Info.ValGroups = len(o.Groups), len(o.ValGroups)
	m.standardise(train)
	xTrain, xVal := m.inputs(train), m.inputs(val)
	xGroups, xValGroups := m.groupInputs(o.Groups), m.groupInputs(o.ValGroups)
	m.Info.FlowSimLoss, _ = loss(mat.NewDense(len(val), outputLen(), nil), val)
	for _, g := range o.ValGroups {
		l, _ := groupLoss(mat.NewDense(len(g.Samples), outputLen(), nil), g)
		m.Info.FlowSimGroupLoss += l / float64(len(o.ValGroups))
	}
	m.nets = make([]*member, o.Members)
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
		net, best, epoch := trainMember(k, xTrain, xVal, train, val, xGroups, xValGroups, o, encDims, report)
		m.nets[k], m.Info.MemberLoss[k], m.Info.BestEpochs[k] = net, best, epoch
		return nil
	})
	for _, n := range m.nets {
		n.roundToFloat32()
	}
	m.Info.ValLoss, _ = loss(m.forward(xVal), val)
	if len(o.ValGroups) > 0 {
		m.Info.ValGroupLoss = m.meanGroupLoss(o.ValGroups, xValGroups)
	}
	return m, nil
}

// groupInputs stacks each group's inputs.
func (m *Model) groupInputs(groups []*Group) []*inputs {
	x := make([]*inputs, len(groups))
	for i, g := range groups {
		x[i] = m.inputs(g.Samples)
	}
	return x
}

// meanGroupLoss is the model's mean groupLoss over groups.
func (m *Model) meanGroupLoss(groups []*Group, x []*inputs) float64 {
	var sum float64
	for i, g := range groups {
		l, _ := groupLoss(m.forward(x[i]), g)
		sum += l
	}
	return sum / float64(len(groups))
}

// trainMember trains ensemble member k, with an encoder of layer sizes
// encDims unless nil, and returns its best weights, their validation loss
// and epoch.
func trainMember(k int, xTrain, xVal *inputs, train, val []*Sample, xGroups, xValGroups []*inputs, o TrainOptions, encDims []int, report func(what string)) (*member, float64, int) {
	r := rand.New(rand.NewPCG(o.Seed, 0x7472+uint64(k))) // "tr"
	_, in := xTrain.x.Dims()
	if encDims != nil {
		in += 2 * encDims[len(encDims)-1]
	}
	net := &member{head: newMLP(append(append([]int{in}, o.Hidden...), outputLen()), r, 0.01)}
	if encDims != nil {
		// Full-scale outputs: the context is read by the head, not a correction.
		net.enc = newMLP(encDims, r, 1)
	}
	opt := newMemberAdam(net, o.LR, o.Decay)
	best, bestEpoch := math.Inf(1), 0
	var keep *member
	order := make([]int, len(train))
	for i := range order {
		order[i] = i
	}
	// Groups take their own stream, so that training without them draws
	// as before.
	rg := rand.New(rand.NewPCG(o.Seed, 0x6772+uint64(k))) // "gr"
	groups := make([]int, len(xGroups))
	for i := range groups {
		groups[i] = i
	}
	batches := (len(order) + o.Batch - 1) / o.Batch
	groupStep := func(i int) float64 {
		out, tr := net.forward(xGroups[i])
		l, g := groupLoss(out, o.Groups[i])
		opt.step(net, net.backward(tr, g))
		return l
	}
	for e := 1; e <= o.Epochs; e++ {
		// Cosine decay from LR to LR/10 over the epochs.
		opt.setLR(o.LR * (0.1 + 0.45*(1+math.Cos(math.Pi*float64(e-1)/float64(max(o.Epochs-1, 1))))))
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		rg.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
		var sum, gsum float64
		next := 0 // groups stepped so far
		for at := 0; at < len(order); at += o.Batch {
			idx := order[at:min(at+o.Batch, len(order))]
			batch := make([]*Sample, len(idx))
			for i, j := range idx {
				batch[i] = train[j]
			}
			out, tr := net.forward(xTrain.rows(idx))
			l, g := loss(out, batch)
			sum += l * float64(len(idx))
			opt.step(net, net.backward(tr, g))
			for done := at/o.Batch + 1; next < len(groups) && next*batches < done*len(groups); next++ {
				gsum += groupStep(groups[next])
			}
		}
		out, _ := net.forward(xVal)
		v, _ := loss(out, val)
		what := fmt.Sprintf("member %d epoch %d: train %.4f val %.4f", k, e, sum/float64(len(train)), v)
		if len(xValGroups) > 0 {
			var vg float64
			for i, x := range xValGroups {
				out, _ := net.forward(x)
				l, _ := groupLoss(out, o.ValGroups[i])
				vg += l
			}
			vg /= float64(len(xValGroups))
			what += fmt.Sprintf(", networks train %.4f val %.4f", gsum/float64(max(len(groups), 1)), vg)
			v += vg
		}
		report(what)
		if v < best {
			best, keep, bestEpoch = v, net.clone(), e
		}
	}
	return keep, best, bestEpoch
}

// standardise sets the input mean and standard deviation from samples
// and, for an encoder model, those of the hops' log background maps;
// constant inputs get deviation 1.
func (m *Model) standardise(samples []*Sample) {
	pooled := m.Info.pooled()
	var rows [][]float64
	for _, s := range samples {
		rows = append(rows, s.input(m.spec, pooled))
	}
	m.mean, m.std = meanStd(rows)
	if !m.Info.learned() {
		return
	}
	rows = rows[:0]
	for _, s := range samples {
		for _, bg := range s.BG {
			rows = append(rows, logMap(bg))
		}
	}
	m.hopMean, m.hopStd = meanStd(rows)
}

// meanStd returns the mean and standard deviation of each column of rows,
// rounded to float32 (the model file's precision); constant columns get
// deviation 1.
func meanStd(rows [][]float64) (mean, std []float64) {
	n := len(rows[0])
	mean, std = make([]float64, n), make([]float64, n)
	for _, x := range rows {
		for j, v := range x {
			mean[j] += v / float64(len(rows))
		}
	}
	for _, x := range rows {
		for j, v := range x {
			std[j] += (v - mean[j]) * (v - mean[j]) / float64(len(rows))
		}
	}
	for j, v := range std {
		std[j] = math.Sqrt(v)
		if std[j] < 1e-6 {
			std[j] = 1
		}
	}
	roundSlice(mean)
	roundSlice(std)
	return mean, std
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

// modelMagic starts a model file with the fixed pooling, encoderMagic
// one with the per-hop encoder (which older readers then refuse as not
// theirs).
const (
	modelMagic   = "tailscope-m3-model-v2\n"
	encoderMagic = "tailscope-m3-model-v3\n"
)

// header is the JSON part of a model file.
type header struct {
	Dims        []int     `json:"dims"`
	EncoderDims []int     `json:"encoder_dims,omitempty"`
	Members     int       `json:"members"`
	Info        ModelInfo `json:"info"`
}

// Save writes the model: a magic line, a length-prefixed JSON header
// (layer sizes, members, provenance), then little-endian float32 input
// means and deviations (for an encoder model, then the hop maps' too) and,
// member by member, each layer's weights (row-major) and biases, the
// encoder's layers before the MLP's.
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
	hd, magic := header{Dims: m.nets[0].head.dims(), Members: len(m.nets), Info: m.Info}, modelMagic
	if enc := m.nets[0].enc; enc != nil {
		hd.EncoderDims, magic = enc.dims(), encoderMagic
	}
	h, err := json.Marshal(hd)
	if err != nil {
		return err
	}
	w.WriteString(magic)
	binary.Write(w, binary.LittleEndian, uint32(len(h)))
	w.Write(h)
	put := func(xs []float64) {
		for _, v := range xs {
			binary.Write(w, binary.LittleEndian, float32(v))
		}
	}
	put(m.mean)
	put(m.std)
	put(m.hopMean)
	put(m.hopStd)
	putNet := func(n *mlp) {
		for l, wt := range n.W {
			put(wt.RawMatrix().Data)
			put(n.B[l])
		}
	}
	for _, n := range m.nets {
		if n.enc != nil {
			putNet(n.enc)
		}
		putNet(n.head)
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
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != modelMagic && string(magic) != encoderMagic {
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
	if err := checkEncoder(h.Info, h.EncoderDims); err != nil {
		return nil, err
	}
	if (string(magic) == encoderMagic) != h.Info.learned() {
		return nil, fmt.Errorf("model file version %q does not match its encoder %q", strings.TrimSpace(string(magic)), h.Info.Encoder)
	}
	if in := h.Info.headInputLen(len(spec)); len(h.Dims) < 2 || h.Dims[0] != in || h.Dims[len(h.Dims)-1] != outputLen() {
		return nil, fmt.Errorf("model layer sizes %v do not fit %d inputs and %d outputs", h.Dims, in, outputLen())
	}
	if h.Members < 1 || h.Members > 64 {
		return nil, fmt.Errorf("model has %d members; want 1 to 64", h.Members)
	}
	get := func(k int) ([]float64, error) {
		// A corrupt header's layer sizes must not allocate beyond the
		// machine: no layer of a model this package trains nears 2^26.
		if k < 0 || k > 1<<26 {
			return nil, fmt.Errorf("model layer of %d weights", k)
		}
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
	for _, v := range []*[]float64{&m.mean, &m.std} {
		if *v, err = get(inputLen(len(spec), h.Info.pooled())); err != nil {
			return nil, err
		}
	}
	if h.EncoderDims != nil {
		for _, v := range []*[]float64{&m.hopMean, &m.hopStd} {
			if *v, err = get(hopInputLen()); err != nil {
				return nil, err
			}
		}
	}
	getNet := func(dims []int) (*mlp, error) {
		n := &mlp{}
		for l := 0; l+1 < len(dims); l++ {
			w, err := get(dims[l] * dims[l+1])
			if err != nil {
				return nil, err
			}
			b, err := get(dims[l+1])
			if err != nil {
				return nil, err
			}
			n.W = append(n.W, mat.NewDense(dims[l+1], dims[l], w))
			n.B = append(n.B, b)
		}
		return n, n.check()
	}
	for range h.Members {
		mb := &member{}
		if h.EncoderDims != nil {
			if mb.enc, err = getNet(h.EncoderDims); err != nil {
				return nil, err
			}
		}
		if mb.head, err = getNet(h.Dims); err != nil {
			return nil, err
		}
		m.nets = append(m.nets, mb)
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
// shared switch buffers and PFC, less accurate on the
// default's own configurations; "table4-fork" over the same space with
// DCQCN, TIMELY and HPCC under the HPCC ns-3 fork's rules (the fork-*
// presets), which the other two refuse; "presets" over table4-pfc's
// space with parameter ranges that also hold the plain dcqcn, hpcc and
// timely presets (the presets space: PresetsNetwork); "presets-fork" over
// the same under the fork's rules, holding the fork-* presets.
var embedded = map[string]string{
	"":             DefaultModelFile,
	"table4-pfc":   "models/m3-table4pfc.model",
	"table4-fork":  "models/m3-table4fork.model",
	"presets":      "models/m3-presets.model",
	"presets-fork": "models/m3-presets-fork.model",
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
