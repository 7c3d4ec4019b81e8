package metrics

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// A LoadMeter fed flow by flow measures what LinkLoads measures on the
// same flows (routed in parallel by workload.ChannelBytes), and refuses
// the same degenerate workloads.
func TestLoadMeter(t *testing.T) {
	fs, err := topo.Preset("meta32-2:1")
	if err != nil {
		t.Fatal(err)
	}
	net, err := topo.Fabric(fs)
	if err != nil {
		t.Fatal(err)
	}
	flows, err := workload.Generate(net, workload.Spec{Flows: 5000, Components: []workload.Component{{
		Matrix: "A", Sizes: workload.SizeSpec{Dist: "webserver"},
		Arrival: workload.Arrival{Process: "lognormal", Sigma: 2}, MaxLoad: 0.4,
	}}}, 7)
	if err != nil {
		t.Fatal(err)
	}
	same := []workload.Flow{flows[0], flows[1]}
	same[1].Start = same[0].Start
	for _, tc := range []struct {
		name    string
		flows   []workload.Flow
		wantErr string
	}{
		{name: "5000 flows", flows: flows},
		{name: "none", wantErr: "at least two flows"},
		{name: "one", flows: flows[:1], wantErr: "at least two flows"},
		{name: "one start time", flows: same, wantErr: "same time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := NewLoadMeter(net)
			for _, f := range tc.flows {
				if err := m.Add(f); err != nil {
					t.Fatal(err)
				}
			}
			got, err := m.Loads()
			want, werr := LinkLoads(net, tc.flows)
			if tc.wantErr != "" {
				if err == nil || werr == nil || !strings.Contains(err.Error(), tc.wantErr) || err.Error() != werr.Error() {
					t.Fatalf("errors %v and %v, want %q from both", err, werr, tc.wantErr)
				}
				return
			}
			if err != nil || werr != nil {
				t.Fatal(err, werr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("LoadMeter: max %g on %d, top-10%% %g; LinkLoads: max %g on %d, top-10%% %g", got.Max, got.MaxChannel, got.Top10, want.Max, want.MaxChannel, want.Top10)
			}
			if got.Max < 0.39 || got.Max > 0.41 {
				t.Errorf("max load %g, the workload targets 0.4", got.Max)
			}
		})
	}
}
