package flowfile_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tailscope/tailscope/lib/flowfile"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

// BenchmarkLoad reads and checks 100,000 flows of the default scenario
// in each format (go test -bench Load -benchtime 3x ./lib/flowfile).
func BenchmarkLoad(b *testing.B) {
	s := scenario.Default()
	s.Workload.Flows = 100_000
	sc, err := scenario.Build(s)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	files := map[string]func(string) error{
		"flows.parquet": func(p string) error { return frame.WriteFlows(p, sc.Flows, frame.Meta{}) },
		"flows.csv":     func(p string) error { return writeWith(p, sc.Flows, flowfile.WriteCSV) },
		"flow.txt":      func(p string) error { return writeWith(p, sc.Flows, flowfile.WriteFork) },
		"flows.json":    func(p string) error { return writeWith(p, sc.Flows, flowfile.WriteParsimon) },
	}
	for name, write := range files {
		p := filepath.Join(dir, name)
		if err := write(p); err != nil {
			b.Fatal(err)
		}
		st, _ := os.Stat(p)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(st.Size())
			for range b.N {
				if _, err := flowfile.Load(sc.Net, workload.Spec{File: p}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
