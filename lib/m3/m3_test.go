package m3

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/tailscope/tailscope/datasets"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// dumbbell: senders 0, 1; receivers 2, 3; left switch 4, right switch 5.
// Links: 0 = 0-4, 1 = 1-4, 2 = 2-5, 3 = 3-5, 4 = 4-5 (the builder's order,
// checked below through channel endpoints rather than assumed).
func dumbbell(t *testing.T) *topo.Network {
	t.Helper()
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 2, BottleneckBandwidth: 40 * topo.Gbps})
	if err != nil {
		t.Fatal(err)
	}
	return net
}

func handFlows() []workload.Flow {
	return []workload.Flow{
		{ID: 0, Src: 0, Dst: 2, Size: 5000, Start: 0},
		{ID: 1, Src: 1, Dst: 2, Size: 800, Start: 100},
		{ID: 2, Src: 0, Dst: 3, Size: 20000, Start: 200},
		{ID: 3, Src: 0, Dst: 2, Size: 300, Start: 300},
		{ID: 4, Src: 1, Dst: 3, Size: 70000, Start: 400},
	}
}

func TestDecomposeHandCase(t *testing.T) {
	net := dumbbell(t)
	flows := handFlows()
	d, err := Decompose(net, flows)
	if err != nil {
		t.Fatal(err)
	}
	// Routes 0->2, 1->2, 0->3, 1->3 are distinct: four paths, numbered by
	// first flow; flows 0 and 3 share path 0 (Eq. 1).
	var flowPath []int
	for i := range flows {
		flowPath = append(flowPath, d.FlowPath(i))
	}
	if d.NumPaths() != 4 || !reflect.DeepEqual(d.Foreground(0), []int32{0, 3}) || !reflect.DeepEqual(flowPath, []int{0, 1, 2, 0, 3}) {
		t.Fatalf("%d paths, path 0 flows %v, flow paths %v", d.NumPaths(), d.Foreground(0), flowPath)
	}
	if h := len(d.Channels(0)); h != 3 {
		t.Fatalf("path 0 has %d hops, want 3 (NIC, bottleneck, receiver link)", h)
	}
	// Eq. 2 on path 0 (0 -> L -> R -> 2): flow 1 shares the bottleneck
	// and the receiver link (hops 1-2), flow 2 the NIC and the bottleneck
	// (hops 0-1), flow 4 only the bottleneck (hop 1).
	want := []BackgroundFlow{{Flow: 1, First: 1, Last: 2}, {Flow: 2, First: 0, Last: 1}, {Flow: 4, First: 1, Last: 1}}
	if got := d.Background(0); !reflect.DeepEqual(got, want) {
		t.Errorf("background of path 0 = %+v, want %+v", got, want)
	}
	// Path 3 (1 -> 3) shares only the bottleneck with flows 0, 3 and the
	// NIC of host 1 with flow 1, the receiver link of 3 with flow 2.
	want = []BackgroundFlow{{0, 1, 1}, {1, 0, 1}, {2, 1, 2}, {3, 1, 1}}
	if got := d.Background(3); !reflect.DeepEqual(got, want) {
		t.Errorf("background of path 3 = %+v, want %+v", got, want)
	}
}

func TestSampleWeights(t *testing.T) {
	net := dumbbell(t)
	// 3 flows on 0->2, 1 on 1->2, 2 on 1->3: weights 3:1:2.
	var flows []workload.Flow
	for i, p := range [][2]int{{0, 2}, {1, 2}, {0, 2}, {1, 3}, {0, 2}, {1, 3}} {
		flows = append(flows, workload.Flow{ID: i, Src: p[0], Dst: p[1], Size: 1000, Start: int64(i)})
	}
	d, err := Decompose(net, flows)
	if err != nil {
		t.Fatal(err)
	}
	const n = 60000
	counts, err := d.Sample(n, 7)
	if err != nil {
		t.Fatal(err)
	}
	chi2 := 0.0
	for p, w := range []float64{3, 1, 2} {
		e := n * w / 6
		chi2 += (float64(counts[p]) - e) * (float64(counts[p]) - e) / e
	}
	if chi2 > 13.8 { // df 2, p = 0.001
		t.Errorf("draws %v far from 3:1:2 (chi2 %.1f)", counts, chi2)
	}
	again, _ := d.Sample(n, 7)
	if !reflect.DeepEqual(again, counts) {
		t.Error("sampling with the same seed differs")
	}
	if _, err := d.Sample(0, 1); err == nil {
		t.Error("zero samples: no error")
	}
}

func TestPathSimConstruction(t *testing.T) {
	net := dumbbell(t)
	flows := handFlows()
	d, err := Decompose(net, flows)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := d.PathSim(net, flows, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	if sim.Hops() != 3 || !reflect.DeepEqual(sim.Spec.Bandwidths, []int64{10 * topo.Gbps, 40 * topo.Gbps, 10 * topo.Gbps}) {
		t.Fatalf("parking lot %+v", sim.Spec)
	}
	// Every flow of the path in start order, with its span.
	if !reflect.DeepEqual(sim.Orig, []int{0, 1, 2, 3, 4}) {
		t.Fatalf("flows %v", sim.Orig)
	}
	wantSpan := [][2]int{{0, 2}, {1, 2}, {0, 1}, {0, 2}, {1, 1}}
	wantFG := []bool{true, false, false, true, false}
	for i, f := range sim.Flows {
		if sim.Foreground[i] != wantFG[i] || sim.First[i] != wantSpan[i][0] || sim.Last[i] != wantSpan[i][1] {
			t.Errorf("flow %d: fg %v span %d-%d, want %v %v", i, sim.Foreground[i], sim.First[i], sim.Last[i], wantFG[i], wantSpan[i])
		}
		// Routed in the parking lot, the flow crosses exactly chain hops
		// First..Last (hop h is channel 2h) plus its attachment links.
		route, err := sim.Net.Path(f.ID, f.Src, f.Dst)
		if err != nil {
			t.Fatal(err)
		}
		var hops []int
		for _, c := range route {
			if c < 2*sim.Hops() && c%2 == 0 {
				hops = append(hops, c/2)
			}
		}
		var want []int
		for h := wantSpan[i][0]; h <= wantSpan[i][1]; h++ {
			want = append(want, h)
		}
		if !reflect.DeepEqual(hops, want) {
			t.Errorf("flow %d crosses chain hops %v, want %v", i, hops, want)
		}
		if f.Size != flows[sim.Orig[i]].Size || f.Start != flows[sim.Orig[i]].Start {
			t.Errorf("flow %d changed: %+v", i, f)
		}
	}
	// Background hosts hang off the switches at the host NIC rate.
	for _, l := range sim.Net.Links[sim.Hops():] {
		if l.Bandwidth != 10*topo.Gbps {
			t.Errorf("background link %+v not at the 10 Gbps source capacity", l)
		}
	}
}

// TestPathSimKeepsRoundTrips checks that every flow of a fabric path's
// parking lot crosses links of the same total propagation delay as its
// real route: background flows joining or leaving the path attach through
// links with their off-path delay (on the fabric, 1-4 links of 1 us).
func TestPathSimKeepsRoundTrips(t *testing.T) {
	fs, err := topo.Preset("meta32-2:1")
	if err != nil {
		t.Fatal(err)
	}
	net, err := topo.Fabric(fs)
	if err != nil {
		t.Fatal(err)
	}
	flows, err := workload.Generate(net, workload.Spec{Flows: 3000, Components: []workload.Component{{
		Matrix: "B", Sizes: workload.SizeSpec{Dist: "webserver"}, Arrival: workload.Arrival{Sigma: 1}, MaxLoad: 0.3,
	}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Decompose(net, flows)
	if err != nil {
		t.Fatal(err)
	}
	delay := func(n *topo.Network, route []int) (sum int64) {
		for _, c := range route {
			sum += n.Channels[c].Delay
		}
		return sum
	}
	sizes := map[int]bool{}
	for p := 0; p < d.NumPaths() && len(sizes) < 3; p++ {
		h := len(d.Channels(p))
		if sizes[h] {
			continue
		}
		sizes[h] = true
		sim, err := d.PathSim(net, flows, p, 0)
		if err != nil {
			t.Fatal(err)
		}
		groups := map[int64]bool{}
		for i, f := range sim.Flows {
			route, err := sim.Net.Path(f.ID, f.Src, f.Dst)
			if err != nil {
				t.Fatal(err)
			}
			var real []int
			for _, c := range d.Route(sim.Orig[i]) {
				real = append(real, int(c))
			}
			got, want := delay(sim.Net, route), delay(net, real)
			if got != want {
				t.Errorf("%d-hop path %d, flow %d (hops %d-%d): parking-lot delay %d ns, real route %d ns", h, p, sim.Orig[i], sim.First[i], sim.Last[i], got, want)
			}
			groups[want] = true
		}
		if h == 6 && len(groups) < 2 {
			t.Errorf("6-hop path %d: all %d flows have one route length; the test needs variety", p, len(sim.Flows))
		}
	}
	if len(sizes) != 3 {
		t.Errorf("found paths of %d lengths, want 2, 4 and 6 hops", len(sizes))
	}
}

func TestTaskBuild(t *testing.T) {
	task := RandomTask(3, 5, 400)
	sim, err := task.Build()
	if err != nil {
		t.Fatal(err)
	}
	fg := 0
	for i, f := range sim.Flows {
		if sim.Foreground[i] {
			fg++
			if sim.First[i] != 0 || sim.Last[i] != task.Hops-1 {
				t.Errorf("foreground flow %+v spans %d-%d", f, sim.First[i], sim.Last[i])
			}
		}
		// Every flow crosses its recorded chain hops and, off the chain,
		// links whose delays make up the foreground's: Hops x 1 us.
		route, err := sim.Net.Path(f.ID, f.Src, f.Dst)
		if err != nil {
			t.Fatal(err)
		}
		var delay int64
		var hops []int
		for _, c := range route {
			delay += sim.Net.Channels[c].Delay
			if c < 2*task.Hops {
				hops = append(hops, c/2)
			}
		}
		if delay != int64(task.Hops)*topo.Microsecond || hops[0] != sim.First[i] || hops[len(hops)-1] != sim.Last[i] || len(hops) != sim.Last[i]-sim.First[i]+1 {
			t.Errorf("flow %+v (hops %d-%d): route %v, chain hops %v, delay %d ns", f, sim.First[i], sim.Last[i], route, hops, delay)
		}
	}
	// Foreground share is drawn in [0.2, 0.5]; 400 flows keep it close.
	if share := float64(fg) / 400; math.Abs(share-task.ForegroundShare) > 0.1 {
		t.Errorf("foreground share %.2f, task asks %.2f", share, task.ForegroundShare)
	}
	if !reflect.DeepEqual(RandomTask(3, 5, 400), task) {
		t.Error("RandomTask is not a function of (seed, index)")
	}
	bad := task
	bad.ForegroundShare = 1
	if _, err := bad.Build(); err == nil {
		t.Error("foreground share 1: no error")
	}
}

// TestTaskInnerWeight checks that InnerWeight w draws the background
// segments touching neither end hop w times as often: on 6 hops, 10 of
// the 20 background segments are inner, so a share w/(w+1) of the
// background flows, while the foreground keeps its share; and that the
// default leaves the task's JSON (its frame's options) as it was.
func TestTaskInnerWeight(t *testing.T) {
	for _, c := range []struct {
		weight    int
		wantInner float64
	}{{0, 0.5}, {1, 0.5}, {8, 8.0 / 9}} {
		task := RandomTask(3, 5, 4000)
		task.Hops, task.Bandwidths = 6, fabricChain(6)
		task.InnerWeight = c.weight
		sim, err := task.Build()
		if err != nil {
			t.Fatal(err)
		}
		var fg, bg, inner int
		for i := range sim.Flows {
			switch {
			case sim.Foreground[i]:
				fg++
			case sim.First[i] > 0 && sim.Last[i] < task.Hops-1:
				bg++
				inner++
			default:
				bg++
			}
		}
		// Binomial standard deviations are under 0.01 at these counts.
		if got := float64(inner) / float64(bg); math.Abs(got-c.wantInner) > 0.04 {
			t.Errorf("weight %d: inner share of background flows %.3f, want %.3f", c.weight, got, c.wantInner)
		}
		if share := float64(fg) / float64(len(sim.Flows)); math.Abs(share-task.ForegroundShare) > 0.04 {
			t.Errorf("weight %d: foreground share %.3f, task asks %.3f", c.weight, share, task.ForegroundShare)
		}
	}
	js, err := json.Marshal(RandomTask(3, 5, 4000))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(js), "inner_weight") {
		t.Errorf("a default task's JSON names inner_weight: %s", js)
	}
	bad := RandomTask(3, 5, 400)
	bad.InnerWeight = -1
	if _, err := bad.Build(); err == nil {
		t.Error("inner weight -1: no error")
	}
}

func TestFeatureMapHandCase(t *testing.T) {
	m := FeatureMap([]int64{100, 200, 3000}, []float64{1, 3, 2}, metrics.M3Bins())
	if len(m) != 10 || len(m[0]) != 100 {
		t.Fatalf("map is %dx%d, want 10x100", len(m), len(m[0]))
	}
	// Bin 0 (<= 250 B) holds slowdowns 1 and 3: type-7 percentile p is
	// 1 + 2p/100. Bin 5 (2-5 KB) holds 2. The rest is empty: 1.
	for p := 1; p <= 100; p++ {
		if got, want := m[0][p-1], 1+2*float64(p)/100; math.Abs(got-want) > 1e-12 {
			t.Errorf("bin 0 p%d = %g, want %g", p, got, want)
		}
		if m[5][p-1] != 2 || m[3][p-1] != 1 {
			t.Errorf("p%d: bin 5 %g (want 2), bin 3 %g (want 1)", p, m[5][p-1], m[3][p-1])
		}
	}
}

func TestSpecVectorHandCase(t *testing.T) {
	cfg := netcfg.Default()
	v := SpecVector([]int64{10 * topo.Gbps}, []int64{1000}, cfg)
	// RTT = 2 x 1000 ns + (1000+48+60) B x 8 / 10 Gbps = 2886.4 ns;
	// BDP = 10 Gbps x 2886.4 ns / 8 = 3608 B; K = 30 KB, window 18 KB.
	bdp := 3608.0
	want := []float64{1.0 / 6, bdp / 1e5, 1, 0, 18000 / bdp, 30000 / bdp, 30000 / bdp, 1, 0, 1.0 / 16, 0.615, 0.1}
	if len(v) != len(NetworkSpecNames) {
		t.Fatalf("%d entries, %d names", len(v), len(NetworkSpecNames))
	}
	for i := range want {
		if math.Abs(v[i]-want[i]) > 1e-9 {
			t.Errorf("%s = %g, want %g", SpecNames[i], v[i], want[i])
		}
	}
}

func TestMLPGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	m := newMLP([]int{5, 4, 3, 2}, r, 1)
	x := mat.NewDense(3, 5, nil)
	for i := range 3 {
		for j := range 5 {
			x.Set(i, j, r.NormFloat64())
		}
	}
	// L = sum of out^2 / 2, so dL/dout = out.
	lossOf := func() float64 {
		out, _ := m.forward(x)
		return 0.5 * mat.Sum(mulElem(out, out))
	}
	out, tr := m.forward(x)
	dW, dB, dX := m.backward(tr, mat.DenseCopyOf(out), true)
	checkGradient(t, "input", x.RawMatrix().Data, dX.RawMatrix().Data, lossOf)
	for l := range m.W {
		checkGradient(t, fmt.Sprintf("layer %d weight", l), m.W[l].RawMatrix().Data, dW[l].RawMatrix().Data, lossOf)
		checkGradient(t, fmt.Sprintf("layer %d bias", l), m.B[l], dB[l], lossOf)
	}
}

// checkGradient compares grad, the backpropagated gradient of lossOf
// with respect to the parameters p, with central finite differences.
func checkGradient(t *testing.T, what string, p, grad []float64, lossOf func() float64) {
	t.Helper()
	const h = 1e-6
	for i := range p {
		old := p[i]
		p[i] = old + h
		up := lossOf()
		p[i] = old - h
		down := lossOf()
		p[i] = old
		if num := (up - down) / (2 * h); math.Abs(num-grad[i]) > 1e-5*max(1, math.Abs(num)) {
			t.Errorf("%s %d: backprop %g, finite difference %g", what, i, grad[i], num)
		}
	}
}

func mulElem(a, b *mat.Dense) *mat.Dense {
	var c mat.Dense
	c.MulElem(a, b)
	return &c
}

func TestRelativeLossGradient(t *testing.T) {
	s := synthSample(rand.New(rand.NewPCG(4, 4)), 1.5)
	r := rand.New(rand.NewPCG(5, 5))
	out := mat.NewDense(1, outputLen(), nil)
	for j := range outputLen() {
		out.Set(0, j, 0.3*r.NormFloat64())
	}
	_, g := loss(out, []*Sample{s})
	const h = 1e-7
	for _, j := range []int{0, 57, 199, 399} {
		old := out.At(0, j)
		out.Set(0, j, old+h)
		up, _ := loss(out, []*Sample{s})
		out.Set(0, j, old-h)
		down, _ := loss(out, []*Sample{s})
		out.Set(0, j, old)
		if num := (up - down) / (2 * h); math.Abs(num-g.At(0, j)) > 1e-6 {
			t.Errorf("output %d: gradient %g, finite difference %g", j, g.At(0, j), num)
		}
	}
}

// synthSample is a sample whose first spec entry u is uniform in [0, 1)
// and whose target is factor x (1 + u) times flowSim's percentiles (Base)
// in every bucket. Its maps and Base are the same in every sample, so that
// u is the only signal: with a hundred samples, hundreds of random inputs
// would only teach a network to fit noise.
func synthSample(r *rand.Rand, factor float64) *Sample {
	rowsOf := func(r *rand.Rand, n int) [][]float64 {
		m := make([][]float64, n)
		for b := range m {
			lo := 1 + r.Float64()
			for range NumPercentiles {
				lo += 0.05 * r.Float64()
				m[b] = append(m[b], lo)
			}
		}
		return m
	}
	fixed := rand.New(rand.NewPCG(0, 0))
	s := &Sample{Hops: 2, FG: rowsOf(fixed, 10), BG: [][][]float64{rowsOf(fixed, 10), rowsOf(fixed, 10)}, Spec: make([]float64, len(SpecNames)),
		Base: rowsOf(fixed, 4), Count: []int{50, 50, 50, 50}, TargetCount: []int{50, 50, 50, 50}}
	s.Spec[0] = r.Float64()
	for _, row := range s.Base {
		t := make([]float64, len(row))
		for p, v := range row {
			t[p] = v * factor * (1 + s.Spec[0])
		}
		s.Target = append(s.Target, t)
	}
	return s
}

// synthSplit draws 100 training and 20 validation samples of synthSample
// whose flowSim is off by 1.5 x (1 + u).
func synthSplit(r *rand.Rand) (train, val []*Sample) {
	for i := range 120 {
		s := synthSample(r, 1.5)
		if i < 100 {
			train = append(train, s)
		} else {
			val = append(val, s)
		}
	}
	return train, val
}

func TestTrainingLearnsAndRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	train, val := synthSplit(r)
	m, err := Train(train, val, TrainOptions{Hidden: []int{16}, Members: 2, Epochs: 40, LR: 0.01, Seed: 3}) // few samples, few steps: a large step
	if err != nil {
		t.Fatal(err)
	}
	// flowSim alone is off by the factor 1.5 x (1 + u), u uniform: a
	// relative error of 1 - 1/(1.5(1+u)), about 0.5 on average.
	if m.Info.FlowSimLoss < 0.4 || m.Info.ValLoss > m.Info.FlowSimLoss/4 {
		t.Errorf("validation loss %.3f, flowSim %.3f: training did not learn the factor", m.Info.ValLoss, m.Info.FlowSimLoss)
	}
	again, _ := Train(train, val, TrainOptions{Hidden: []int{16}, Members: 2, Epochs: 40, LR: 0.01, Seed: 3}) // few samples, few steps: a large step
	if !reflect.DeepEqual(again.Predict(val), m.Predict(val)) {
		t.Error("training with the same seed is not reproducible")
	}
	// The ensemble is the mean of its members' corrections, and they
	// differ (own seeds).
	if len(m.nets) != 2 || reflect.DeepEqual(m.nets[0].head.W[0], m.nets[1].head.W[0]) {
		t.Fatalf("%d members, identical: the ensemble does not have distinct members", len(m.nets))
	}
	x := m.inputs(val)
	o0, _ := m.nets[0].forward(x)
	o1, _ := m.nets[1].forward(x)
	var mean mat.Dense
	mean.Add(o0, o1)
	mean.Scale(0.5, &mean)
	if !mat.EqualApprox(&mean, m.forward(x), 1e-12) {
		t.Error("the ensemble's output is not its members' mean")
	}
	path := filepath.Join(t.TempDir(), "m.model")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Predict(val), m.Predict(val)) || !reflect.DeepEqual(back.Info, m.Info) {
		t.Error("saved and loaded model predicts differently")
	}
	// A new model reads the whole configuration.
	if !reflect.DeepEqual(m.Info.SpecNames, SpecNames) || len(m.spec) != len(SpecNames) {
		t.Errorf("a new model reads spec entries %v, want all of %v", m.Info.SpecNames, SpecNames)
	}
	if _, err := LoadModel(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("missing model file: no error")
	}
}

// Networks whose paths need a correction no sample shows (4, where the
// samples need 1.5 x (1 + u)) teach it through their pooled prediction
// alone: their paths have no targets of their own.
func TestTrainingLearnsNetworkGroups(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	train, val := synthSplit(r)
	group := func() *Group {
		g := &Group{TruthCount: []int{50, 50, 50, 50}}
		for range 8 {
			s := synthSample(r, 1)
			s.Spec[1], s.Count, s.Target, s.TargetCount = 1, []int{1, 1, 1, 1}, nil, nil
			g.Samples, g.Draws = append(g.Samples, s), append(g.Draws, 1)
		}
		est := make([]PathEstimate, len(g.Samples))
		for i, s := range g.Samples {
			est[i] = PathEstimate{Draws: 1, Count: s.Count, Percentiles: s.Base}
		}
		pooled, err := Aggregate(est, g.TruthCount)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range append(pooled.Buckets, pooled.Overall) {
			t := make([]float64, len(row))
			for p, v := range row {
				t[p] = 4 * v
			}
			g.Truth = append(g.Truth, t)
		}
		g.Truth, g.Overall = g.Truth[:len(pooled.Buckets)], g.Truth[len(pooled.Buckets)]
		return g
	}
	var groups, valGroups []*Group
	for i := range 24 {
		if i < 20 {
			groups = append(groups, group())
		} else {
			valGroups = append(valGroups, group())
		}
	}
	o := TrainOptions{Hidden: []int{16}, Members: 1, Epochs: 40, LR: 0.01, Seed: 3}
	without, err := Train(train, val, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Groups, o.ValGroups = groups, valGroups
	with, err := Train(train, val, o)
	if err != nil {
		t.Fatal(err)
	}
	if with.Info.TrainGroups != 20 || with.Info.ValGroups != 4 || math.Abs(with.Info.FlowSimGroupLoss-0.75) > 1e-9 {
		t.Errorf("model info %d/%d networks, flowSim network loss %v (want 20/4, 0.75)", with.Info.TrainGroups, with.Info.ValGroups, with.Info.FlowSimGroupLoss)
	}
	x := with.groupInputs(valGroups)
	if l := with.meanGroupLoss(valGroups, x); l > 0.1 || l != with.Info.ValGroupLoss {
		t.Errorf("validation networks' loss %.3f (recorded %.3f), want under 0.1: the pooled loss was not learned", l, with.Info.ValGroupLoss)
	}
	if l := without.meanGroupLoss(valGroups, without.groupInputs(valGroups)); l < 0.3 {
		t.Errorf("a model trained without the networks has loss %.3f on them: the test cannot tell", l)
	}
	if with.Info.ValLoss > with.Info.FlowSimLoss/4 {
		t.Errorf("samples' validation loss %.3f, flowSim %.3f: the networks displaced the samples", with.Info.ValLoss, with.Info.FlowSimLoss)
	}
	o.ValGroups = nil
	if _, err := Train(train, val, o); err == nil || !strings.Contains(err.Error(), "want both or neither") {
		t.Errorf("training networks without validation networks: error %v", err)
	}
}

func TestAggregateHandCase(t *testing.T) {
	row := func(v float64) []float64 {
		r := make([]float64, NumPercentiles)
		for i := range r {
			r[i] = v
		}
		return r
	}
	// Path A: drawn once, one flow in bucket 0, predicts 2 everywhere.
	// Path B: drawn 3 times, one flow each in buckets 0 and 1, predicts
	// 4, 5, 6, 6. Bucket 0 masses: A 1 x 1/1, B 3 x 1/2: 40% at 2, 60% at
	// 4. Bucket 1: B alone. Buckets 2-3: no flows on sampled paths, so by
	// draws: 25% at 2, 75% at 6.
	paths := []PathEstimate{
		{Draws: 1, Count: []int{1, 0, 0, 0}, Percentiles: [][]float64{row(2), row(2), row(2), row(2)}},
		{Draws: 3, Count: []int{1, 1, 0, 0}, Percentiles: [][]float64{row(4), row(5), row(6), row(6)}},
	}
	d, err := Aggregate(paths, []int{10, 10, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, q []float64, cut int, lo, hi float64) {
		for p := 1; p <= 100; p++ {
			want := hi
			if p <= cut {
				want = lo
			}
			if q[p-1] != want {
				t.Errorf("%s p%d = %g, want %g", name, p, q[p-1], want)
			}
		}
	}
	check("bucket 0", d.Buckets[0], 40, 2, 4)
	check("bucket 1", d.Buckets[1], 0, 5, 5)
	check("bucket 2", d.Buckets[2], 25, 2, 6)
	// Overall: buckets 0 and 1 in equal parts: 20% at 2, 30% at 4, 50% at 5.
	for p, want := range map[int]float64{1: 2, 20: 2, 21: 4, 50: 4, 51: 5, 99: 5} {
		if d.Overall[p-1] != want {
			t.Errorf("overall p%d = %g, want %g", p, d.Overall[p-1], want)
		}
	}
	if _, err := Aggregate(nil, []int{1}); err == nil {
		t.Error("no paths: no error")
	}
}

// The embedded models are listed by name, and an unknown name is refused
// with the names there are (TestModelSpace checks what each covers).
func TestEmbeddedModels(t *testing.T) {
	if got := EmbeddedModels(); !slices.Equal(got, []string{"presets", "presets-fork", "table4-fork", "table4-pfc"}) {
		t.Errorf("EmbeddedModels = %v", got)
	}
	if _, err := EmbeddedModel("table5"); err == nil || !strings.Contains(err.Error(), `no embedded model "table5" (embedded: presets, presets-fork, table4-fork, table4-pfc)`) {
		t.Errorf("unknown embedded model: %v", err)
	}
	// The DCTCP model corrects the plain flowSim, the Table-4 models the
	// window-capped one (HPCC's windows under the BDP in m3 §5.4).
	for name, capped := range map[string]bool{"": false, "table4-pfc": true, "table4-fork": true, "presets": true, "presets-fork": true} {
		m, err := EmbeddedModel(name)
		if err != nil {
			t.Fatal(err)
		}
		if m.Info.WindowCap != capped {
			t.Errorf("embedded model %q: window-capped base %v, want %v", name, m.Info.WindowCap, capped)
		}
	}
}

// Each embedded model covers the space it was trained on (the default:
// rate-based DCTCP over infinite buffers; "table4-pfc": m3 Table 4's CCs
// with shared buffers, PFC on or off; "table4-fork": the same under the
// HPCC ns-3 fork's rules) and refuses, by name, each setting
// its data never had; Run refuses with the default and answers with
// flowSim alone. Its digest is the hash of its file.
func TestModelSpace(t *testing.T) {
	model, err := DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	table4, err := EmbeddedModel("table4-pfc")
	if err != nil {
		t.Fatal(err)
	}
	fork, err := EmbeddedModel("table4-fork")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		model  *Model
		change func(*netcfg.Config)
		want   string // "" for covered
	}{
		{table4, func(c *netcfg.Config) {}, ""},
		{table4, func(c *netcfg.Config) { c.CC = "hpcc"; c.Buffer.SharedBytes, c.PFC.Enabled = 200_000, true }, ""},
		{table4, func(c *netcfg.Config) { c.CC = "dcqcn"; c.Buffer.SharedBytes = 500_000 }, ""},
		{table4, func(c *netcfg.Config) { c.CC = "timely" }, ""},
		{table4, func(c *netcfg.Config) { c.CC = "dctcp-window" }, ""},
		{table4, func(c *netcfg.Config) { c.BufferBytes = 200_000 }, "buffer_bytes 200000"},
		{table4, func(c *netcfg.Config) { *c, _ = netcfg.Preset("fork-hpcc") }, "fork rules true"},
		{table4, func(c *netcfg.Config) { *c, _ = netcfg.Preset("fork-dctcp") }, ""},
		{table4, func(c *netcfg.Config) { c.CC, c.TIMELY.PerRTT = "timely", true }, "timely.per_rtt"},
		{fork, func(c *netcfg.Config) { *c, _ = netcfg.Preset("fork-hpcc") }, ""},
		{fork, func(c *netcfg.Config) {
			*c, _ = netcfg.Preset("fork-timely")
			c.Buffer.SharedBytes, c.PFC.Enabled = 300_000, true
		}, ""},
		{fork, func(c *netcfg.Config) { c.CC = "dctcp-window" }, ""},
		{fork, func(c *netcfg.Config) {}, ""},
		{fork, func(c *netcfg.Config) { c.CC = "timely" }, "fork rules false"},
		{fork, func(c *netcfg.Config) { c.CC = "dcqcn" }, "fork rules false"},
		{model, func(c *netcfg.Config) {}, ""},
		{model, func(c *netcfg.Config) { c.KBytesPerGbps, c.DCTCP.WindowBytes = 2000, 25_000 }, ""},
		{model, func(c *netcfg.Config) { c.CC = "hpcc" }, "congestion control hpcc"},
		{model, func(c *netcfg.Config) { c.CC = "dctcp-window" }, "congestion control dctcp-window"},
		{model, func(c *netcfg.Config) { c.BufferBytes = 200_000 }, "buffer_bytes 200000"},
		{model, func(c *netcfg.Config) { c.Buffer.SharedBytes = 200_000 }, "shared_bytes 200000"},
		{model, func(c *netcfg.Config) { c.Buffer.SharedBytes, c.PFC.Enabled = 200_000, true }, "shared_bytes 200000"},
		{model, func(c *netcfg.Config) { c.ECNMark = "enqueue" }, "ecn_mark enqueue"},
		{model, func(c *netcfg.Config) { c.DCTCP.VarWin = false }, "var_win false"},
	} {
		cfg := netcfg.Default()
		tc.change(&cfg)
		err := tc.model.Space().Covers(cfg)
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v: Covers = %v, want %q", cfg, err, tc.want)
		}
	}
	net := dumbbell(t)
	flows := []workload.Flow{{ID: 0, Src: 0, Dst: 2, Size: 5000}, {ID: 1, Src: 1, Dst: 3, Size: 9000, Start: 1000}}
	cfg := netcfg.Default()
	cfg.CC = "timely"
	if _, err := Run(context.Background(), net, flows, cfg, Options{Model: model, Samples: 20, Seed: 1}); err == nil || !strings.Contains(err.Error(), "timely") {
		t.Errorf("Run of the DCTCP model on TIMELY: %v", err)
	}
	if _, err := Run(context.Background(), net, flows, cfg, Options{Samples: 20, Seed: 1}); err != nil {
		t.Errorf("flowSim alone on TIMELY: %v", err)
	}
	f, err := datasets.FS.Open(DefaultModelFile)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	if want := "sha256:" + hex.EncodeToString(h.Sum(nil))[:16]; model.Digest() != want {
		t.Errorf("digest %s, want %s", model.Digest(), want)
	}
	path := filepath.Join(t.TempDir(), "m.model")
	if err := model.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := FileDigest(path)
	if err != nil || back.Digest() != fd || back.Digest() != model.Digest() {
		t.Errorf("saved copy: digest %s, file digest %s (%v), want the embedded %s", back.Digest(), fd, err, model.Digest())
	}
}

// The spec vector names the CC in use once among its one-hot entries and
// carries its parameters: HPCC's window defaults to one BDP, its eta and
// rate AI are read as set, DCQCN's thresholds relative to the BDP.
func TestSpecVectorConfiguration(t *testing.T) {
	bw, dl := []int64{10e9, 40e9, 10e9}, []int64{1000, 1000, 1000}
	at := func(v []float64, name string) float64 { return v[slices.Index(SpecNames, name)] }
	base := SpecVector(bw, dl, netcfg.Default())
	bdp := at(base, "bdp/100KB") * 1e5
	if len(base) != len(NetworkSpecNames) {
		t.Fatalf("%d entries for %d names", len(base), len(NetworkSpecNames))
	}
	for _, cc := range netcfg.CCs {
		cfg := netcfg.Default()
		cfg.CC = cc
		v := SpecVector(bw, dl, cfg)
		ones := 0
		for _, n := range []string{"cc_dctcp", "cc_dctcp_window", "cc_dcqcn", "cc_timely", "cc_hpcc"} {
			ones += int(at(v, n))
		}
		if want := "cc_" + strings.ReplaceAll(cc, "-", "_"); ones != 1 || at(v, want) != 1 {
			t.Errorf("%s: %d one-hot entries set, %s = %g", cc, ones, want, at(v, want))
		}
	}
	// The ECN threshold's own entries follow K only where the CC reads
	// marks by it; k_first/bdp and k_max/bdp follow it always.
	for _, cc := range netcfg.CCs {
		cfg := netcfg.Default()
		cfg.CC, cfg.KBytes = cc, 12_000
		v := SpecVector(bw, dl, cfg)
		want := 0.0
		if cc == "dctcp" || cc == "dctcp-window" {
			want = 12_000 / bdp
		}
		if math.Abs(at(v, "k_first/bdp")-12_000/bdp) > 1e-12 || math.Abs(at(v, "ecn_k_first/bdp")-want) > 1e-12 || math.Abs(at(v, "ecn_k_max/bdp")-want) > 1e-12 {
			t.Errorf("%s: K %g, ECN K %g and %g BDP, want %g", cc, at(v, "k_first/bdp"), at(v, "ecn_k_first/bdp"), at(v, "ecn_k_max/bdp"), want)
		}
	}
	cfg, _ := netcfg.Preset("hpcc")
	cfg.HPCC.Eta, cfg.HPCC.AIRateBps = 0.8, 700e6
	v := SpecVector(bw, dl, cfg)
	if at(v, "init_window/bdp") != 1 || at(v, "hpcc_eta") != 0.8 || math.Abs(at(v, "hpcc_ai_rate/1Gbps")-0.7) > 1e-12 {
		t.Errorf("hpcc entries: window %g BDP, eta %g, AI %g", at(v, "init_window/bdp"), at(v, "hpcc_eta"), at(v, "hpcc_ai_rate/1Gbps"))
	}
	cfg.HPCC.WindowBytes = 20_000
	if v := SpecVector(bw, dl, cfg); math.Abs(at(v, "init_window/bdp")-20_000/bdp) > 1e-12 {
		t.Errorf("20 KB window: %g BDP, want %g", at(v, "init_window/bdp"), 20_000/bdp)
	}
	cfg, _ = netcfg.Preset("dcqcn")
	cfg.DCQCN.KminBytes, cfg.DCQCN.KmaxBytes = 30_000, 80_000
	if v := SpecVector(bw, dl, cfg); math.Abs(at(v, "dcqcn_kmax/bdp")-80_000/bdp) > 1e-12 || math.Abs(at(v, "dcqcn_kmin/bdp")-30_000/bdp) > 1e-12 {
		t.Errorf("dcqcn thresholds %g, %g BDP", at(v, "dcqcn_kmin/bdp"), at(v, "dcqcn_kmax/bdp"))
	}
	// The buffer decodes back to its bytes and kind; PFC and alpha to
	// their settings.
	for _, tc := range []struct {
		perPort, shared int64
		alpha           float64
		pfc             bool
	}{{0, 0, 1, false}, {300_000, 0, 1, false}, {0, 250_000, 1, false}, {0, 450_000, 0.5, true}} {
		cfg := netcfg.Default()
		cfg.BufferBytes, cfg.Buffer.SharedBytes, cfg.Buffer.Alpha, cfg.PFC.Enabled = tc.perPort, tc.shared, tc.alpha, tc.pfc
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		v := SpecVector(bw, dl, cfg)
		buf := math.Round(at(v, "buffer/bdp") * bdp)
		inf, shared, alpha, pfc := at(v, "infinite_buffer") == 1, at(v, "shared_buffer") == 1, at(v, "buffer_alpha"), at(v, "pfc") == 1
		wantAlpha := 0.0
		if tc.shared > 0 {
			wantAlpha = tc.alpha
		}
		if buf != float64(tc.perPort+tc.shared) || inf != (tc.perPort+tc.shared == 0) || shared != (tc.shared > 0) || alpha != wantAlpha || pfc != tc.pfc {
			t.Errorf("%+v: decoded buffer %g B (infinite %v, shared %v, alpha %g), pfc %v", tc, buf, inf, shared, alpha, pfc)
		}
	}
}

// The dctcp space is RandomTask's; table4 keeps RandomTask's parking lot
// and workload, draws every CC, keeps each parameter in m3's Table 4
// range and validates, finite buffers in about half the tasks; the draw
// depends on (seed, index) only, and unknown spaces are refused.
func TestRandomTaskIn(t *testing.T) {
	ccs, finite := map[string]int{}, 0
	for i := range 200 {
		legacy := RandomTask(7, i, 1000)
		d, err := RandomTaskIn("dctcp", 7, i, 1000)
		if err != nil || !reflect.DeepEqual(d, legacy) {
			t.Fatalf("task %d: the dctcp space differs from RandomTask (%v)", i, err)
		}
		tk, err := RandomTaskIn("table4", 7, i, 1000)
		if err != nil {
			t.Fatal(err)
		}
		again, _ := RandomTaskIn("table4", 7, i, 1000)
		if !reflect.DeepEqual(tk, again) {
			t.Fatalf("task %d: two draws differ", i)
		}
		c := tk.Network
		if err := c.Validate(); err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
		legacy.Network = c
		if !reflect.DeepEqual(tk, legacy) {
			t.Fatalf("task %d: table4 changed more than the network", i)
		}
		ccs[c.CC]++
		in := func(what string, v, lo, hi float64) {
			if v < lo || v > hi {
				t.Errorf("task %d (%s): %s %g outside [%g, %g]", i, c.CC, what, v, lo, hi)
			}
		}
		if c.BufferBytes > 0 {
			finite++
			in("buffer", float64(c.BufferBytes), 200e3, 500e3)
		}
		in("K", float64(c.KBytes), 5e3, 20e3)
		switch c.CC {
		case "dctcp":
			in("window", float64(c.DCTCP.WindowBytes), 5e3, 30e3)
		case "dctcp-window":
			in("window", float64(c.DCTCP.InitWindow*c.PayloadBytes), 5e3, 30e3)
			if c.ECNMark != "enqueue" || c.HeaderBytes != netcfg.NS3().HeaderBytes {
				t.Errorf("task %d: window DCTCP not as stock ns-3 runs it: %+v", i, c)
			}
			if c.HostFIFO() {
				// The training data predates FIFO NICs in the network
				// model and must stay as it was.
				t.Errorf("task %d: FIFO host NICs in m3's training space", i)
			}
		case "dcqcn":
			in("window", float64(c.DCQCN.WindowBytes), 5e3, 30e3)
			in("kmin", float64(c.DCQCN.KminBytes), 20e3, 50e3)
			in("kmax", float64(c.DCQCN.KmaxBytes), 50e3, 100e3)
		case "timely":
			in("window", float64(c.TIMELY.WindowBytes), 5e3, 30e3)
			in("tlow", float64(c.TIMELY.TLowNanos), 40e3, 60e3)
			in("thigh", float64(c.TIMELY.THighNanos), 100e3, 150e3)
		case "hpcc":
			in("window", float64(c.HPCC.WindowBytes), 5e3, 30e3)
			in("eta", c.HPCC.Eta, 0.70, 0.95)
			in("rate AI", float64(c.HPCC.AIRateBps), 500e6, 1000e6)
		}
	}
	if len(ccs) != 5 || finite < 70 || finite > 130 {
		t.Errorf("CCs drawn %v, finite buffers in %d of 200", ccs, finite)
	}
	if _, err := RandomTaskIn("table5", 7, 0, 1000); err == nil || !strings.Contains(err.Error(), `unknown training space "table5"`) {
		t.Errorf("unknown space: %v", err)
	}
}

// A table4-fork task is the table4-pfc task with the fork's rules on its
// CC where the fork has any (its wire, DCQCN's grid and timer, TIMELY's
// per-RTT sampling, HPCC's T and queue term) and untouched otherwise. A
// space spanned by such tasks covers the fork's CCs and both DCTCPs, and
// refuses TIMELY as its paper defines it, by name.
func TestRandomTaskInFork(t *testing.T) {
	var tasks []*Sample
	ruled := 0
	for i := range 100 {
		pfc, err := RandomTaskIn("table4-pfc", 3, i, 1000)
		if err != nil {
			t.Fatal(err)
		}
		fk, err := RandomTaskIn("table4-fork", 3, i, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if err := fk.Network.Validate(); err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
		want := pfc.Network
		switch want.CC {
		case "dcqcn":
			want.DCQCN.DecreaseGrid, want.DCQCN.TimerOnly = true, true
		case "timely":
			want.TIMELY.PerRTT = true
			want.HeaderBytes += 8 // its ACK, 46 + 8 B, still padded to 60
		case "hpcc":
			want.HPCC.BaseRTTNanos, want.HPCC.QueueOverWindow = netcfg.NetworkBaseRTT, true
			want.HeaderBytes += 42
			want.AckBytes = 46 + 42
		}
		pfc.Network = want
		if !reflect.DeepEqual(fk, pfc) {
			t.Fatalf("task %d: table4-fork is not table4-pfc under the fork's rules:\n%+v\n%+v", i, fk.Network, want)
		}
		if fk.Network.ForkRules() {
			ruled++
		}
		tasks = append(tasks, &Sample{Network: fk.Network})
	}
	if ruled < 40 || ruled > 80 {
		t.Errorf("%d of 100 tasks under the fork's rules, want about 60", ruled)
	}
	sp := spanned(tasks)
	if !reflect.DeepEqual(sp.ForkRules, []bool{true}) {
		t.Errorf("fork rules spanned %v, want [true]", sp.ForkRules)
	}
	for _, name := range []string{"fork-timely", "fork-dcqcn", "fork-hpcc", "fork-dctcp", "ns3"} {
		c, _ := netcfg.Preset(name)
		if name == "ns3" {
			// The training ran stock-TCP DCTCP from round-robin NICs;
			// the preset's FIFO NICs are refused by name.
			if err := sp.Covers(c); err == nil || !strings.Contains(err.Error(), `host_nic "fifo"`) {
				t.Errorf("preset ns3 with FIFO NICs: %v, want a refusal naming host_nic", err)
			}
			c.HostNIC = netcfg.HostNICRoundRobin
		}
		if err := sp.Covers(c); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	c, _ := netcfg.Preset("timely")
	if err := sp.Covers(c); err == nil || !strings.Contains(err.Error(), "fork rules false") {
		t.Errorf("TIMELY as its paper has it: %v", err)
	}
}

// A table4-pfc task is the table4 task with its buffer drawn again: no
// per-port buffer; infinite in about a quarter of the tasks, else shared,
// 200-500 KB, PFC on in about half of those. The space its samples span
// covers each of them; a space without PFC or without shared buffers
// refuses them by name.
func TestRandomTaskInPFC(t *testing.T) {
	var infinite, shared, pfc int
	var samples []*Sample
	for i := range 400 {
		tk, err := RandomTaskIn("table4-pfc", 7, i, 1000)
		if err != nil {
			t.Fatal(err)
		}
		c := tk.Network
		if err := c.Validate(); err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
		t4, _ := RandomTaskIn("table4", 7, i, 1000)
		t4.Network.BufferBytes, t4.Network.Buffer, t4.Network.PFC = 0, c.Buffer, c.PFC
		if !reflect.DeepEqual(tk, t4) {
			t.Fatalf("task %d: table4-pfc changed more than the buffer and PFC", i)
		}
		switch {
		case c.SharedBuffer():
			shared++
			if b := c.Buffer.SharedBytes; b < 200e3 || b > 500e3 || c.Buffer.Alpha != 1 {
				t.Errorf("task %d: shared buffer %d B, alpha %g", i, b, c.Buffer.Alpha)
			}
			if c.PFC.Enabled {
				pfc++
			}
		default:
			infinite++
			if c.PFC.Enabled {
				t.Errorf("task %d: PFC without a shared buffer", i)
			}
		}
		samples = append(samples, &Sample{Network: c})
	}
	// Binomial: 100 +- 9 infinite of 400, 150 +- 9 PFC of 300 shared.
	if infinite < 70 || infinite > 130 || pfc < 2*shared/5 || pfc > 3*shared/5 {
		t.Errorf("%d infinite, %d shared of which %d with PFC", infinite, shared, pfc)
	}
	sp := spanned(samples)
	if !sp.SharedBuffers || !reflect.DeepEqual(sp.PFC, []bool{false, true}) || sp.FiniteBuffers || len(sp.CCs) != 5 {
		t.Fatalf("spanned space %+v", sp)
	}
	for i, x := range samples {
		if err := sp.Covers(x.Network); err != nil {
			t.Errorf("task %d: %v", i, err)
		}
	}
	cfg := netcfg.Default()
	cfg.Buffer.SharedBytes, cfg.PFC.Enabled = 300_000, true
	noPFC := sp
	noPFC.PFC = []bool{false}
	if err := noPFC.Covers(cfg); err == nil || !strings.Contains(err.Error(), "pfc enabled true") {
		t.Errorf("a space without PFC on PFC: %v", err)
	}
	noShared := sp
	noShared.SharedBuffers, noShared.PFC = false, nil
	if err := noShared.Covers(cfg); err == nil || !strings.Contains(err.Error(), "shared_bytes 300000") {
		t.Errorf("a space without shared buffers on one: %v", err)
	}
	cfg.BufferBytes, cfg.Buffer.SharedBytes, cfg.PFC.Enabled = 300_000, 0, false
	if err := sp.Covers(cfg); err == nil || !strings.Contains(err.Error(), "buffer_bytes 300000") {
		t.Errorf("table4-pfc's space on a per-port buffer: %v", err)
	}
}

// AblationBy averages |error| per value of the column (a CC here) and
// bucket, in value then bucket order.
func TestAblationBy(t *testing.T) {
	tab := &frame.Table{Columns: []frame.Column{
		frame.StringColumn("cc", []string{"hpcc", "dctcp", "hpcc", "hpcc"}),
		frame.StringColumn("bucket", []string{"<=1KB", "<=1KB", "<=1KB", ">50KB"}),
		frame.Float64Column("flowsim_err", []float64{-0.2, 0.1, 0.4, 0.3}),
		frame.Float64Column("model_err", []float64{0.1, -0.05, -0.1, 0.02}),
	}}
	got, err := AblationBy(tab, "cc")
	if err != nil {
		t.Fatal(err)
	}
	cc, _ := got.Strings("cc")
	bk, _ := got.Strings("bucket")
	rows, _ := got.Int64s("rows")
	f, _ := got.Float64s("flowsim_mean_abs_err")
	m, _ := got.Float64s("model_mean_abs_err")
	want := []struct {
		cc, bucket string
		rows       int64
		f, m       float64
	}{{"dctcp", "<=1KB", 1, 0.1, 0.05}, {"hpcc", "<=1KB", 2, 0.3, 0.1}, {"hpcc", ">50KB", 1, 0.3, 0.02}}
	if len(cc) != len(want) {
		t.Fatalf("%d rows, want %d", len(cc), len(want))
	}
	for i, w := range want {
		if cc[i] != w.cc || bk[i] != w.bucket || rows[i] != w.rows || math.Abs(f[i]-w.f) > 1e-12 || math.Abs(m[i]-w.m) > 1e-12 {
			t.Errorf("row %d = %s %s %d %g %g, want %+v", i, cc[i], bk[i], rows[i], f[i], m[i], w)
		}
	}
	if _, err := AblationBy(tab, "buffer"); err == nil {
		t.Error("grouping by a column the table lacks: no error")
	}
}
