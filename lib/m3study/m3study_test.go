package m3study

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/metrics"
)

// The data manifest keeps the commit that started a data set, grows with
// larger task counts and refuses another seed, flow count, space or
// low-share draw.
func TestManifest(t *testing.T) {
	dir := t.TempDir()
	a := func(tasks int) Manifest { return Manifest{Tasks: tasks, Flows: 400, Seed: 1, GitCommit: "a"} }
	low := &m3.LowShare{MinShare: 1e-3, MaxShare: 0.2, FGFlows: 100, MaxFlows: 1000}
	steps := []struct {
		in      Manifest
		want    Manifest
		wantErr string
	}{
		{Manifest{Tasks: 10, Flows: 400, Seed: 1, GitCommit: "a"}, a(10), ""},
		{Manifest{Tasks: 30, Flows: 400, Seed: 1, GitCommit: "b"}, a(30), ""},
		{Manifest{Tasks: 20, Flows: 400, Seed: 1, GitCommit: "c"}, a(30), ""},
		{Manifest{Tasks: 30, Flows: 400, Seed: 2}, a(30), "seed 1 with 400 flows"},
		{Manifest{Tasks: 30, Flows: 500, Seed: 1}, a(30), "asked for seed 1 with 500"},
		{Manifest{Tasks: 30, Flows: 400, Seed: 1, Space: "table4"}, a(30), `in space "", low-share draw none; asked for seed 1 with 400 in "table4"`},
		{Manifest{Tasks: 30, Flows: 400, Seed: 1, LowShare: low}, a(30), "asked for seed 1 with 400 in \"\", {MinShare:0.001"},
	}
	for i, s := range steps {
		err := WriteManifest(dir, s.in)
		if (err == nil) != (s.wantErr == "") || (err != nil && !strings.Contains(err.Error(), s.wantErr)) {
			t.Fatalf("step %d: err = %v, want %q", i, err, s.wantErr)
		}
		got, err := ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, s.want) {
			t.Errorf("step %d: manifest %+v, want %+v", i, got, s.want)
		}
	}
}

// TestGendataTrain generates a tiny data set, trains a tiny model on it
// and checks the provenance against the ablations it reports, and the
// ablation frames against their summaries.
func TestGendataTrain(t *testing.T) {
	data := t.TempDir()
	if _, _, err := Train(TrainConfig{Data: data, Model: filepath.Join(data, "m.model")}); err == nil || !strings.Contains(err.Error(), "must come from 'tailscope m3 gendata'") {
		t.Fatalf("training without a manifest: %v", err)
	}
	rep, err := Gendata(context.Background(), data, m3.GenOptions{Tasks: 20, Flows: 150, Seed: 3}, experiment.Local{Workers: 2}, nil)
	if err != nil || rep.Ran != 20 {
		t.Fatalf("gendata: %+v, %v", rep, err)
	}
	model := filepath.Join(t.TempDir(), "m.model")
	_, abls, err := Train(TrainConfig{Data: data, Model: model, Command: "test", Options: m3.TrainOptions{Hidden: []int{8}, Epochs: 2, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(abls) != 2 || abls[0].Thin != 0 || abls[1].Thin != 1 {
		t.Fatalf("ablations %+v", abls)
	}
	p := readProvenance(t, model)
	if p.DataSeed != 3 || p.DataTasks != 20 || p.Commands["train"] != "test" || len(p.TestModelErr) != len(abls[0].ModErr) || len(p.Thin1Model) != len(abls[1].ModErr) {
		t.Errorf("provenance %+v does not match the data set and ablations", p)
	}
	dir := t.TempDir()
	for _, a := range abls {
		if err := a.Write(dir); err != nil {
			t.Fatal(err)
		}
		tab, err := frame.ReadTable(filepath.Join(dir, a.Name()+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		rows := 0
		for _, r := range a.Rows {
			rows += r
		}
		if tab.Len() != rows || tab.Meta.Extra["thin"] != map[int]string{0: "0", 1: "1"}[a.Thin] {
			t.Errorf("%s: %d rows, the buckets count %d; thin %q", a.Name(), tab.Len(), rows, tab.Meta.Extra["thin"])
		}
	}
	// A second directory of low-share tasks trains with the first as one
	// data set; the provenance names both and how each was made.
	low := t.TempDir()
	ls := &m3.LowShare{MinShare: 0.01, MaxShare: 0.2, FGFlows: 20, MaxFlows: 600}
	if rep, err := Gendata(context.Background(), low, m3.GenOptions{Tasks: 10, Flows: 150, Seed: 4, LowShare: ls}, experiment.Local{Workers: 2}, nil); err != nil || rep.Ran != 10 {
		t.Fatalf("low-share gendata: %+v, %v", rep, err)
	}
	if _, _, err := Train(TrainConfig{Data: data + "," + low, Model: model, Command: "test", Options: m3.TrainOptions{Hidden: []int{8}, Epochs: 1, Seed: 1}}); err != nil {
		t.Fatal(err)
	}
	p = readProvenance(t, model)
	g := p.Commands["gendata"]
	if p.DataTasks != 30 || len(p.DataSets) != 2 || !reflect.DeepEqual(p.DataSets[1].LowShare, ls) ||
		!strings.Contains(g, "-out "+data+" -seed 3 -tasks 20 -flows 150; ") || !strings.Contains(g, "-out "+low+" -seed 4 -tasks 10 -flows 150 -min-share 0.01 -max-share 0.2 -fg-flows 20 -max-flows 600") {
		t.Errorf("two data sets: %d tasks, data sets %+v, gendata %q", p.DataTasks, p.DataSets, g)
	}
}

// A network data set runs packetsim on whole scenarios; training draws
// their paths, splits them by scenario and learns from the packet-level
// slowdowns of the drawn paths' own flows or, pooled, of the whole
// network's.
func TestGendataNetwork(t *testing.T) {
	dir := t.TempDir()
	o := m3.GenOptions{Tasks: 10, Flows: 300, Seed: 1, Space: NetworkSpace}
	if _, err := Gendata(context.Background(), dir, o, experiment.Local{Workers: 2}, nil); err == nil || !strings.Contains(err.Error(), "test set's own scenarios") {
		t.Fatalf("seed 1: %v, want a refusal", err)
	}
	o.Seed = 5
	if _, _, err := Train(TrainConfig{Data: dir, Model: filepath.Join(dir, "m.model")}); err == nil {
		t.Fatal("trained on an empty directory")
	}
	m := Manifest{Tasks: o.Tasks, Flows: o.Flows, Seed: o.Seed, Space: NetworkSpace}
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadData(dir, LoadOptions{Seed: 1, NetworkPaths: 20}); err == nil || !strings.Contains(err.Error(), "has no packetsim run yet") {
		t.Fatalf("loading before the runs: %v", err)
	}
	rep, err := Gendata(context.Background(), dir, o, experiment.Local{Workers: 2}, nil)
	if err != nil || rep.Ran != 10 {
		t.Fatalf("gendata: %+v, %v", rep, err)
	}
	ds, _, err := LoadData(dir, LoadOptions{Seed: 1, NetworkPaths: 20})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Tasks != 10 || ds.Flows != 3000 || len(ds.Train) == 0 || len(ds.Val) == 0 || len(ds.Test) == 0 || len(ds.Train) < 4*len(ds.Val) {
		t.Fatalf("data set: %d scenarios, %d flows, %d / %d / %d samples", ds.Tasks, ds.Flows, len(ds.Train), len(ds.Val), len(ds.Test))
	}
	// Scenario 9 is held out: its samples' targets are its packetsim
	// run's slowdowns.
	specs, err := TestSetSpecs("", 10, 300, 5)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := experiment.Task{Spec: specs[9], Estimator: TestSetBaseline}.Records(dir)
	if err != nil {
		t.Fatal(err)
	}
	truth := map[float64]bool{}
	for _, r := range recs {
		truth[r.Slowdown] = true
	}
	for k, s := range ds.Test {
		for _, ys := range s.TargetFlows {
			for _, y := range ys {
				if !truth[y] {
					t.Fatalf("held-out sample %d: target %v is no slowdown of scenario 9's packetsim run", k, y)
				}
			}
		}
	}
	pooled, _, err := LoadData(dir, LoadOptions{Seed: 1, NetworkPaths: 20, NetworkPooled: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(pooled.Train)+len(pooled.Val)+len(pooled.Test) != 0 || len(pooled.TrainGroups) != 8 || len(pooled.ValGroups) != 1 || len(pooled.TestGroups) != 1 {
		t.Fatalf("pooled: %d / %d / %d samples, %d / %d / %d networks", len(pooled.Train), len(pooled.Val), len(pooled.Test),
			len(pooled.TrainGroups), len(pooled.ValGroups), len(pooled.TestGroups))
	}
	if p99, g := metrics.Percentile(metrics.Slowdowns(recs), 99), pooled.TestGroups[0]; g.Overall[98] != p99 || len(g.Samples) != len(ds.Test) {
		t.Errorf("held-out network: overall p99 %v, its packetsim run's %v; %d paths, %d unpooled", g.Overall[98], p99, len(g.Samples), len(ds.Test))
	}
	model := filepath.Join(t.TempDir(), "m.model")
	if _, _, err := Train(TrainConfig{Data: dir, Model: model, NetworkPaths: 20, NetworkPooled: true, Command: "test", Options: m3.TrainOptions{Hidden: []int{8}, Epochs: 1, Seed: 1}}); err == nil || !strings.Contains(err.Error(), "beside parking-lot samples") {
		t.Errorf("networks pooled without tasks: %v", err)
	}
	if _, _, err := Train(TrainConfig{Data: dir, Model: model, NetworkPaths: 20, Command: "test", Options: m3.TrainOptions{Hidden: []int{8}, Epochs: 1, Seed: 1}}); err != nil {
		t.Fatal(err)
	}
	// Beside parking-lot tasks the networks train pooled, and the
	// provenance reports the held-out network's overall p99 error.
	tasks := t.TempDir()
	if _, err := Gendata(context.Background(), tasks, m3.GenOptions{Tasks: 20, Flows: 150, Seed: 3}, experiment.Local{Workers: 2}, nil); err != nil {
		t.Fatal(err)
	}
	pooledModel := filepath.Join(t.TempDir(), "p.model")
	if _, _, err := Train(TrainConfig{Data: tasks + "," + dir, Model: pooledModel, NetworkPaths: 20, NetworkPooled: true, Command: "test", Options: m3.TrainOptions{Hidden: []int{8}, Epochs: 1, Seed: 1}}); err != nil {
		t.Fatal(err)
	}
	held := pooled.TestGroups[0]
	fs, err := held.Pool(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := math.Abs(metrics.P99Error(fs.Overall[m3.NumPercentiles-2], held.Overall[m3.NumPercentiles-2]))
	pp := readProvenance(t, pooledModel)
	if pp.Info.TrainGroups != 8 || pp.Info.ValGroups != 1 || len(pp.TestNetworks) != 2 || pp.TestNetworks[0].Rows != 1 ||
		pp.TestNetworks[0].CC != "all" || pp.TestNetworks[1].CC != specs[9].Network.CC || pp.TestNetworks[0].FlowSimErr != want {
		t.Errorf("pooled training: %d / %d networks, held-out networks %+v (flowSim's |p99 error| %v)", pp.Info.TrainGroups, pp.Info.ValGroups, pp.TestNetworks, want)
	}
	// Held-out networks of two data sets get a row over each set's.
	if held.Data != NetworkSpace {
		t.Errorf("held-out network of data set %q, want %q", held.Data, NetworkSpace)
	}
	other := *held
	other.Data = PresetsTlowNetworkSpace
	pm, err := m3.LoadModel(pooledModel)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := networkErrors(pm, []*m3.Group{held, &other})
	if err != nil {
		t.Fatal(err)
	}
	cc := specs[9].Network.CC
	wantRows := []CCError{{CC: "all", Rows: 2}, {CC: cc, Rows: 2}, {CC: "all", Data: PresetsTlowNetworkSpace, Rows: 1}, {CC: "all", Data: NetworkSpace, Rows: 1}}
	for i, r := range rows {
		if i >= len(wantRows) || r.CC != wantRows[i].CC || r.Data != wantRows[i].Data || r.Rows != wantRows[i].Rows || r.FlowSimErr != want || r.ModelErr != rows[0].ModelErr {
			t.Errorf("two data sets: held-out network rows %+v, want those of %+v with flowSim's error %v", rows, wantRows, want)
			break
		}
	}
	if len(rows) != len(wantRows) {
		t.Errorf("two data sets: %d rows, want %d", len(rows), len(wantRows))
	}
	if p := readProvenance(t, model); p.DataTasks != 10 || !strings.Contains(p.Commands["gendata"], "-space "+NetworkSpace) {
		t.Errorf("provenance: %d tasks, gendata %q", p.DataTasks, p.Commands["gendata"])
	}
}

// readProvenance reads the provenance Train wrote beside model.
func readProvenance(t *testing.T, model string) Provenance {
	t.Helper()
	b, err := os.ReadFile(model + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var p Provenance
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTlowSpecs checks that a Tlow space runs each windowless TIMELY
// network of its presets draws at every rung of the ladder, with nothing
// else changed, and splits the rungs together.
func TestTlowSpecs(t *testing.T) {
	for _, tc := range []struct {
		space, from string
	}{
		{PresetsTlowNetworkSpace, "presets"},
		{PresetsForkTlowNetworkSpace, "presets-fork"},
	} {
		const tasks = 12
		specs, split, err := networkSpecs(tc.space, tasks, 300, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(specs) != tasks || len(split) != tasks {
			t.Fatalf("%s: %d scenarios, %d split indices, want %d", tc.space, len(specs), len(split), tasks)
		}
		draws, err := TestSetSpecs(tc.from, split[tasks-1]+1, 300, 2)
		if err != nil {
			t.Fatal(err)
		}
		timely := 0
		for _, d := range draws {
			if d.Network.CC == "timely" && d.Network.TIMELY.WindowBytes == 0 {
				timely++
			}
		}
		if timely != tasks/len(TlowLadder) {
			t.Errorf("%s: %d windowless TIMELY networks among the first %d draws, want %d", tc.space, timely, len(draws), tasks/len(TlowLadder))
		}
		for k, s := range specs {
			want := draws[split[k]]
			want.Name = fmt.Sprintf("%s-tlow%dus", want.Name, TlowLadder[k%len(TlowLadder)]/1000)
			want.Network.TIMELY.TLowNanos = TlowLadder[k%len(TlowLadder)]
			if !reflect.DeepEqual(s, want) {
				t.Errorf("%s: scenario %d is not draw %d at Tlow %d ns: %+v", tc.space, k, split[k], want.Network.TIMELY.TLowNanos, s)
			}
			if k%len(TlowLadder) > 0 && split[k] != split[k-1] {
				t.Errorf("%s: scenario %d split by %d, its ladder's first rung by %d", tc.space, k, split[k], split[k-1])
			}
		}
	}
	if _, _, err := networkSpecs(PresetsTlowNetworkSpace, 10, 300, 2); err == nil || !strings.Contains(err.Error(), "multiple of 3") {
		t.Errorf("10 scenarios: %v, want a refusal naming the multiple", err)
	}
	if !IsNetworkSpace(PresetsForkTlowNetworkSpace) {
		t.Error("the fork Tlow space is not a network space")
	}
}
