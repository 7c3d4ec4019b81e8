package frame

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
)

// fuzzSeeds returns frames of every kind as bytes: sealed frames and files
// without a digest (as other programs write them), whose mutations reach
// the decoder and the typed readers, in both formats.
func fuzzSeeds(f *testing.F) (seeds []struct {
	b   []byte
	ext string
}) {
	dir := f.TempDir()
	add := func(path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, struct {
			b   []byte
			ext string
		}{b, filepath.Ext(path)})
	}
	net, err := testNetworkErr()
	if err != nil {
		f.Fatal(err)
	}
	for _, ext := range exts {
		for _, t := range []*Table{RecordsTable(testRecords(20), testMeta()), FlowsTable(testFlows(20), Meta{}),
			NodesTable(net, Meta{Network: net.Name}), ChannelsTable(net, Meta{Network: net.Name})} {
			p := filepath.Join(dir, "seed"+ext)
			if err := WriteTable(p, t); err != nil {
				f.Fatal(err)
			}
			add(p)
			rec := t.record(arrow.Metadata{})
			seeds = append(seeds, struct {
				b   []byte
				ext string
			}{writeForeign(f, rec, ext), ext})
			rec.Release()
		}
	}
	return seeds
}

// fuzzFile writes b to a file with extension ext (".arrow" when arrow is
// set, else ".parquet") in a fresh directory.
func fuzzFile(t *testing.T, name string, b []byte, arrow bool) string {
	ext := ".parquet"
	if arrow {
		ext = ".arrow"
	}
	p := filepath.Join(t.TempDir(), name+ext)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// addSeeds adds fuzzSeeds to f's corpus. It also caps a decode's memory
// at 256 MiB (memoryLimit): the seeds are a few KB, and a damaged Arrow
// IPC length under the machine's memory would otherwise be allocated in
// every fuzzing worker.
func addSeeds(f *testing.F) {
	defaultLimit := memoryLimit
	f.Cleanup(func() { memoryLimit = defaultLimit })
	memoryLimit = func() int64 { return 256 << 20 }
	for _, s := range fuzzSeeds(f) {
		f.Add(s.b, s.ext == ".arrow")
	}
}

// Reading any bytes as a frame returns a table or an error, never panics;
// a table read back is well formed and writes again.
func FuzzReadTable(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte, arrow bool) {
		p := fuzzFile(t, "t", b, arrow)
		tab, err := ReadTable(p)
		if err != nil {
			return
		}
		if err := tab.Check(); err != nil {
			t.Fatalf("ReadTable returned a malformed table: %v", err)
		}
		if err := WriteTable(p, tab); err != nil && tab.checkNoMarker() == nil {
			t.Fatalf("a table read back does not write again: %v", err)
		}
	})
}

func FuzzReadRecords(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte, arrow bool) {
		recs, _, err := ReadRecords(fuzzFile(t, "r", b, arrow))
		if err == nil && recs == nil {
			t.Fatal("no records and no error")
		}
	})
}

func FuzzReadFlows(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte, arrow bool) {
		flows, _, err := ReadFlows(fuzzFile(t, "f", b, arrow))
		if err == nil && flows == nil {
			t.Fatal("no flows and no error")
		}
	})
}

// The nodes frame is fuzzed against an intact channels frame.
func FuzzReadTopology(f *testing.F) {
	net, err := testNetworkErr()
	if err != nil {
		f.Fatal(err)
	}
	dir := f.TempDir()
	channels := filepath.Join(dir, "c.parquet")
	if err := WriteTable(channels, ChannelsTable(net, Meta{Network: net.Name})); err != nil {
		f.Fatal(err)
	}
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte, arrow bool) {
		n, _, err := ReadTopology(fuzzFile(t, "n", b, arrow), channels)
		if err == nil && len(n.Links) != len(net.Links) {
			t.Fatalf("%d links read, the channels frame has %d", len(n.Links), len(net.Links))
		}
	})
}
