package flowfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/workload"
)

// roundTrip writes what a reader read with write and reads it back with
// read: the same flows come back (class aside for formats without it).
func roundTrip(t *testing.T, ff *File, write func(*bytes.Buffer, []workload.Flow) error, read func(string, *bytes.Buffer) (*File, error), class bool) {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b, ff.Flows); err != nil {
		t.Fatal(err)
	}
	back, err := read("again", &b)
	if err != nil {
		t.Fatalf("written flows do not read back: %v\n%s", err, b.String())
	}
	if len(back.Flows) != len(ff.Flows) {
		t.Fatalf("read back %d flows, wrote %d", len(back.Flows), len(ff.Flows))
	}
	for i, f := range ff.Flows {
		g := back.Flows[i]
		if !class {
			f.Class, g.Class = 0, 0
		}
		if f != g {
			t.Fatalf("flow %d: wrote %+v, read %+v", i, f, g)
		}
	}
}

// Any text either fails to read with an error or reads to flows whose
// values are checked and that write back and read again unchanged.
func FuzzReadCSV(f *testing.F) {
	f.Add("src,dst,size_bytes,start_ns\n0,1,100,0\n")
	f.Add(",flow_id,src,dst,size_bytes,start_ns,class\n0,5,0,1,1e3,2.0,1\n")
	f.Add("src,dst,size_bytes,start_ns\n0,1,100,NaN\n0,\"1\n")
	f.Fuzz(func(t *testing.T, s string) {
		ff, err := ReadCSV("fuzz", strings.NewReader(s))
		if err != nil {
			return
		}
		for _, fl := range ff.Flows {
			if fl.Size <= 0 || fl.Start < 0 {
				t.Fatalf("accepted %+v", fl)
			}
		}
		roundTrip(t, ff, func(b *bytes.Buffer, fl []workload.Flow) error { return WriteCSV(b, fl) },
			func(n string, b *bytes.Buffer) (*File, error) { return ReadCSV(n, b) }, true)
	})
}

func FuzzReadFork(f *testing.F) {
	f.Add("2\n0 0 1 3 100 1000 0.000000001\n1 1 0 3 100 5 2.5\n")
	f.Add("1\n0 1 3 100 1000 1e-6\n")
	f.Add("1\n0 1 3 100 1000 -.5\n")
	f.Fuzz(func(t *testing.T, s string) {
		ff, err := ReadFork("fuzz", strings.NewReader(s))
		if err != nil {
			return
		}
		for _, fl := range ff.Flows {
			if fl.Size <= 0 || fl.Start < 0 {
				t.Fatalf("accepted %+v", fl)
			}
		}
		roundTrip(t, ff, func(b *bytes.Buffer, fl []workload.Flow) error { return WriteFork(b, fl) },
			func(n string, b *bytes.Buffer) (*File, error) { return ReadFork(n, b) }, false)
	})
}

func FuzzReadParsimon(f *testing.F) {
	f.Add(`[{"id":0,"src":0,"dst":1,"size":100,"start":0}]`)
	f.Add(`[{"id":1e2,"src":0.0,"dst":1,"size":100,"start":-0}] `)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, s string) {
		ff, err := ReadParsimon("fuzz", strings.NewReader(s))
		if err != nil {
			return
		}
		for _, fl := range ff.Flows {
			if fl.Size <= 0 || fl.Start < 0 {
				t.Fatalf("accepted %+v", fl)
			}
		}
		roundTrip(t, ff, func(b *bytes.Buffer, fl []workload.Flow) error { return WriteParsimon(b, fl) },
			func(n string, b *bytes.Buffer) (*File, error) { return ReadParsimon(n, b) }, false)
	})
}

// Any bytes named .parquet either fail to read with an error or read to
// checked flows (the frame reader's own fuzzing covers its decoding).
func FuzzReadParquet(f *testing.F) {
	dir := f.TempDir()
	p := filepath.Join(dir, "seed.parquet")
	if err := frame.WriteFlows(p, []workload.Flow{{ID: 0, Src: 0, Dst: 1, Size: 100, Start: 0}, {ID: 1, Src: 1, Dst: 0, Size: 5, Start: 9}}, frame.Meta{}); err != nil {
		f.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("PAR1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "f.parquet")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ff, err := Read(p, "")
		if err != nil {
			return
		}
		for _, fl := range ff.Flows {
			if fl.Size <= 0 || fl.Start < 0 {
				t.Fatalf("accepted %+v", fl)
			}
		}
	})
}
