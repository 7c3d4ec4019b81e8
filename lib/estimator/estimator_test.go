package estimator

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/frame"
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
		if name == "ns3" {
			continue // needs the ns-3 installation; lib/ns3 tests it
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
	} {
		_, err := Run(context.Background(), tc.name, sc, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%s, %s): err = %v, want %q", tc.name, tc.opts, err, tc.want)
		}
	}
}
