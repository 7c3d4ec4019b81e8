package frame

import (
	"bytes"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
)

// The full campaign of issue 21 (200 corrupted copies of each frame kind in
// each format) is scripts/corrupt-frames.sh, which runs this test with
// -corruptions 200; CI runs a smaller one.
var corruptions = flag.Int("corruptions", 12, "corrupted copies of each frame kind and format in TestCorruptedFramesAreRefused")

// corrupt returns a copy of b with 1 to 16 bytes at random offsets
// overwritten by random values, different from b.
func corrupt(r *rand.Rand, b []byte) []byte {
	for {
		c := bytes.Clone(b)
		for k := 1 + r.IntN(16); k > 0; k-- {
			c[r.IntN(len(c))] = byte(r.UintN(256))
		}
		if !bytes.Equal(c, b) {
			return c
		}
	}
}

// corruptionCase is one frame kind: it writes the frame's files into dir
// and reads them back with the kind's reader.
type corruptionCase struct {
	name  string
	files []string // base names, without extension
	write func(t *testing.T, dir, ext string)
	read  func(dir, ext string) error
}

func corruptionCases() []corruptionCase {
	recs, flows, meta := testRecords(300), testFlows(300), testMeta()
	generic := &Table{Meta: meta, Columns: []Column{
		StringColumn("name", []string{"a", "bb", "", "ccc"}),
		Float64Column("x", []float64{0.5, -1, 1e300, 3}),
		Int64Column("n", []int64{1, -2, 3, 1 << 62}),
	}}
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	return []corruptionCase{
		{"records", []string{"records"},
			func(t *testing.T, dir, ext string) {
				must(t, WriteRecords(filepath.Join(dir, "records"+ext), recs, meta))
			},
			func(dir, ext string) error { _, _, err := ReadRecords(filepath.Join(dir, "records"+ext)); return err }},
		{"flows", []string{"flows"},
			func(t *testing.T, dir, ext string) { must(t, WriteFlows(filepath.Join(dir, "flows"+ext), flows, meta)) },
			func(dir, ext string) error { _, _, err := ReadFlows(filepath.Join(dir, "flows"+ext)); return err }},
		{"topology", []string{"nodes", "channels"},
			func(t *testing.T, dir, ext string) {
				must(t, WriteTopology(filepath.Join(dir, "nodes"+ext), filepath.Join(dir, "channels"+ext), testNetwork(t), meta))
			},
			func(dir, ext string) error {
				_, _, err := ReadTopology(filepath.Join(dir, "nodes"+ext), filepath.Join(dir, "channels"+ext))
				return err
			}},
		{"table", []string{"table"},
			func(t *testing.T, dir, ext string) { must(t, WriteTable(filepath.Join(dir, "table"+ext), generic)) },
			func(dir, ext string) error { _, err := ReadTable(filepath.Join(dir, "table"+ext)); return err }},
	}
}

// readNoPanic runs read, turning a panic into a result.
func readNoPanic(read func() error) (err error, panicked any) {
	defer func() { panicked = recover() }()
	return read(), nil
}

// TestCorruptedFramesAreRefused corrupts copies of every frame kind (one of
// its files at a time) and checks that each read fails with an error naming
// the file, never panics and never accepts the damaged file.
func TestCorruptedFramesAreRefused(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 2026))
	for _, c := range corruptionCases() {
		for _, ext := range exts {
			dir := t.TempDir()
			c.write(t, dir, ext)
			if err := c.read(dir, ext); err != nil {
				t.Fatalf("%s%s: intact frame: %v", c.name, ext, err)
			}
			orig := make(map[string][]byte)
			for _, f := range c.files {
				b, err := os.ReadFile(filepath.Join(dir, f+ext))
				if err != nil {
					t.Fatal(err)
				}
				orig[f] = b
			}
			var refused, accepted, panics int
			for i := 0; i < *corruptions; i++ {
				f := c.files[i%len(c.files)]
				path := filepath.Join(dir, f+ext)
				if err := os.WriteFile(path, corrupt(r, orig[f]), 0o644); err != nil {
					t.Fatal(err)
				}
				err, p := readNoPanic(func() error { return c.read(dir, ext) })
				switch {
				case p != nil:
					panics++
					t.Errorf("%s%s copy %d: panic: %v", c.name, ext, i, p)
				case err == nil:
					accepted++
					t.Errorf("%s%s copy %d: corrupted %s accepted", c.name, ext, i, path)
				case !bytes.Contains([]byte(err.Error()), []byte(path)):
					t.Errorf("%s%s copy %d: error does not name %s: %v", c.name, ext, i, path, err)
				default:
					refused++
				}
				if err := os.WriteFile(path, orig[f], 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("campaign %-8s %-8s copies %4d refused %4d accepted %d panics %d", c.name, ext, *corruptions, refused, accepted, panics)
		}
	}
}

// TestCorruptedForeignParquetDoesNotPanic corrupts Parquet files without a
// digest (as other programs write them), which reach the decoder: the read
// may fail or succeed, but never panics. (Arrow IPC is left out: arrow/go
// v15's IPC reader trusts the lengths in a file's flatbuffers, and a damaged
// one can make it allocate more memory than the machine has, which no
// recover catches. Frames are refused before that by their digest.)
func TestCorruptedForeignParquetDoesNotPanic(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 7))
	tab := RecordsTable(testRecords(300), Meta{})
	rec := tab.record(arrow.Metadata{})
	defer rec.Release()
	{
		path := filepath.Join(t.TempDir(), "foreign.parquet")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		err = writeParquet(f, rec)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		back, err := ReadTable(path)
		if err != nil || !reflect.DeepEqual(back.Columns, tab.Columns) {
			t.Fatalf("%s: intact foreign file: %v", path, err)
		}
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var refused, recovered, accepted int
		for i := 0; i < *corruptions; i++ {
			if err := os.WriteFile(path, corrupt(r, orig), 0o644); err != nil {
				t.Fatal(err)
			}
			_, p := readNoPanic(func() error {
				_, err := ReadTable(path)
				switch {
				case err != nil && strings.Contains(err.Error(), "decoder failed"):
					refused++
					recovered++
				case err != nil:
					refused++
				default:
					accepted++
				}
				return err
			})
			if p != nil {
				t.Errorf("%s copy %d: panic: %v", path, i, p)
			}
		}
		t.Logf("foreign .parquet: copies %d refused %d (%d of them decoder panics recovered) accepted (no digest to check) %d", *corruptions, refused, recovered, accepted)
	}
}

func ExampleReadTable_corrupted() {
	dir, err := os.MkdirTemp("", "frame")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "t.parquet")
	if err := WriteTable(path, &Table{Columns: []Column{Int64Column("n", []int64{1, 2, 3})}}); err != nil {
		fmt.Println(err)
		return
	}
	b, _ := os.ReadFile(path)
	b[len(b)/2] ^= 0x40 // flip one bit
	os.WriteFile(path, b, 0o644)
	_, err = ReadTable(path)
	fmt.Println(err != nil, bytes.Contains([]byte(err.Error()), []byte("corrupted")))
	// Output: true true
}
