package scenario

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

func TestDefaultBuilds(t *testing.T) {
	s := Default()
	s.Workload.Flows = 5000
	sc, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Flows) != 5000 || len(sc.Net.Hosts()) != 256 {
		t.Fatalf("%d flows on %d hosts", len(sc.Flows), len(sc.Net.Hosts()))
	}
	// The spec survives a JSON round trip unchanged, so its ID is stable.
	back, err := Parse(strings.NewReader(s.JSON()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) || back.ID() != s.ID() {
		t.Fatalf("round trip changed the spec:\n%s\n%s", s.JSON(), back.JSON())
	}
	s.Seed++
	if s.ID() == sc.ID {
		t.Error("a different seed must give a different id")
	}
}

func TestParseKeepsNetworkDefaults(t *testing.T) {
	s, err := Parse(strings.NewReader(`{"topology":{"dumbbell":{"senders":2,"receivers":2}},
	  "workload":{"flows":100,"components":[{"matrix":"uniform","sizes":{"dist":"exp","mean":5000},"arrival":{"process":"poisson"},"max_load":0.3}]},
	  "network":{"k_bytes":20000},"seed":4}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Network.KBytes != 20000 || s.Network.PayloadBytes != 1000 || s.Network.DCTCP.G != 1.0/16 {
		t.Errorf("network = %+v: want k_bytes set and defaults kept", s.Network)
	}
	if _, err := Build(s); err != nil {
		t.Fatal(err)
	}
}

func TestTopologyFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "topology.txt")
	if err := os.WriteFile(p, []byte("4 2 3\n2 3\n0 2 10Gbps 1us 0\n2 3 10Gbps 1us 0\n3 1 10Gbps 1us 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := Topology{File: p}.Build()
	if err != nil {
		t.Fatal(err)
	}
	if path, err := n.Path(0, 0, 1); err != nil || len(path) != 3 {
		t.Errorf("path %v, %v", path, err)
	}
}

func TestBadSpecs(t *testing.T) {
	tests := []struct{ name, json, want string }{
		{"not json", `{"topology":`, "malformed spec"},
		{"unknown field", `{"topolgy":{}}`, "unknown field \"topolgy\""},
		{"two values", `{} {}`, "more than one"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.json))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	build := []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"no topology", func(s *Spec) { s.Topology = Topology{} }, "exactly one"},
		{"two topologies", func(s *Spec) { s.Topology.File = "x.json" }, "exactly one"},
		{"unknown preset", func(s *Spec) { s.Topology.Preset = "meta64" }, "unknown fabric preset \"meta64\""},
		{"missing file", func(s *Spec) { s.Topology = Topology{File: "no/such/topology.txt"} }, "no such file"},
		{"failed link", func(s *Spec) { s.Topology.FailedLinks = []int{100000} }, "no link 100000"},
		{"impossible load", func(s *Spec) { s.Workload.Components[0].MaxLoad = 1.2 }, "impossible max_load"},
		{"unknown cc", func(s *Spec) { s.Network.CC = "reno" }, "unknown congestion control \"reno\""},
		{"unknown sizes", func(s *Spec) { s.Workload.Components[0].Sizes.Dist = "bimodal" }, "bimodal"},
	}
	for _, tc := range build {
		t.Run(tc.name, func(t *testing.T) {
			s := Default()
			s.Workload.Flows = 100
			tc.edit(&s)
			_, err := Build(s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// The ID leaves network fields at their defaults out, so a field added to
// netcfg later leaves existing IDs in place, while any value that differs
// from the default still names a different scenario.
func TestIDIgnoresNetworkDefaults(t *testing.T) {
	base := Default()
	if got := string(base.idJSON()); !strings.Contains(got, `"network":{}`) {
		t.Errorf("default network hashed as %s, want an empty block", got)
	}
	explicit := base
	explicit.Network.KBytesPerGbps = base.Network.KBytesPerGbps
	explicit.Network.HPCC.Eta = base.Network.HPCC.Eta
	if explicit.ID() != base.ID() {
		t.Error("restating a default changed the ID")
	}
	for _, tc := range []struct {
		name   string
		change func(*Spec)
	}{
		{"top-level field", func(s *Spec) { s.Network.KBytes = 20000 }},
		{"nested field", func(s *Spec) { s.Network.HPCC.Eta = 0.9 }},
		{"cc name", func(s *Spec) { s.Network.CC = "hpcc" }},
		{"bool to false", func(s *Spec) { s.Network.DCTCP.VarWin = !s.Network.DCTCP.VarWin }},
		{"workload", func(s *Spec) { s.Workload.Flows++ }},
		{"seed", func(s *Spec) { s.Seed++ }},
	} {
		s := Default()
		tc.change(&s)
		if s.ID() == base.ID() {
			t.Errorf("%s: changing it kept the ID %s", tc.name, s.ID())
		}
	}
}

// A failed link changes the routes and never the flows: the spec with
// failed links draws the flows of the intact spec (the workload targets
// its load on the intact network), shares its WorkloadID, and no flow of
// it is routed over a failed link. Streaming (BuildNet, Source) draws
// the same flows.
func TestFailedLinksKeepTheWorkload(t *testing.T) {
	// Uniform traffic of small flows, so that the busiest channel is not
	// a host link made so by a few large flows, but the one spine uplink
	// left to a fabric switch whose other uplinks fail.
	intact := Default()
	intact.Workload.Flows = 2000
	intact.Workload.Components[0].Matrix = "uniform"
	intact.Workload.Components[0].Sizes = workload.SizeSpec{Dist: "exp", Mean: 10_000}
	net, err := intact.Topology.Build()
	if err != nil {
		t.Fatal(err)
	}
	uplinks := map[int][]int{}
	busiest := -1
	for _, l := range net.Links {
		if net.Nodes[l.A].Kind == topo.Switch && net.Nodes[l.B].Kind == topo.Switch {
			uplinks[l.A] = append(uplinks[l.A], l.ID)
			if busiest < 0 || len(uplinks[l.A]) > len(uplinks[busiest]) {
				busiest = l.A
			}
		}
	}
	failed := intact
	failed.Topology.FailedLinks = uplinks[busiest][1:]
	a, err := Build(intact)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(failed)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Flows, b.Flows) {
		t.Fatal("failing links changed the flows")
	}
	// The test discriminates: targeting the load on the failed network
	// would have drawn other flows.
	if onFailed, err := workload.Generate(b.Net, failed.Workload, failed.Seed); err != nil || reflect.DeepEqual(onFailed, a.Flows) {
		t.Fatalf("setup: the failure of %d uplinks does not move the max load (%v)", len(failed.Topology.FailedLinks), err)
	}
	if a.ID == b.ID || intact.WorkloadID() != failed.WorkloadID() {
		t.Errorf("ids %s and %s, workload ids %s and %s: want different ids, one workload id", a.ID, b.ID, intact.WorkloadID(), failed.WorkloadID())
	}
	rerouted := 0
	for _, f := range b.Flows {
		pa, err := a.Net.Path(f.ID, f.Src, f.Dst)
		if err != nil {
			t.Fatal(err)
		}
		pb, err := b.Net.Path(f.ID, f.Src, f.Dst)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range pb {
			if b.Net.Failed(c / 2) {
				t.Fatalf("flow %d is routed over failed link %d", f.ID, c/2)
			}
		}
		if !reflect.DeepEqual(pa, pb) {
			rerouted++
		}
	}
	if rerouted == 0 {
		t.Error("no flow was rerouted around the failed links")
	}
	sc, err := BuildNet(failed)
	if err != nil {
		t.Fatal(err)
	}
	src, err := sc.Source()
	if err != nil {
		t.Fatal(err)
	}
	for i := range b.Flows {
		f, ok := src.Next()
		if !ok || f != b.Flows[i] {
			t.Fatalf("streamed flow %d = %+v (%v), want %+v", i, f, ok, b.Flows[i])
		}
	}
	other := intact
	other.Network.CC = "hpcc"
	if other.WorkloadID() != intact.WorkloadID() || other.ID() == intact.ID() {
		t.Error("a network change must keep the workload id and change the id")
	}
	other.Seed++
	if other.WorkloadID() == intact.WorkloadID() {
		t.Error("another seed must change the workload id")
	}
}

// A spec naming a network preset is the spec with the configuration
// spelled out: the same JSON and ID.
func TestNetworkPresetHashesResolved(t *testing.T) {
	named, err := Parse(strings.NewReader(`{"topology":{"preset":"meta32-2:1"},"workload":{"flows":10,"components":[{"matrix":"B","sizes":{"dist":"webserver"},"arrival":{"process":"poisson"},"max_load":0.3}]},"network":{"preset":"hpcc","hpcc":{"eta":0.9}},"seed":1}`))
	if err != nil {
		t.Fatal(err)
	}
	spelled := named
	spelled.Network = netcfg.Default()
	spelled.Network.CC, spelled.Network.HPCC.Eta = "hpcc", 0.9
	if named.ID() != spelled.ID() || named.JSON() != spelled.JSON() || strings.Contains(named.JSON(), "preset\":\"hpcc") {
		t.Errorf("preset spec %s\nwant %s", named.JSON(), spelled.JSON())
	}
}

// fork-hpcc's T stands for the network's until the scenario is built:
// then it is twice the longest host-to-host propagation delay, 6000 ns
// on an 8x8 dumbbell of 1 us links (the maxRtt the fork's log prints
// for it), while the ID stays that of the spec as written.
func TestNetworkResolvedOnBuild(t *testing.T) {
	spec, err := Parse(strings.NewReader(`{"topology":{"dumbbell":{"senders":8,"receivers":8}},"workload":{"flows":10,"components":[{"sizes":{"dist":"webserver"},"arrival":{"process":"poisson"},"max_load":0.3}]},"network":{"preset":"fork-hpcc"},"seed":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if spec.Network.HPCC.BaseRTTNanos != netcfg.NetworkBaseRTT {
		t.Fatalf("parsed T %d, want %d until built", spec.Network.HPCC.BaseRTTNanos, netcfg.NetworkBaseRTT)
	}
	sc, err := Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Spec.Network.HPCC.BaseRTTNanos; got != 6000 {
		t.Errorf("built T %d ns, want 6000", got)
	}
	if sc.ID != spec.ID() {
		t.Errorf("ID %s, want the written spec's %s", sc.ID, spec.ID())
	}
	if g := sc.Given(); g.ID() != sc.ID || g.Network.HPCC.BaseRTTNanos != netcfg.NetworkBaseRTT {
		t.Errorf("given spec has ID %s and T %d, want %s and %d", g.ID(), g.Network.HPCC.BaseRTTNanos, sc.ID, netcfg.NetworkBaseRTT)
	}
}
