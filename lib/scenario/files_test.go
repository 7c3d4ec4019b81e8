package scenario

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// writeFile writes s to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, s string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// lineTopology is a 4-node chain host 0 - switch 2 - switch 3 - host 1
// whose middle link has delay d.
func lineTopology(d string) string {
	return "4 2 3\n2 3\n0 2 10Gbps 1us 0\n2 3 10Gbps " + d + " 0\n3 1 10Gbps 1us 0\n"
}

const fileSpec = `{"topology":{"file":"net/topology.txt"},
  "workload":{"flows":50,"components":[{"matrix":"uniform","sizes":{"dist":"exp","mean":5000},"arrival":{"process":"poisson"},"max_load":0.3}]},
  "seed":1}`

// The scenario ID covers the contents of the files a spec names: one
// byte of the topology file (a link's delay, 1us to 5us) makes a new
// scenario; the same bytes under another folder are the same scenario.
func TestIDCoversFileContents(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "net/topology.txt", lineTopology("1us"))
	specPath := writeFile(t, dir, "spec.json", fileSpec)
	s, err := Load(specPath)
	if err != nil {
		t.Fatal(err)
	}
	before := s.ID()
	if again, _ := Load(specPath); again.ID() != before {
		t.Fatalf("the same files give IDs %s and %s", before, again.ID())
	}
	// Elsewhere, same bytes: same ID.
	other := t.TempDir()
	writeFile(t, other, "net/topology.txt", lineTopology("1us"))
	moved, err := Load(writeFile(t, other, "spec.json", fileSpec))
	if err != nil {
		t.Fatal(err)
	}
	if moved.ID() != before {
		t.Errorf("the same files in another folder give ID %s, want %s", moved.ID(), before)
	}
	writeFile(t, dir, "net/topology.txt", lineTopology("5us"))
	if s.ID() == before {
		t.Fatalf("changing a link's delay in the topology file kept ID %s", before)
	}
	if s.WorkloadID() == moved.WorkloadID() || s.FamilyID() == moved.FamilyID() {
		t.Error("the workload and family IDs must cover the topology file too")
	}
	sc, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	if d := sc.Net.Links[1].Delay; d != 5*topo.Microsecond {
		t.Errorf("built delay %d ns, want 5000", d)
	}
	if sc.ID != s.ID() {
		t.Errorf("built scenario's ID %s, spec's %s", sc.ID, s.ID())
	}
}

// Every kind of file a spec names is in its ID: a matrix CSV and a size
// CDF, relative to the spec's folder, whatever the working directory.
func TestRelativePathsAndDigests(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "fab.txt", lineTopology("1us"))
	writeFile(t, dir, "m.csv", "1,2\n3,4\n")
	writeFile(t, dir, "cdf/sizes.csv", "1000,0\n2000,0.5\n9000,1\n")
	spec := `{"topology":{"preset":"meta32-2:1"},"workload":{"flows":50,"components":[{"matrix":"m.csv","sizes":{"dist":"empirical","file":"cdf/sizes.csv"},"arrival":{"process":"poisson"},"max_load":0.3}]},"seed":1}`
	p := writeFile(t, dir, "sub/../spec.json", spec)
	t.Chdir(t.TempDir()) // paths must not depend on the working directory
	s, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Workload.Components[0]
	if c.Matrix != filepath.Join(dir, "m.csv") || c.Sizes.File != filepath.Join(dir, "cdf/sizes.csv") {
		t.Fatalf("resolved to %q and %q", c.Matrix, c.Sizes.File)
	}
	ids := map[string]string{"start": s.ID()}
	writeFile(t, dir, "m.csv", "1,2\n3,5\n")
	ids["matrix"] = s.ID()
	writeFile(t, dir, "cdf/sizes.csv", "1000,0\n2000,0.6\n9000,1\n")
	ids["cdf"] = s.ID()
	seen := map[string]string{}
	for k, id := range ids {
		if o, dup := seen[id]; dup {
			t.Errorf("%s and %s share ID %s", k, o, id)
		}
		seen[id] = k
	}
}

// Matrices A, B and C and their max_load targeting on a topology read
// from a file are the built-in fabric's when the file is the fabric's own
// export (racks and pods inferred), in either file format: the same
// flows, to the byte.
func TestMatricesOnExportedFabric(t *testing.T) {
	base := Default()
	base.Workload.Flows = 2000
	fab, err := base.Topology.Build()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ns3, js := filepath.Join(dir, "fabric.txt"), filepath.Join(dir, "fabric.json")
	for p, write := range map[string]func(*os.File) error{
		ns3: func(f *os.File) error { return fab.WriteNS3(f) },
		js:  func(f *os.File) error { return fab.WriteParsimonJSON(f) },
	} {
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := write(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	for _, m := range []string{"A", "B", "C"} {
		for _, file := range []string{ns3, js} {
			t.Run(m+"/"+filepath.Ext(file), func(t *testing.T) {
				s := base
				s.Workload.Components = []workload.Component{base.Workload.Components[0]}
				s.Workload.Components[0].Matrix = m
				want, err := Build(s)
				if err != nil {
					t.Fatal(err)
				}
				s.Topology = Topology{File: file}
				got, err := Build(s)
				if err != nil {
					t.Fatal(err)
				}
				if len(want.Flows) != 2000 || !reflect.DeepEqual(got.Flows, want.Flows) {
					t.Errorf("matrix %s on %s draws other flows than on the fabric", m, filepath.Base(file))
				}
			})
		}
	}
}

// A scenario whose flows a program replaced (WithFlows) has another ID
// and a spec that records the flows' digest, and that spec cannot pass
// for the generated workload: building it says why.
func TestWithFlowsRecordsDigest(t *testing.T) {
	s := Default()
	s.Workload.Flows = 200
	sc, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	mine := sc.Flows[:50]
	got, err := sc.WithFlows(mine)
	if err != nil {
		t.Fatal(err)
	}
	g := got.Given()
	if g.Workload.Digest != workload.Digest(mine) || g.Workload.Flows != 0 || len(g.Workload.Components) != 0 {
		t.Errorf("given workload %+v: want only the flows' digest", g.Workload)
	}
	if got.ID == sc.ID || got.ID != g.ID() {
		t.Errorf("ID %s (generated %s, given spec %s)", got.ID, sc.ID, g.ID())
	}
	other, _ := sc.WithFlows(sc.Flows[:51])
	if other.ID == got.ID {
		t.Error("other flows share the ID")
	}
	if _, err := Build(g); err == nil || !strings.Contains(err.Error(), "given by a program") {
		t.Errorf("building the recorded spec: %v", err)
	}
	bad := append([]workload.Flow(nil), mine...)
	bad[3].Dst = bad[3].Src
	if _, err := sc.WithFlows(bad); err == nil || !strings.Contains(err.Error(), "source and destination") {
		t.Errorf("bad flows: %v", err)
	}
}
