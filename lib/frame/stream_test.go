package frame

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tailscope/tailscope/lib/workload"
)

// Records streamed in groups read back exactly as WriteRecords' frame
// does, whatever the split into groups (none full, some full, a partial
// last group, no records), with the metadata given at the start and the
// extra learnt at the end; nothing but the run log (holding the wall time
// and timings) is left beside the frame.
func TestRecordWriterRoundTrip(t *testing.T) {
	for _, ext := range exts {
		for _, tc := range []struct{ n, group int }{{0, 4}, {3, 4}, {8, 4}, {1001, 100}} {
			dir := t.TempDir()
			path := filepath.Join(dir, "records"+ext)
			recs, meta := testRecords(tc.n), testMeta()
			w, err := NewRecordWriter(path, meta)
			if err != nil {
				t.Fatal(err)
			}
			w.group = tc.group
			for _, r := range recs {
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
			}
			if w.Len() != tc.n {
				t.Errorf("%s n=%d: Len %d", ext, tc.n, w.Len())
			}
			if err := w.Close(map[string]string{"events": "42"}, 1.5, map[string]float64{"setup_s": 0.25}); err != nil {
				t.Fatal(err)
			}
			got, gotMeta, err := ReadRecords(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tc.n || (tc.n > 0 && !reflect.DeepEqual(got, recs)) {
				t.Errorf("%s n=%d group=%d: records differ after the round trip", ext, tc.n, tc.group)
			}
			want := meta
			want.WallSeconds, want.Timings = 1.5, map[string]float64{"setup_s": 0.25}
			want.Extra = map[string]string{"events": "42"}
			for k, v := range meta.Extra {
				want.Extra[k] = v
			}
			if !reflect.DeepEqual(gotMeta, want) {
				t.Errorf("%s n=%d: meta got %+v, want %+v", ext, tc.n, gotMeta, want)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 2 {
				t.Errorf("%s n=%d: %d files in the directory, want the frame and its run log", ext, tc.n, len(ents))
			}
		}
	}
}

// Abort leaves nothing behind, whether or not a group was written.
func TestRecordWriterAbort(t *testing.T) {
	for _, ext := range exts {
		for _, n := range []int{0, 10} {
			dir := t.TempDir()
			w, err := NewRecordWriter(filepath.Join(dir, "records"+ext), testMeta())
			if err != nil {
				t.Fatal(err)
			}
			w.group = 4
			for _, r := range testRecords(n) {
				if err := w.Write(r); err != nil {
					t.Fatal(err)
				}
			}
			w.Abort()
			if ents, _ := os.ReadDir(dir); len(ents) != 0 {
				t.Errorf("%s n=%d: %d files left after Abort", ext, n, len(ents))
			}
		}
	}
}

// A group that fails to be written (here its file is closed under it)
// fails a later Write or Close, which leaves nothing behind: groups are
// written in the background.
func TestRecordWriterGroupError(t *testing.T) {
	for _, ext := range exts {
		dir := t.TempDir()
		w, err := NewRecordWriter(filepath.Join(dir, "records"+ext), testMeta())
		if err != nil {
			t.Fatal(err)
		}
		w.group = 4
		w.tmp.Close()
		var werr error
		for _, r := range testRecords(12) {
			if werr = w.Write(r); werr != nil {
				break
			}
		}
		cerr := w.Close(nil, 1, nil)
		if werr == nil && cerr == nil {
			t.Errorf("%s: no error from Write or Close on a closed file", ext)
		}
		if cerr == nil {
			t.Errorf("%s: Close succeeded after a group failed", ext)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s: %d files left after a failed write", ext, len(ents))
		}
	}
}

// encodedFlows are n flows with few distinct hosts and classes (dictionary
// encoded) and random sizes and starts (which outgrow a dictionary page
// past about 130k flows, so the writer falls back to plain encoding).
func encodedFlows(n int) []workload.Flow {
	r := rand.New(rand.NewPCG(3, 5))
	flows := make([]workload.Flow, n)
	for i := range flows {
		flows[i] = workload.Flow{ID: i, Src: r.IntN(6144), Dst: r.IntN(6144), Size: 1 + r.Int64N(20_000_000),
			Start: int64(i)*1000 + r.Int64N(1000), Class: r.IntN(2)}
	}
	return flows
}

// Flows streamed through a FlowWriter make the same Parquet file, byte for
// byte, as WriteFlows, for groups that are multiples of the Parquet
// writer's 1024-value batches; Arrow IPC frames read back the same flows.
// Past about 130k flows the random starts overflow the dictionary, and
// arrow-go then lists a column's two page encodings in the footer in map
// order, which differs between any two writes (WriteFlows' too): there
// the flows and metadata are compared, not the bytes.
func TestFlowWriterSameFrame(t *testing.T) {
	for _, tc := range []struct{ n, group int }{{0, 1024}, {3, 1024}, {40_000, 1024}, {150_000, 4096}} {
		flows, meta := encodedFlows(tc.n), testMeta()
		for _, ext := range exts {
			dir := t.TempDir()
			want, got := filepath.Join(dir, "want"+ext), filepath.Join(dir, "got"+ext)
			if err := WriteFlows(want, flows, meta); err != nil {
				t.Fatal(err)
			}
			w, err := NewFlowWriter(got, meta)
			if err != nil {
				t.Fatal(err)
			}
			w.group = tc.group
			for _, f := range flows {
				if err := w.Write(f); err != nil {
					t.Fatal(err)
				}
			}
			if w.Len() != tc.n {
				t.Errorf("%s n=%d: Len %d", ext, tc.n, w.Len())
			}
			if err := w.Close(meta.WallSeconds); err != nil {
				t.Fatal(err)
			}
			back, gotMeta, err := ReadFlows(got)
			if err != nil {
				t.Fatal(err)
			}
			if len(back) != tc.n || (tc.n > 0 && !reflect.DeepEqual(back, flows)) || !reflect.DeepEqual(gotMeta, meta) {
				t.Errorf("%s n=%d: flows or metadata differ after the round trip", ext, tc.n)
			}
			if ext != ".parquet" || tc.n > 100_000 {
				continue
			}
			a, _ := os.ReadFile(want)
			b, _ := os.ReadFile(got)
			if !bytes.Equal(a, b) {
				t.Errorf("n=%d group=%d: the streamed Parquet frame (%d bytes) differs from WriteFlows' (%d bytes)", tc.n, tc.group, len(b), len(a))
			}
		}
	}
}
