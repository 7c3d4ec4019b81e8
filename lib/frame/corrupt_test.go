package frame

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
)

// The full campaign (200 corrupted copies of each frame kind in
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

// TestCorruptedForeignFilesDoNotPanic corrupts Parquet and Arrow IPC files
// without a digest (as other programs write them), which reach the
// decoder: the read may fail or succeed, but never panics.
func TestCorruptedForeignFilesDoNotPanic(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 7))
	tab := RecordsTable(testRecords(300), Meta{})
	rec := tab.record(arrow.Metadata{})
	defer rec.Release()
	for _, ext := range exts {
		orig := writeForeign(t, rec, ext)
		path := filepath.Join(t.TempDir(), "foreign"+ext)
		back, err := readBytes(path, orig)
		if err != nil || !reflect.DeepEqual(back.Columns, tab.Columns) {
			t.Fatalf("%s: intact foreign file: %v", path, err)
		}
		var refused, recovered, accepted int
		for i := 0; i < *corruptions; i++ {
			_, p := readNoPanic(func() error {
				_, err := readBytes(path, corrupt(r, orig))
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
		t.Logf("foreign %s: copies %d refused %d (%d of them decoder panics recovered) accepted (no digest to check) %d", ext, *corruptions, refused, recovered, accepted)
	}
}

// A foreign file whose lengths are damaged is an error, not the
// runtime's fatal "out of memory". Every 8-byte word of an Arrow IPC file
// in turn is made 2^40 (a TiB), and some of them are lengths arrow/go's
// reader would allocate; every 4-byte word of a Parquet file is made
// 2^31-1, which made arrow/go read a column chunk into a slice of 17 GB
// (before its streams were buffered). The limit is lowered to 64 MiB so
// that the damaged lengths under the machine's memory are not allocated
// either.
func TestDamagedForeignLengths(t *testing.T) {
	defer func(f func() int64) { memoryLimit = f }(memoryLimit)
	memoryLimit = func() int64 { return 64 << 20 }
	rec := RecordsTable(testRecords(20), Meta{}).record(arrow.Metadata{})
	defer rec.Release()
	for _, c := range []struct {
		ext  string
		word int
	}{{".arrow", 8}, {".parquet", 4}} {
		orig := writeForeign(t, rec, c.ext)
		path := filepath.Join(t.TempDir(), "foreign"+c.ext)
		over := 0
		var ms runtime.MemStats
		var most uint64
		for i := 0; i+c.word <= len(orig); i++ {
			b := bytes.Clone(orig)
			if c.word == 8 {
				binary.LittleEndian.PutUint64(b[i:], 1<<40)
			} else {
				binary.LittleEndian.PutUint32(b[i:], 1<<31-1)
			}
			runtime.ReadMemStats(&ms)
			before := ms.TotalAlloc
			err, p := readNoPanic(func() error { _, err := readBytes(path, b); return err })
			if p != nil {
				t.Fatalf("%s word at %d: panic: %v", c.ext, i, p)
			}
			runtime.ReadMemStats(&ms)
			most = max(most, ms.TotalAlloc-before)
			if err != nil && strings.Contains(err.Error(), "of memory (a damaged length)") {
				over++
			}
		}
		if most > 256<<20 {
			t.Errorf("%s: a decode of a damaged %d-byte file allocated %d bytes", c.ext, len(orig), most)
		}
		if c.ext == ".arrow" && over == 0 {
			t.Errorf("no damaged word of the %d-byte Arrow IPC file made the reader ask for more than the limit; the test no longer reaches the case", len(orig))
		}
		t.Logf("%s: %d of %d damaged words refused for their memory; at most %d bytes allocated by a decode", c.ext, over, len(orig)-c.word+1, most)
	}
}

// writeForeign returns rec written as another program would write it:
// without tailscope's metadata and digest.
func writeForeign(t testing.TB, rec arrow.Record, ext string) []byte {
	path := filepath.Join(t.TempDir(), "foreign"+ext)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if ext == ".parquet" {
		err = writeParquet(f, rec)
	} else {
		err = writeIPC(f, rec)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readBytes writes b to path and reads it back with ReadTable.
func readBytes(path string, b []byte) (*Table, error) {
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return nil, err
	}
	return ReadTable(path)
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
