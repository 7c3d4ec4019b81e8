package frame

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
)

// runLog is the JSON a run log holds: the timing of the run that wrote a
// frame, and the digest of that frame, so that a log is never read as the
// timing of a different frame.
type runLog struct {
	Frame       string  `json:"frame_digest"`
	WallSeconds float64 `json:"wall_seconds"`
}

// RunLogPath is the path of the run log beside the frame at path: path with
// ".run.json" appended. WriteTable writes it when Meta.WallSeconds is
// nonzero (and removes a stale one otherwise); ReadTable reads it back into
// Meta.WallSeconds.
func RunLogPath(path string) string { return path + ".run.json" }

// writeRunLog writes (or, for wall 0, removes) the run log of the frame to
// be renamed to path, whose digest is digest.
func writeRunLog(path, digest string, wall float64) error {
	lp := RunLogPath(path)
	if wall == 0 {
		if err := os.Remove(lp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if math.IsNaN(wall) || math.IsInf(wall, 0) || wall < 0 {
		return fmt.Errorf("Meta.WallSeconds is %g; want a finite time >= 0", wall)
	}
	b, err := json.Marshal(runLog{Frame: digest, WallSeconds: wall})
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(lp), "."+filepath.Base(lp)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), lp)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// readRunLog returns the wall time in the run log of the frame at path,
// whose digest is digest, or 0 if it has none.
func readRunLog(path, digest string) (float64, error) {
	lp := RunLogPath(path)
	b, err := os.ReadFile(lp)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("frame: %w", err)
	}
	var l runLog
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return 0, fmt.Errorf("frame: run log %s is malformed: %w", lp, err)
	}
	switch {
	case l.Frame != digest:
		return 0, fmt.Errorf("frame: run log %s belongs to another version of %s (frame digest %.30q, log says %.30q); remove it or rerun",
			lp, filepath.Base(path), digest, l.Frame)
	case math.IsNaN(l.WallSeconds) || l.WallSeconds < 0:
		return 0, fmt.Errorf("frame: run log %s: wall_seconds is %g; want a time >= 0", lp, l.WallSeconds)
	}
	return l.WallSeconds, nil
}
