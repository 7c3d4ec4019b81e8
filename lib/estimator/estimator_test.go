package estimator

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

func small(t *testing.T) *scenario.Scenario {
	s := scenario.Default()
	s.Topology = scenario.Topology{Dumbbell: &topo.DumbbellSpec{Senders: 4, Receivers: 4}}
	s.Workload = workload.Spec{Flows: 300, Components: []workload.Component{{
		Pairs: [][2]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}}, Sizes: workload.SizeSpec{Dist: "webserver"},
		Arrival: workload.Arrival{Process: "poisson"}, MaxLoad: 0.4,
	}}}
	sc, err := scenario.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestRunAndWrite(t *testing.T) {
	sc := small(t)
	for _, name := range Names() {
		switch name {
		case "ns3":
			continue // needs the ns-3 installation; lib/ns3 tests it
		case ParsimonLink:
			continue // records of one link simulation; lib/experiment tests it
		}
		t.Run(name, func(t *testing.T) {
			res, err := Run(context.Background(), name, sc, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Records) != len(sc.Flows) {
				t.Fatalf("%d records for %d flows", len(res.Records), len(sc.Flows))
			}
			for i, r := range res.Records {
				f := sc.Flows[i]
				if r.FlowID != f.ID || r.Size != f.Size || r.Start != f.Start {
					t.Fatalf("record %d = %+v does not match flow %+v", i, r, f)
				}
				if r.FCT < r.Ideal || r.Slowdown < 1 {
					t.Fatalf("record %d finishes faster than its ideal: %+v", i, r)
				}
			}
			path := filepath.Join(t.TempDir(), name+".parquet")
			if err := res.Write(path, sc); err != nil {
				t.Fatal(err)
			}
			back, meta, err := frame.ReadRecords(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(back) != len(res.Records) || meta.Estimator != name || meta.ScenarioID != sc.ID || meta.Spec != sc.Spec.JSON() {
				t.Errorf("frame read back: %d records, meta %+v", len(back), meta)
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	sc := small(t)
	for _, tc := range []struct{ name, opts, want string }{
		{"nosuch", "", "unknown estimator \"nosuch\""},
		{"packetsim", `{"bogus":1}`, "unknown field \"bogus\""},
		{"packetsim", `{`, "bad options"},
		{"m3", `{"model":"no/such/file.model"}`, "no/such/file.model"},
		{"m3", `{"samples":-1}`, "samples"},
	} {
		_, err := Run(context.Background(), tc.name, sc, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%s, %s): err = %v, want %q", tc.name, tc.opts, err, tc.want)
		}
	}
}

// The m3 adapter passes its options through: the embedded model by
// default, flowSim alone with model "none", seed 0 meaning the scenario's
// seed, and a model file by path, each the same as calling m3.Run.
func TestM3Options(t *testing.T) {
	sc := small(t)
	model, err := m3.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "copy.model")
	if err := model.Save(path); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts  string
		model *m3.Model
		seed  uint64
	}{
		{"", model, sc.Spec.Seed},
		{`{"model":"none","samples":50,"seed":9}`, nil, 9},
		{`{"model":"` + path + `","samples":50}`, model, sc.Spec.Seed},
	} {
		res, err := Run(context.Background(), "m3", sc, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		o := m3.Options{Seed: tc.seed, Model: tc.model}
		if strings.Contains(tc.opts, "samples") {
			o.Samples = 50
		}
		want, err := m3.Run(sc.Net, sc.Flows, sc.Spec.Network, o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Records, want.Records) {
			t.Errorf("options %s: records differ from m3.Run with %+v", tc.opts, o)
		}
		if res.Extra["paths"] != strconv.Itoa(want.Paths) || res.Extra["paths_simulated"] != strconv.Itoa(want.Simulated) {
			t.Errorf("options %s: extra %v, want %d paths, %d simulated", tc.opts, res.Extra, want.Paths, want.Simulated)
		}
	}
}

// Two runs of the same scenario, estimator and options write byte-identical
// frames (their wall times, which differ, go to the run logs).
func TestRerunsWriteIdenticalFrames(t *testing.T) {
	sc := small(t)
	for _, name := range []string{"packetsim", "flowsim"} {
		var frames [2][]byte
		for i := range frames {
			res, err := Run(context.Background(), name, sc, "")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), name+".parquet")
			if err := res.Write(path, sc); err != nil {
				t.Fatal(err)
			}
			if frames[i], err = os.ReadFile(path); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(frames[0], frames[1]) {
			t.Errorf("%s: two runs wrote different frames", name)
		}
	}
}

func TestCheck(t *testing.T) {
	if err := Check("packetsim", "flowsim"); err != nil {
		t.Error(err)
	}
	for _, names := range [][]string{nil, {"packetsim", "bogus"}, {""}} {
		if err := Check(names...); err == nil {
			t.Errorf("Check(%q) accepted", names)
		}
	}
}
