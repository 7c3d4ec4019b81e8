package m3

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

func TestRunLoneFlowsAreIdeal(t *testing.T) {
	net := dumbbell(t)
	// Flows 1 ms apart never overlap: flowSim gives slowdown 1, so does
	// every percentile, and every record's FCT is its ideal FCT.
	var flows []workload.Flow
	for i := range 40 {
		flows = append(flows, workload.Flow{ID: i, Src: i % 2, Dst: 2 + i%3%2, Size: int64(100 + 3000*i), Start: int64(i) * 1_000_000})
	}
	est, err := Run(context.Background(), net, flows, netcfg.Default(), Options{Samples: 50, Seed: 1, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range est.Records {
		if r.FCT != r.Ideal || r.Slowdown != 1 || r.FlowID != flows[i].ID {
			t.Fatalf("record %d = %+v, want its ideal FCT", i, r)
		}
	}
	if est.Paths != 4 || est.Simulated < 1 || est.Simulated > 4 {
		t.Errorf("paths %d, simulated %d", est.Paths, est.Simulated)
	}
}

// parkingLotFlows draws n WebServer flows between every pair of hosts of
// a 3-hop parking lot, log-normal arrivals of sigma at max load.
func parkingLotFlows(t *testing.T, n int, sigma, load float64, seed uint64) (*topo.Network, []workload.Flow) {
	t.Helper()
	net, err := topo.ParkingLot(topo.ParkingLotSpec{Hops: 3, BackgroundHosts: 2})
	if err != nil {
		t.Fatal(err)
	}
	var pairs [][2]int
	for _, h := range net.Hosts() {
		for _, g := range net.Hosts() {
			if h != g {
				pairs = append(pairs, [2]int{h, g})
			}
		}
	}
	flows, err := workload.Generate(net, workload.Spec{Flows: n, Components: []workload.Component{{
		Pairs: pairs, Sizes: workload.SizeSpec{Dist: "webserver"}, Arrival: workload.Arrival{Sigma: sigma}, MaxLoad: load,
	}}}, seed)
	if err != nil {
		t.Fatal(err)
	}
	return net, flows
}

func TestRunRecordsFollowTheEstimate(t *testing.T) {
	net, flows := parkingLotFlows(t, 3000, 2, 0.5, 4)
	cfg := netcfg.Default()
	est, err := Run(context.Background(), net, flows, cfg, Options{Samples: 200, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	// Records of a bucket carry its estimated distribution: their p99
	// matches the estimate's up to interpolation between percentiles.
	out := metrics.M3OutputBins()
	p99 := metrics.BinPercentiles(est.Records, out, 99)
	for b := range out.Len() {
		if est.Dist.Flows[b] < 200 {
			continue
		}
		if got, want := p99[b], est.Dist.Buckets[b][98]; math.Abs(got-want) > 0.02*want {
			t.Errorf("bucket %s: records p99 %.3f, estimate %.3f", out.Labels[b], got, want)
		}
	}
	if est.Dist.Overall[98] < 1 || est.Dist.Overall[49] > est.Dist.Overall[98] {
		t.Errorf("overall percentiles %v", est.Dist.Overall)
	}
	again, err := Run(context.Background(), net, flows, cfg, Options{Samples: 200, Seed: 2, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Records, est.Records) {
		t.Error("same seed, different worker count: different records")
	}
}

// A task's frame reads back as a fresh run of the task; TaskFrames finds
// frames where a sweep of TaskKind tasks writes them and refuses the
// layout of older versions by name; bad data sets are refused.
func TestTaskFrames(t *testing.T) {
	dir := t.TempDir()
	d, err := TaskDraw{Space: "dctcp", Seed: 5, Index: 1, Flows: 60}.Canonical()
	if err != nil || d.Space != "" {
		t.Fatalf("canonical draw %+v, %v", d, err)
	}
	task, err := d.Task()
	if err != nil {
		t.Fatal(err)
	}
	r, err := RunTask(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, TaskKind, "x.parquet")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.Write(path); err != nil {
		t.Fatal(err)
	}
	if files, err := TaskFrames(dir); err != nil || !reflect.DeepEqual(files, []string{path}) {
		t.Fatalf("TaskFrames: %v, %v", files, err)
	}
	back, err := ReadTaskResult(path)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := RunTask(context.Background(), RandomTask(5, 1, 60))
	if err != nil {
		t.Fatal(err)
	}
	fresh.PacketSeconds, fresh.FlowSeconds, back.PacketSeconds, back.FlowSeconds = 0, 0, 0, 0
	if !reflect.DeepEqual(back, fresh) {
		t.Error("task frame does not round-trip to a fresh run of the task")
	}
	s, err := back.Sample(false)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.BG) != back.Task.Hops || len(s.Target) != 4 {
		t.Errorf("sample has %d background maps for %d hops, %d target rows", len(s.BG), back.Task.Hops, len(s.Target))
	}
	if err := r.Write(filepath.Join(dir, "task-000001.parquet")); err != nil {
		t.Fatal(err)
	}
	if _, err := TaskFrames(dir); err == nil || !strings.Contains(err.Error(), "task-000001.parquet") {
		t.Errorf("a directory of the old layout: %v", err)
	}
	if _, err := LoadData([]string{dir}, 1, false); err == nil || !strings.Contains(err.Error(), "older tailscope") {
		t.Errorf("LoadData of the old layout: %v", err)
	}
	if files, err := TaskFrames(filepath.Join(dir, "none")); err != nil || len(files) != 0 {
		t.Errorf("a missing directory: %v, %v", files, err)
	}
	for _, o := range []GenOptions{{Tasks: 0, Flows: 1}, {Tasks: 1, Flows: 0}, {Tasks: 1, Flows: 1, Space: "nope"}} {
		if _, err := o.Draws(); err == nil {
			t.Errorf("%+v: drew tasks", o)
		}
	}
}

// A training task under PFC differs from the same task without it only
// where PFC fires: on a heavily loaded lot whose switches share a 40 KB
// buffer the packet-level slowdowns change (pauses instead of drops),
// flowSim's, blind to buffers, do not; with a buffer no queue can fill,
// PFC never fires and the two runs agree flow for flow.
func TestRunTaskPFC(t *testing.T) {
	task := Task{Index: 1, Seed: 9, Hops: 2, Bandwidths: fabricChain(2), Sizes: workload.SizeSpec{Dist: "exp", Mean: 20_000},
		Sigma: 2, MaxLoad: 0.8, ForegroundShare: 0.5, Flows: 400, BackgroundHosts: 4, Network: netcfg.Default()}
	run := func(shared int64, pfc bool) *TaskResult {
		tk := task
		tk.Network.Buffer.SharedBytes, tk.Network.PFC.Enabled = shared, pfc
		r, err := RunTask(context.Background(), tk)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range []struct {
		shared int64
		differ bool
	}{{40_000, true}, {1 << 30, false}} {
		off, on := run(tc.shared, false), run(tc.shared, true)
		if !reflect.DeepEqual(off.FlowSim, on.FlowSim) {
			t.Errorf("shared %d B: flowSim changed with PFC", tc.shared)
		}
		if differ := !reflect.DeepEqual(off.PacketSim, on.PacketSim); differ != tc.differ {
			t.Errorf("shared %d B: packetsim slowdowns differ with PFC: %v, want %v", tc.shared, differ, tc.differ)
		}
		a, err := off.Sample(false)
		if err != nil {
			t.Fatal(err)
		}
		b, err := on.Sample(false)
		if err != nil {
			t.Fatal(err)
		}
		pfc := slices.Index(SpecNames, "pfc")
		if a.Spec[pfc] != 0 || b.Spec[pfc] != 1 {
			t.Errorf("shared %d B: pfc entries %g and %g, want 0 and 1", tc.shared, a.Spec[pfc], b.Spec[pfc])
		}
	}
}

// The window-capped base: on a lot whose HPCC window (5 KB) is under the
// bandwidth-delay product, capping flows at their window brings flowSim's
// median slowdown of the large foreground flows towards packetsim's;
// with a CC that has no window it changes nothing. A model records the
// base its samples had and Run simulates with it; Train refuses samples
// of both bases, and Run a window cap its model was not trained on.
func TestWindowCapBase(t *testing.T) {
	task := Task{Index: 1, Seed: 9, Hops: 2, Bandwidths: fabricChain(2), Sizes: workload.SizeSpec{Dist: "exp", Mean: 50_000},
		Sigma: 2, MaxLoad: 0.3, ForegroundShare: 0.5, Flows: 300, BackgroundHosts: 4, Network: netcfg.Default()}
	task.Network.CC, task.Network.HPCC.WindowBytes = "hpcc", 5_000
	r, err := RunTask(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := r.Sample(false)
	if err != nil {
		t.Fatal(err)
	}
	capped, err := r.Sample(true)
	if err != nil {
		t.Fatal(err)
	}
	if plain.WindowCap || !capped.WindowCap {
		t.Fatalf("samples' bases: %v and %v, want false and true", plain.WindowCap, capped.WindowCap)
	}
	b := len(capped.Target) - 1 // flows over 50 KB
	p, c, pk := plain.Base[b][49], capped.Base[b][49], capped.Target[b][49]
	t.Logf("large flows' median slowdown: flowSim %.2f, window-capped %.2f, packetsim %.2f", p, c, pk)
	if !(c > p) || math.Abs(math.Log(c/pk)) >= math.Abs(math.Log(p/pk)) {
		t.Errorf("large flows' median slowdown: flowSim %.2f, window-capped %.2f, packetsim %.2f: want the cap to move it towards packetsim", p, c, pk)
	}
	task.Network.CC = "dcqcn" // no window_bytes: no cap
	r, err = RunTask(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.Sample(true)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := r.Sample(false); err != nil || !reflect.DeepEqual(a.Base, b.Base) {
		t.Errorf("dcqcn without a window: the window-capped base differs (%v)", err)
	}

	rng := rand.New(rand.NewPCG(9, 9))
	train, val := synthSplit(rng)
	train[3].WindowCap = true
	if _, err := Train(train, val, TrainOptions{Hidden: []int{4}, Epochs: 1}); err == nil || !strings.Contains(err.Error(), "mix flowSim bases") {
		t.Errorf("training on both bases: %v, want a refusal", err)
	}
	for _, s := range append(train, val...) {
		s.WindowCap = true
	}
	m, err := Train(train, val, TrainOptions{Hidden: []int{4}, Epochs: 1})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "w.model")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Info.WindowCap || !(Options{Model: back}).withDefaults().WindowCap {
		t.Error("a model of the window-capped base does not run with it")
	}
	plainModel, err := DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	net, flows := parkingLotFlows(t, 100, 2, 0.5, 4)
	if _, err := Run(context.Background(), net, flows, netcfg.Default(), Options{Model: plainModel, WindowCap: true}); err == nil || !strings.Contains(err.Error(), "window_cap") {
		t.Errorf("window_cap with a model of the plain base: %v, want a refusal", err)
	}
}
