package validate_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/ns3"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/validate"
)

// Every case's flows must load the part of the network the case is about:
// the dumbbell's bottleneck carries every flow, the parking lot mixes paths
// of 2, 3 and 4 channels (sharing 1 to 4 links of its chain), and each case
// reaches its target load.
func TestCases(t *testing.T) {
	cases, err := validate.Cases(300, []float64{0.3, 0.6}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 6 {
		t.Fatalf("%d cases, want 3 topologies x 2 loads", len(cases))
	}
	for _, c := range cases {
		sc, err := scenario.Build(c.Spec)
		if err != nil {
			t.Fatalf("%s: %v", c.Name(), err)
		}
		if sc.Spec.Network.CC != "dctcp-window" || sc.Spec.Network.HeaderBytes != 54 {
			t.Errorf("%s: network %+v is not ns-3's", c.Name(), sc.Spec.Network)
		}
		loads, err := metrics.LinkLoads(sc.Net, sc.Flows)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(loads.Max-c.Load) > 0.03*c.Load {
			t.Errorf("%s: max load %.3f", c.Name(), loads.Max)
		}
		hops := map[int]int{}
		for _, f := range sc.Flows {
			p, err := sc.Net.Path(f.ID, f.Src, f.Dst)
			if err != nil {
				t.Fatal(err)
			}
			hops[len(p)]++
		}
		switch c.Topology {
		case "dumbbell":
			if len(hops) != 1 || hops[3] != len(sc.Flows) {
				t.Errorf("%s: path lengths %v, want every flow over host-switch-switch-host (3 hops)", c.Name(), hops)
			}
		case "parking-lot-4":
			for h := 2; h <= 4; h++ {
				if hops[h] == 0 {
					t.Errorf("%s: no flow of %d hops (%v)", c.Name(), h, hops)
				}
			}
		}
	}
	for _, bad := range []struct {
		flows int
		loads []float64
	}{{0, []float64{0.3}}, {10, nil}, {10, []float64{1}}, {10, []float64{-0.2}}} {
		if _, err := validate.Cases(bad.flows, bad.loads, 1); err == nil {
			t.Errorf("Cases(%d, %v): no error", bad.flows, bad.loads)
		}
	}
}

// packetsim-window runs each case's spec as it is, the ns3 preset with
// its FIFO host NICs, and no options; packetsim-rate runs the papers'
// model, round-robin NICs included.
func TestTasksUseThePreset(t *testing.T) {
	cases, err := validate.Cases(100, []float64{0.3}, 1)
	if err != nil {
		t.Fatal(err)
	}
	ts := validate.Tasks(cases)
	if len(ts) != 3*len(cases) {
		t.Fatalf("%d tasks for %d cases", len(ts), len(cases))
	}
	for i, c := range cases {
		n3, window, rate := ts[3*i], ts[3*i+1], ts[3*i+2]
		if !c.Spec.Network.HostFIFO() || n3.Spec.Network != c.Spec.Network {
			t.Errorf("%s: ns3 network %+v, want the ns3 preset", c.Name(), n3.Spec.Network)
		}
		if window.Estimator != "packetsim" || window.Options != "" || window.Spec.Network != c.Spec.Network {
			t.Errorf("%s: packetsim-window task %s %q on %+v, want packetsim without options on the case's network", c.Name(), window.Estimator, window.Options, window.Spec.Network)
		}
		if rn := rate.Spec.Network; rn.HostFIFO() || rn.CC != "dctcp" || rn.ECNMark != "dequeue" {
			t.Errorf("%s: packetsim-rate network %+v, want rate-based DCTCP, dequeue marking, round-robin NICs", c.Name(), rn)
		}
	}
}

// CasesOn runs the large fabric only when named, and WithMatrix sets the
// fabrics' matrix alone, naming it in the case.
func TestCasesOnAndMatrix(t *testing.T) {
	cases, err := validate.CasesOn([]string{"parking-lot-4", "meta384-2:1"}, 100, []float64{0.5}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 2 || cases[1].Topology != "meta384-2:1" {
		t.Fatalf("cases %v", cases)
	}
	withA, err := validate.WithMatrix(cases, "A")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct{ matrix, name string }{{"", "parking-lot-4 @ 50%"}, {"A", "meta384-2:1 @ 50%, matrix A"}} {
		c := withA[i]
		if got := c.Spec.Workload.Components[0].Matrix; got != want.matrix || c.Name() != want.name {
			t.Errorf("case %d: matrix %q, name %q; want %q, %q", i, got, c.Name(), want.matrix, want.name)
		}
	}
	if cases[1].Spec.Workload.Components[0].Matrix != "B" || cases[1].Name() != "meta384-2:1 @ 50%" {
		t.Errorf("WithMatrix changed its input: %q", cases[1].Name())
	}
	sc, err := scenario.Build(withA[1].Spec)
	if err != nil {
		t.Fatal(err)
	}
	if hosts := len(sc.Net.Hosts()); hosts != 6144 {
		t.Errorf("%d hosts, want 6144", hosts)
	}
	for _, bad := range []struct {
		tops   []string
		matrix string
		want   string
	}{{[]string{"meta64"}, "B", `unknown topology "meta64"`}, {[]string{"dumbbell"}, "D", `unknown traffic matrix "D"`}} {
		cs, err := validate.CasesOn(bad.tops, 10, []float64{0.3}, 1)
		if err == nil {
			_, err = validate.WithMatrix(cs, bad.matrix)
		}
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%v, matrix %s: %v, want %q", bad.tops, bad.matrix, err, bad.want)
		}
	}
}

// Finite gives every case the buffer, names it, and leaves the flows and
// the rest of the network alone.
func TestFinite(t *testing.T) {
	cases, err := validate.Cases(300, []float64{0.6}, 1)
	if err != nil {
		t.Fatal(err)
	}
	fin, err := validate.Finite(cases, 50_000)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range fin {
		want := cases[i].Spec
		want.Network.BufferBytes = 50_000
		if c.Spec.Network != want.Network || c.Spec.Workload.Flows != want.Workload.Flows || c.Spec.Seed != want.Seed {
			t.Errorf("%s: spec %+v, want %+v", c.Name(), c.Spec, want)
		}
		if !strings.HasSuffix(c.Name(), ", buffer 50000 B") || !strings.HasPrefix(c.Name(), cases[i].Name()) {
			t.Errorf("name %q", c.Name())
		}
	}
	for _, b := range []int64{0, -1} {
		if _, err := validate.Finite(cases, b); err == nil {
			t.Errorf("Finite(%d): no error", b)
		}
	}
}

// needNS3 fails the test when ns-3 is missing, or skips it when
// TAILSCOPE_NO_NS3=1 (as in package ns3).
func needNS3(t *testing.T) {
	t.Helper()
	if err := ns3.Available(); err != nil {
		if os.Getenv("TAILSCOPE_NO_NS3") == "1" {
			t.Skipf("TAILSCOPE_NO_NS3=1: %v", err)
		}
		t.Fatalf("%v (or set TAILSCOPE_NO_NS3=1 to skip the ns-3 tests)", err)
	}
}

// The suite at CI scale (1000 flows per case) against real ns-3. At this
// size a bin's p99 rests on a handful of flows, so single bins wander by
// 10-25% either way (at 5000 flows per case all but one of 36 per-bin p99s
// are within 10%; the README has the numbers). The test asserts what holds
// at any size: packetsim configured like stock ns-3 agrees with it on
// average (mean |p99 error| over the bins with at least 100 flows under
// 10%), never grossly (each such bin within 30%, every case's median within
// 15%), and far better than the rate-based model of the papers' fork (less
// than half its mean error). A rerun finds every result in place.
func TestAgainstNS3(t *testing.T) {
	needNS3(t)
	cases, err := validate.Cases(1000, []float64{0.3, 0.6}, 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	outs, err := validate.Run(context.Background(), dir, cases, experiment.Local{Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := validate.Compare(outs)
	if want := len(cases) * 2 * len(validate.Percentiles) * 4; len(rows) != want {
		t.Fatalf("%d comparison rows, want %d", len(rows), want)
	}
	sum, n := map[string]float64{}, map[string]int{}
	for _, r := range rows {
		switch {
		case r.Percentile == 99 && r.Bin != "all" && r.Flows >= 100:
			sum[r.Estimator] += math.Abs(r.Error)
			n[r.Estimator]++
			if r.Estimator == validate.Window && math.Abs(r.Error) > 0.30 {
				t.Errorf("%s, %s, p99: packetsim-window %.3f vs ns-3 %.3f (%+.1f%%, limit 30%%)", r.Case.Name(), r.Bin, r.Est, r.NS3, 100*r.Error)
			}
		case r.Percentile == 50 && r.Bin == "all" && r.Estimator == validate.Window:
			if math.Abs(r.Error) > 0.15 {
				t.Errorf("%s, p50: packetsim-window %.3f vs ns-3 %.3f (%+.1f%%, limit 15%%)", r.Case.Name(), r.Est, r.NS3, 100*r.Error)
			}
		}
	}
	win, rate := sum[validate.Window]/float64(n[validate.Window]), sum[validate.Rate]/float64(n[validate.Rate])
	t.Logf("mean |p99 error| over %d bins: packetsim-window %.1f%%, packetsim-rate %.1f%%", n[validate.Window], 100*win, 100*rate)
	if n[validate.Window] < len(cases) || !(win < 0.10) || !(win < rate/2) {
		t.Errorf("mean |p99 error| over %d bins: packetsim-window %.1f%% (limit 10%%), packetsim-rate %.1f%% (must be over twice)", n[validate.Window], 100*win, 100*rate)
	}
	t.Log(validate.Markdown(outs))

	rep, err := experiment.Sweep(context.Background(), dir, validate.Tasks(cases), experiment.Local{}, nil)
	if err != nil || rep.Ran != 0 || rep.Skipped != rep.Total {
		t.Errorf("rerun: %+v, %v; want every task skipped", rep, err)
	}

	tab := validate.Table(outs)
	path := filepath.Join(dir, "validate.parquet")
	if err := frame.WriteTable(path, tab); err != nil {
		t.Fatal(err)
	}
	back, err := frame.ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Len() != len(rows) {
		t.Errorf("frame has %d rows, want %d", back.Len(), len(rows))
	}
	fig, err := validate.Figure(outs)
	if err != nil {
		t.Fatal(err)
	}
	if err := plot.Save(fig, filepath.Join(dir, "validate.svg")); err != nil {
		t.Fatal(err)
	}
	// Per case: a header, a separator and a row per percentile and bin.
	md := validate.Markdown(outs)
	if got, want := strings.Count(md, "\n| "), len(cases)*(2+len(validate.Percentiles)*4); got != want {
		t.Errorf("markdown has %d table lines, want %d:\n%s", got, want, md)
	}
}

// A small finite-buffer case runs on every side with drops counted: the
// buffer below the dumbbell's burst drops packets in ns-3 and in packetsim
// (window and rate), every flow still finishes, and the report shows the
// drops.
func TestFiniteAgainstNS3(t *testing.T) {
	needNS3(t)
	all, err := validate.Cases(300, []float64{0.6}, 1)
	if err != nil {
		t.Fatal(err)
	}
	cases, err := validate.Finite(all[:1], 40_000) // the dumbbell
	if err != nil {
		t.Fatal(err)
	}
	outs, err := validate.Run(context.Background(), t.TempDir(), cases, experiment.Local{Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := outs[0]
	for _, name := range validate.Names {
		if o.Drops[name] <= 0 || len(o.Records[name]) != o.Flows {
			t.Errorf("%s: %d drops, %d records of %d flows; want drops and every flow", name, o.Drops[name], len(o.Records[name]), o.Flows)
		}
	}
	// Both stock TCPs (ns-3's and packetsim-window's) recover their
	// losses by timeouts or fast recoveries and count them.
	for _, name := range []string{ns3.Name, validate.Window} {
		if o.Timeouts[name]+o.FastRecoveries[name] == 0 {
			t.Errorf("%s: %d drops recovered without a timeout or a fast recovery", name, o.Drops[name])
		}
	}
	md := validate.Markdown(outs)
	for _, want := range []string{
		fmt.Sprintf("packets dropped: ns-3 %d, packetsim-window %d", o.Drops[ns3.Name], o.Drops[validate.Window]),
		fmt.Sprintf("timeouts / fast recoveries: ns-3 %d / %d, packetsim-window %d / %d", o.Timeouts[ns3.Name], o.FastRecoveries[ns3.Name], o.Timeouts[validate.Window], o.FastRecoveries[validate.Window]),
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
	t.Log(md)
}

// The suite's cases: every topology at every load.
func ExampleCases() {
	cases, err := validate.Cases(2000, []float64{0.3, 0.6}, 1)
	if err != nil {
		panic(err)
	}
	for _, c := range cases {
		fmt.Println(c.Name(), c.Spec.Workload.Flows, c.Spec.Network.CC)
	}
	// Output:
	// dumbbell @ 30% 2000 dctcp-window
	// dumbbell @ 60% 2000 dctcp-window
	// parking-lot-4 @ 30% 2000 dctcp-window
	// parking-lot-4 @ 60% 2000 dctcp-window
	// meta32-2:1 @ 30% 2000 dctcp-window
	// meta32-2:1 @ 60% 2000 dctcp-window
}
