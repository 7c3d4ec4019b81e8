package frame

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Frames written from the same data with different wall times are the same
// bytes; the times live in the run logs beside them.
func TestRerunsAreByteIdentical(t *testing.T) {
	recs := testRecords(500)
	for _, ext := range exts {
		var frames [2][]byte
		for i, wall := range []float64{1.25, 7.5} {
			path := filepath.Join(t.TempDir(), "records"+ext)
			meta := testMeta()
			meta.WallSeconds = wall
			if err := WriteRecords(path, recs, meta); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			frames[i] = b
			_, back, err := ReadRecords(path)
			if err != nil {
				t.Fatal(err)
			}
			if back.WallSeconds != wall {
				t.Errorf("%s: WallSeconds read back %g, want %g", path, back.WallSeconds, wall)
			}
			if _, err := os.Stat(RunLogPath(path)); err != nil {
				t.Errorf("%s: no run log: %v", path, err)
			}
		}
		if !bytes.Equal(frames[0], frames[1]) {
			t.Errorf("%s: two writes of the same records differ in their bytes", ext)
		}
	}
}

func TestRunLog(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.parquet")
	write := func(v int64, wall float64) {
		t.Helper()
		tab := &Table{Meta: Meta{WallSeconds: wall}, Columns: []Column{Int64Column("a", []int64{v})}}
		if err := WriteTable(path, tab); err != nil {
			t.Fatal(err)
		}
	}
	write(1, 2)
	log1, err := os.ReadFile(RunLogPath(path))
	if err != nil {
		t.Fatal(err)
	}
	// A frame written without a time leaves no stale log behind.
	write(1, 0)
	if _, err := os.Stat(RunLogPath(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("run log after a write without time: %v, want none", err)
	}
	if back, err := ReadTable(path); err != nil || back.Meta.WallSeconds != 0 {
		t.Errorf("without a log: WallSeconds %v, %v; want 0, nil", back, err)
	}
	// The log of the same frame still matches it; a log of another frame
	// (different data, so a different digest) or a malformed log is refused.
	if err := os.WriteFile(RunLogPath(path), log1, 0o644); err != nil {
		t.Fatal(err)
	}
	if back, err := ReadTable(path); err != nil || back.Meta.WallSeconds != 2 {
		t.Errorf("with the frame's log: %v, %v; want WallSeconds 2", back, err)
	}
	write(2, 0)
	for _, c := range []struct{ log, want string }{
		{string(log1), "belongs to another version"},
		{`{"frame_digest":`, "is malformed"},
		{`{"wall_seconds": 1, "extra": 2}`, "is malformed"},
	} {
		if err := os.WriteFile(RunLogPath(path), []byte(c.log), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadTable(path); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), RunLogPath(path)) {
			t.Errorf("log %q: error %v, want one naming the log and saying %q", c.log, err, c.want)
		}
	}
	if err := WriteTable(path, &Table{Meta: Meta{WallSeconds: -1}, Columns: []Column{Int64Column("a", nil)}}); err == nil {
		t.Errorf("negative wall time written")
	}
}
