package main

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

// What "gen -format fork|parsimon" writes reads back, as a spec's
// topology and flows files, to the generated network and flows, and so
// to the same records; "-format ns3" writes the ns-3 program's inputs,
// one flow a line.
func TestGenFormatReadsBack(t *testing.T) {
	s := scenario.Default()
	s.Workload.Flows = 300
	want, err := scenario.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	wantRecs, err := estimator.Run(context.Background(), "flowsim", want, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ format, topology, flows string }{
		{"fork", "topology.txt", "flow.txt"},
		{"parsimon", "topology.json", "flows.json"},
	} {
		t.Run(c.format, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			if err := runGen([]string{"-flows", "300", "-format", c.format, "-out", dir}); err != nil {
				t.Fatal(err)
			}
			back := s
			back.Topology = scenario.Topology{File: filepath.Join(dir, c.topology)}
			back.Workload = workload.Spec{File: filepath.Join(dir, c.flows)}
			got, err := scenario.Build(back)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Net.Nodes, want.Net.Nodes) || !reflect.DeepEqual(got.Net.Links, want.Net.Links) {
				t.Error("the network read back differs from the generated one")
			}
			if len(got.Flows) != len(want.Flows) {
				t.Fatalf("%d flows read back, %d generated", len(got.Flows), len(want.Flows))
			}
			for i, f := range got.Flows {
				f.Class = want.Flows[i].Class // neither format has classes
				if f != want.Flows[i] {
					t.Fatalf("flow %d read back as %+v, generated %+v", i, f, want.Flows[i])
				}
			}
			recs, err := estimator.Run(context.Background(), "flowsim", got, "")
			if err != nil {
				t.Fatal(err)
			}
			for i := range recs.Records {
				recs.Records[i].Class = wantRecs.Records[i].Class
			}
			if !reflect.DeepEqual(recs.Records, wantRecs.Records) {
				t.Error("records on the exported files differ from the generated run's")
			}
		})
	}
	dir := filepath.Join(t.TempDir(), "ns3")
	if err := runGen([]string{"-flows", "300", "-format", "ns3", "-out", dir}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "flows.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\nflow ") + 1; n != 300 || !strings.HasPrefix(string(b), "flow 0 ") {
		t.Errorf("ns3 flows.txt has %d flow lines, want 300", n)
	}
	if err := runGen([]string{"-format", "omnet", "-out", dir}); err == nil || !strings.Contains(err.Error(), `unknown -format "omnet"`) {
		t.Errorf("err %v", err)
	}
}
