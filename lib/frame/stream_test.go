package frame

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Records streamed in groups read back exactly as WriteRecords' frame
// does, whatever the split into groups (none full, some full, a partial
// last group, no records), with the metadata given at the start and the
// extra learnt at the end; nothing but the run log (holding the wall time)
// is left beside the frame.
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
			if err := w.Close(map[string]string{"events": "42"}, 1.5); err != nil {
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
			want.WallSeconds = 1.5
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
