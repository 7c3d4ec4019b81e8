package m3

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// handLot is a two-hop parking lot (10 Gbps, then 40 Gbps) carrying fg
// foreground flows of 1000 B, bg0 background flows of 1000 B on hop 0
// alone and bg1 of size1 bytes on hop 1 alone.
func handLot(t *testing.T, fg, bg0, bg1 int, size1 int64) *PathSim {
	t.Helper()
	spec := topo.ParkingLotSpec{Hops: 2, Bandwidths: []int64{10 * topo.Gbps, 40 * topo.Gbps}, HostBandwidth: 10 * topo.Gbps,
		Delay: topo.Microsecond, GroupHosts: 1}
	sim := &PathSim{Spec: spec}
	add := func(n int, size int64, first, last int, fg bool) {
		for range n {
			sim.Flows = append(sim.Flows, workload.Flow{ID: len(sim.Flows), Src: 0, Dst: 1, Size: size, Start: int64(len(sim.Flows))})
			sim.First, sim.Last = append(sim.First, first), append(sim.Last, last)
			sim.Foreground, sim.Orig = append(sim.Foreground, fg), append(sim.Orig, -1)
		}
	}
	add(fg, 1000, 0, 1, true)
	add(bg0, 1000, 0, 0, false)
	add(bg1, size1, 1, 1, false)
	var err error
	if sim.Net, err = topo.ParkingLot(spec); err != nil {
		t.Fatal(err)
	}
	return sim
}

// FGShare is the foreground's share of the flows on the hop with the most
// bytes per bandwidth, worked out by hand; the sample's spec vector
// carries its decimal logarithm (floored at MinFGShare) after the
// network's entries, and thinning the foreground leaves it as it was.
func TestFGShare(t *testing.T) {
	for _, c := range []struct {
		name          string
		fg, bg0, bg1  int
		size1         int64
		want, wantLog float64
	}{
		// hop 0: 4 flows, 4000 B / 10 Gbps; hop 1: 8 flows, 62000 B / 40 Gbps: hop 1 is busiest.
		{"busy-fabric-hop", 2, 2, 6, 10000, 2.0 / 8, math.Log10(2.0 / 8)},
		// hop 1 now carries 8000 B / 40 Gbps, less than hop 0's 4000 B / 10 Gbps.
		{"busy-host-hop", 2, 2, 6, 1000, 2.0 / 4, math.Log10(2.0 / 4)},
		// one foreground flow among 100,001 on hop 0: below the floor.
		{"floored", 1, 100_000, 0, 1000, 1.0 / 100_001, math.Log10(MinFGShare)},
		{"no-foreground", 0, 3, 3, 1000, 0, math.Log10(MinFGShare)},
	} {
		t.Run(c.name, func(t *testing.T) {
			sim := handLot(t, c.fg, c.bg0, c.bg1, c.size1)
			if got := FGShare(sim); math.Abs(got-c.want) > 1e-15 {
				t.Errorf("FGShare = %g, want %g", got, c.want)
			}
			sd := make([]float64, len(sim.Flows))
			for i := range sd {
				sd[i] = 1 + float64(i%7)/10
			}
			s := NewSample(sim, netcfg.Default(), sd, sd)
			if len(s.Spec) != len(SpecNames) {
				t.Fatalf("spec vector of %d entries, %d names", len(s.Spec), len(SpecNames))
			}
			at := slices.Index(SpecNames, "log10_fg_share")
			if math.Abs(s.Spec[at]-c.wantLog) > 1e-12 {
				t.Errorf("log10_fg_share = %g, want %g", s.Spec[at], c.wantLog)
			}
			bw, dl := sim.chain()
			if !reflect.DeepEqual(s.Spec[:at], SpecVector(bw, dl, netcfg.Default())) {
				t.Error("the network's entries are not SpecVector's")
			}
			if c.fg > 1 {
				thin := s.Thin(1, rand.New(rand.NewPCG(1, 1)))
				if !slices.Equal(thin.Spec, s.Spec) || slices.Index(thin.Count, 1) < 0 {
					t.Errorf("thinned to one flow (counts %v): spec %v, want the whole sample's %v", thin.Count, thin.Spec, s.Spec)
				}
			}
		})
	}
}

// Models trained before the foreground share read exactly the spec
// entries they were trained with: their predictions do not move with it,
// while a model trained with it reads it.
func TestOldModelsIgnoreFGShare(t *testing.T) {
	def, err := DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	table4, err := EmbeddedModel("table4-pfc")
	if err != nil {
		t.Fatal(err)
	}
	sim := handLot(t, 30, 40, 50, 20000)
	sd := make([]float64, len(sim.Flows))
	for i := range sd {
		sd[i] = 1 + float64(i%5)/4
	}
	s := NewSample(sim, netcfg.Default(), sd, nil)
	at := slices.Index(SpecNames, "log10_fg_share")
	other := *s
	other.Spec = slices.Clone(s.Spec)
	other.Spec[at] = -4
	for name, m := range map[string]*Model{"default": def, "table4-pfc": table4} {
		if slices.Contains(m.spec, at) {
			t.Errorf("%s model reads the foreground share", name)
		}
		if !reflect.DeepEqual(m.Predict([]*Sample{s}), m.Predict([]*Sample{&other})) {
			t.Errorf("%s model: the foreground share moves its prediction", name)
		}
	}
	if !slices.Equal(def.Info.SpecNames, nil) || slices.Contains(table4.Info.SpecNames, "log10_fg_share") || len(table4.Info.SpecNames) != 25 {
		t.Errorf("spec names recorded: default %v, table4-pfc %v", def.Info.SpecNames, table4.Info.SpecNames)
	}
	// A model trained now reads the share: with a target that depends
	// on it alone, its prediction follows it.
	r := rand.New(rand.NewPCG(4, 4))
	var train, val []*Sample
	for i := range 120 {
		x := synthSample(r, 1.5)
		x.Spec[at], x.Spec[0] = x.Spec[0], 0
		if i < 100 {
			train = append(train, x)
		} else {
			val = append(val, x)
		}
	}
	m, err := Train(train, val, TrainOptions{Hidden: []int{16}, Epochs: 40, LR: 0.01, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if m.Info.ValLoss > m.Info.FlowSimLoss/4 {
		t.Errorf("validation loss %.3f, flowSim %.3f: the model did not learn from the foreground share", m.Info.ValLoss, m.Info.FlowSimLoss)
	}
}

// LowShare draws shares log-uniformly in its range and flows to match,
// leaves the rest of the task as RandomTaskIn draws it, and builds lots
// whose foreground has the share asked even far below one foreground
// copy per background pair list; a draw without it is the draw it was
// before LowShare existed, JSON included.
func TestLowShare(t *testing.T) {
	low := &LowShare{MinShare: 1e-3, MaxShare: 0.2, FGFlows: 150, MaxFlows: 50_000, InnerWeight: 8}
	var below1pct, inner int
	const n = 400
	for i := range n {
		plain, err := TaskDraw{Space: "table4", Seed: 3, Index: i, Flows: 2000}.Task()
		if err != nil {
			t.Fatal(err)
		}
		legacy, _ := RandomTaskIn("table4", 3, i, 2000)
		if !reflect.DeepEqual(plain, legacy) {
			t.Fatalf("task %d: a draw without LowShare differs from RandomTaskIn", i)
		}
		task, err := TaskDraw{Space: "table4", Seed: 3, Index: i, Flows: 2000, LowShare: low}.Task()
		if err != nil {
			t.Fatal(err)
		}
		sh := task.ForegroundShare
		if sh < low.MinShare || sh > low.MaxShare {
			t.Errorf("task %d: share %g outside [%g, %g]", i, sh, low.MinShare, low.MaxShare)
		}
		if want := max(2000, min(low.MaxFlows, int(math.Ceil(150/sh)))); task.Flows != want {
			t.Errorf("task %d: %d flows at share %g, want %d", i, task.Flows, sh, want)
		}
		if w := task.InnerWeight; w != 0 && (w < 2 || w > low.InnerWeight) {
			t.Errorf("task %d: inner weight %d outside 2..%d", i, w, low.InnerWeight)
		} else if w != 0 {
			inner++
		}
		if sh < 0.01 {
			below1pct++
		}
		task.ForegroundShare, task.Flows, task.InnerWeight = legacy.ForegroundShare, legacy.Flows, legacy.InnerWeight
		if !reflect.DeepEqual(task, legacy) {
			t.Fatalf("task %d: LowShare changed more than share, flows and inner weight", i)
		}
	}
	// log-uniform: P(share < 0.01) = ln(10) / ln(200) = 0.435; binomial sd 0.025.
	if f := float64(below1pct) / n; math.Abs(f-0.435) > 0.1 {
		t.Errorf("share below 1%% in %.2f of the tasks, want 0.435", f)
	}
	if f := float64(inner) / n; math.Abs(f-0.5) > 0.1 {
		t.Errorf("inner weight in %.2f of the tasks, want 0.5", f)
	}
	js, err := json.Marshal(TaskDraw{Seed: 3, Index: 1, Flows: 2000})
	if err != nil || string(js) != `{"seed":3,"index":1,"flows":2000}` {
		t.Errorf("default draw's JSON %s (%v)", js, err)
	}
	// A share of 2e-3 on two hops asks for 0.016 foreground copies per
	// list of 8 background pairs; the lot still has the share: 400
	// foreground flows expected of 200,000, binomial sd 5%.
	task := RandomTask(5, 2, 200_000)
	task.Hops, task.Bandwidths, task.ForegroundShare = 2, fabricChain(2), 2e-3
	sim, err := task.Build()
	if err != nil {
		t.Fatal(err)
	}
	fg := 0
	for _, f := range sim.Foreground {
		if f {
			fg++
		}
	}
	if got := float64(fg) / float64(len(sim.Flows)); math.Abs(got/2e-3-1) > 0.2 {
		t.Errorf("foreground share %g, task asks 2e-3", got)
	}
	for _, bad := range []LowShare{{MinShare: 0, MaxShare: 0.2, FGFlows: 1, MaxFlows: 1}, {MinShare: 0.3, MaxShare: 0.2, FGFlows: 1, MaxFlows: 1},
		{MinShare: 0.1, MaxShare: 0.2, FGFlows: 0, MaxFlows: 1}, {MinShare: 0.1, MaxShare: 0.2, FGFlows: 1, MaxFlows: 1, InnerWeight: -1}} {
		if _, err := (TaskDraw{Seed: 1, Flows: 10, LowShare: &bad}).Canonical(); err == nil || !strings.Contains(err.Error(), "low-share") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// A trained model records each spec entry's training range and names the
// entries of a sample outside it; models without ranges name none.
func TestSpecRangeOutside(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	var train, val []*Sample
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range 40 {
		s := synthSample(r, 1.5)
		if i < 30 {
			train = append(train, s)
			lo, hi = min(lo, s.Spec[0]), max(hi, s.Spec[0])
		} else {
			val = append(val, s)
		}
	}
	m, err := Train(train, val, TrainOptions{Hidden: []int{4}, Epochs: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Info.SpecRange; len(got) != len(SpecNames) || got[0] != [2]float64{lo, hi} || got[1] != [2]float64{0, 0} {
		t.Fatalf("spec ranges %v..., want %d entries starting [%g %g] [0 0]", got[:2], len(SpecNames), lo, hi)
	}
	probe := *train[0]
	probe.Spec = slices.Clone(train[0].Spec)
	for _, c := range []struct {
		v0, v1 float64
		want   []string
	}{
		{lo, 0, nil},
		{hi + 0.04*(hi-lo), 0, nil}, // within the 5% margin
		{hi + 0.2*(hi-lo), 0, []string{SpecNames[0]}},
		{lo - 1, 1, []string{SpecNames[0], SpecNames[1]}},
	} {
		probe.Spec[0], probe.Spec[1] = c.v0, c.v1
		if got := m.Outside(&probe); !reflect.DeepEqual(got, c.want) {
			t.Errorf("entries %g, %g: outside %v, want %v", c.v0, c.v1, got, c.want)
		}
	}
	old, err := EmbeddedModel("")
	if err != nil {
		t.Fatal(err)
	}
	probe.Spec[0] = 1e6
	if got := old.Outside(&probe); got != nil || old.Info.SpecRange != nil {
		t.Errorf("a model without ranges names %v outside", got)
	}
	bad := m.Info
	bad.SpecRange = bad.SpecRange[:3]
	if _, err := bad.specIndex(); err == nil || !strings.Contains(err.Error(), "spec ranges") {
		t.Errorf("ranges of the wrong length: %v", err)
	}
}

// A congestion control's own parameters keep the other CCs' defaults in
// their samples, so the ranges over all samples cover values one CC never
// had: the model keeps ranges per CC too, and a path of that CC outside
// its CC's range is named although the whole range covers it. The ranges
// survive saving.
func TestSpecRangeByCC(t *testing.T) {
	ai := slices.Index(SpecNames, "hpcc_ai_rate/1Gbps")
	r := rand.New(rand.NewPCG(5, 5))
	var train, val []*Sample
	for i := range 40 {
		s := synthSample(r, 1.5)
		s.Network.CC, s.Spec[ai] = "dctcp", 0.05 // HPCC's default, as Table4Network leaves it
		if i%2 == 0 {
			s.Network.CC, s.Spec[ai] = "hpcc", 0.5+0.5*r.Float64()
		}
		if i < 30 {
			train = append(train, s)
		} else {
			val = append(val, s)
		}
	}
	m, err := Train(train, val, TrainOptions{Hidden: []int{4}, Epochs: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.model")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	if m, err = LoadModel(path); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cc   string
		v    float64
		want []string
	}{
		{"hpcc", 0.75, nil},
		{"hpcc", 0.05, []string{"hpcc_ai_rate/1Gbps"}},
		{"dctcp", 0.05, nil},
		{"dctcp", 0.75, []string{"hpcc_ai_rate/1Gbps"}},
		{"timely", 0.05, nil}, // no ranges of its own: the whole range's
	} {
		probe := *train[0]
		probe.Spec = slices.Clone(train[0].Spec)
		probe.Network.CC, probe.Spec[ai] = c.cc, c.v
		if got := m.Outside(&probe); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s with rate AI %g: outside %v, want %v", c.cc, c.v, got, c.want)
		}
	}
	bad := m.Info
	bad.SpecRangeCC = map[string][][2]float64{"hpcc": bad.SpecRange[:3]}
	if _, err := bad.specIndex(); err == nil || !strings.Contains(err.Error(), "congestion control hpcc") {
		t.Errorf("per-CC ranges of the wrong length: %v", err)
	}
}
