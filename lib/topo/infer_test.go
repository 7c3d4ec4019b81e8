package topo

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// A fabric written to a file and read back gets its racks and pods back
// by inference: the same Rack and Pod on every node, in either format.
func TestInferRacksOfFabricExport(t *testing.T) {
	specs := map[string]FabricSpec{
		"meta32-2:1": presetSpec(t, "meta32-2:1"),
		"3 pods":     {Pods: 3, RacksPerPod: 2, HostsPerRack: 3, Planes: 2, SpinesPerPlane: 2},
		"1 pod":      {Pods: 1, RacksPerPod: 4, HostsPerRack: 2, Planes: 1, SpinesPerPlane: 1},
	}
	for name, fs := range specs {
		t.Run(name, func(t *testing.T) {
			fab, err := Fabric(fs)
			if err != nil {
				t.Fatal(err)
			}
			var ns3, js bytes.Buffer
			if err := fab.WriteNS3(&ns3); err != nil {
				t.Fatal(err)
			}
			if err := fab.WriteParsimonJSON(&js); err != nil {
				t.Fatal(err)
			}
			a, err := ReadNS3("topology.txt", &ns3)
			if err != nil {
				t.Fatal(err)
			}
			b, err := ReadParsimonJSON("topology.json", &js)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range []*Network{a, b} {
				if !reflect.DeepEqual(n.Nodes, fab.Nodes) {
					t.Errorf("%s: inferred nodes differ from the fabric's", n.Name)
				}
				if !reflect.DeepEqual(n.Racks(), fab.Racks()) {
					t.Errorf("%s: racks differ", n.Name)
				}
			}
		})
	}
}

func presetSpec(t *testing.T, name string) FabricSpec {
	t.Helper()
	s, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Hand-made topologies: a leaf-spine network is one pod; a host with two
// links or linked to a host leaves the network without racks, and says why.
func TestInferRacksRule(t *testing.T) {
	// hosts 0-3, ToRs 4 (hosts 0, 2) and 5 (hosts 1, 3), spines 6 and 7.
	leafSpine := "8 4 8\n4 5 6 7\n0 4 10Gbps 1us 0\n2 4 10Gbps 1us 0\n1 5 10Gbps 1us 0\n3 5 10Gbps 1us 0\n4 6 10Gbps 1us 0\n4 7 10Gbps 1us 0\n5 6 10Gbps 1us 0\n5 7 10Gbps 1us 0\n"
	n, err := ReadNS3("leafspine.txt", strings.NewReader(leafSpine))
	if err != nil {
		t.Fatal(err)
	}
	wantRack := []int{0, 1, 0, 1, 0, 1, -1, -1}
	wantPod := []int{0, 0, 0, 0, 0, 0, 0, 0}
	for i, nd := range n.Nodes {
		if nd.Rack != wantRack[i] || nd.Pod != wantPod[i] {
			t.Errorf("node %d: rack %d pod %d, want %d %d", i, nd.Rack, nd.Pod, wantRack[i], wantPod[i])
		}
	}
	// Host 0 dual-homed to both ToRs: no racks.
	dual := "8 4 9\n4 5 6 7\n0 4 10Gbps 1us 0\n0 5 10Gbps 1us 0\n2 4 10Gbps 1us 0\n1 5 10Gbps 1us 0\n3 5 10Gbps 1us 0\n4 6 10Gbps 1us 0\n4 7 10Gbps 1us 0\n5 6 10Gbps 1us 0\n5 7 10Gbps 1us 0\n"
	n, err = ReadNS3("dual.txt", strings.NewReader(dual))
	if err != nil {
		t.Fatal(err)
	}
	if len(n.Racks()) != 0 {
		t.Errorf("a dual-homed host still gave racks %v", n.Racks())
	}
	if err := n.InferRacks(); err == nil || !strings.Contains(err.Error(), "host 0 has 2 links") {
		t.Errorf("err %v", err)
	}
}

// Bad topology files: each error names the file and, where a line is to
// blame, the line.
func TestBadTopologyFiles(t *testing.T) {
	tests := []struct{ name, file, want string }{
		{"self-link", "3 1 2\n2\n0 2 10Gbps 1us 0\n2 2 10Gbps 1us 0\n", "t.txt line 4: self-link: node 2 is linked to itself"},
		{"unknown rate", "3 1 2\n2\n0 2 10Gb 1us 0\n1 2 10Gbps 1us 0\n", `t.txt line 3: bad rate "10Gb": want a number and a unit`},
		{"bad delay", "3 1 2\n2\n0 2 10Gbps 1 0\n1 2 10Gbps 1us 0\n", `t.txt line 3: delay "1" has no unit (ns, us, ms, s)`},
		{"disconnected host", "4 1 2\n2\n0 2 10Gbps 1us 0\n1 2 10Gbps 1us 0\n", "topo: t.txt: host 3 is disconnected (no working link)"},
		{"node beyond header", "3 1 2\n2\n0 2 10Gbps 1us 0\n1 5 10Gbps 1us 0\n", "t.txt line 4: link 1-5 names a node beyond the header's 3 nodes (0..2)"},
		{"unreachable host", "5 2 3\n3 4\n0 3 10Gbps 1us 0\n1 3 10Gbps 1us 0\n2 4 10Gbps 1us 0\n", "host 2 cannot reach the rest of the network"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadNS3("t.txt", strings.NewReader(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
			t.Logf("%s | %v", tc.name, err)
		})
	}
}
