package m3

import (
	"bufio"
	"bytes"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tailscope/tailscope/datasets"
	"github.com/tailscope/tailscope/lib/frame"
)

// Reading any bytes as a model returns a model or an error, never panics or
// allocates beyond the machine.
func FuzzReadModel(f *testing.F) {
	b, err := datasets.FS.ReadFile(DefaultModelFile)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte(modelMagic))
	f.Add([]byte(encoderMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		ReadModel(bufio.NewReader(bytes.NewReader(b)))
	})
}

// ReadTaskResult on a well-formed frame with any task JSON, columns and
// extra metadata returns a result whose slices match the rows, or an error.
func FuzzReadTaskResult(f *testing.F) {
	f.Add(`{"Index":3,"Hops":2,"Seed":7}`, uint8(4), "parkinglot-2hop")
	f.Add(`{"Index":-1}`, uint8(0), "")
	f.Add(`[]`, uint8(1), "x")
	f.Fuzz(func(t *testing.T, task string, rows uint8, network string) {
		n := int(rows)
		ints := func(v int64) []int64 { return slices.Repeat([]int64{v}, n) }
		floats := make([]float64, n)
		tab := &frame.Table{
			Columns: []frame.Column{
				frame.Int64Column("size_bytes", ints(1000)), frame.Int64Column("first_hop", ints(0)),
				frame.Int64Column("last_hop", ints(1)), frame.Int64Column("foreground", ints(int64(n%2))),
				frame.Float64Column("flowsim_slowdown", floats), frame.Float64Column("packetsim_slowdown", floats),
			},
			Meta: frame.Meta{Options: task, Network: network},
		}
		p := filepath.Join(t.TempDir(), "task.parquet")
		if err := frame.WriteTable(p, tab); err != nil {
			return // not a frame WriteTable accepts (e.g. invalid JSON)
		}
		r, err := ReadTaskResult(p)
		if err != nil {
			return
		}
		if len(r.Sizes) != n || len(r.First) != n || len(r.Foreground) != n || len(r.PacketSim) != n {
			t.Fatalf("%d rows read into %d/%d/%d/%d values", n, len(r.Sizes), len(r.First), len(r.Foreground), len(r.PacketSim))
		}
	})
}
