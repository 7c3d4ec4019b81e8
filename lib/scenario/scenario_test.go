package scenario

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
