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
// timing of a different frame. The digest is the frame's own (see seal):
// it covers the whole file, metadata included, so frames with the same
// records but other metadata (an estimator's counters, options, version)
// have other digests, and a log belongs to one file's bytes exactly.
type runLog struct {
	Frame       string             `json:"frame_digest"`
	WallSeconds float64            `json:"wall_seconds"`
	Timings     map[string]float64 `json:"timings,omitempty"`
	Build       string             `json:"build,omitempty"` // Meta.Build
}

// RunLogPath is the path of the run log beside the frame at path: path with
// ".run.json" appended. WriteTable writes it when Meta.WallSeconds or
// Meta.Timings is set (and removes a stale one otherwise), with the build
// of tailscope that wrote the frame (Meta.Build); ReadTable reads them back
// from it.
func RunLogPath(path string) string { return path + ".run.json" }

// writeRunLog writes (or, with no times, removes) the run log of the frame
// to be renamed to path, whose digest is digest.
func writeRunLog(path, digest string, m Meta) error {
	lp := RunLogPath(path)
	if m.WallSeconds == 0 && len(m.Timings) == 0 {
		if err := os.Remove(lp); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := checkTime("Meta.WallSeconds", m.WallSeconds); err != nil {
		return err
	}
	for k, v := range m.Timings {
		if err := checkTime(fmt.Sprintf("Meta.Timings[%q]", k), v); err != nil {
			return err
		}
	}
	build := m.Build
	if build == "" {
		build = Build()
	}
	b, err := json.Marshal(runLog{Frame: digest, WallSeconds: m.WallSeconds, Timings: m.Timings, Build: build})
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

func checkTime(name string, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return fmt.Errorf("%s is %g; want a finite time >= 0", name, v)
	}
	return nil
}

// readRunLog sets m's times from the run log of the frame at path, whose
// digest is digest; without a log they stay zero.
func readRunLog(path, digest string, m *Meta) error {
	lp := RunLogPath(path)
	b, err := os.ReadFile(lp)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("frame: %w", err)
	}
	var l runLog
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return fmt.Errorf("frame: run log %s is malformed: %w", lp, err)
	}
	if l.Frame != digest {
		return fmt.Errorf("frame: run log %s belongs to another version of %s (frame digest %.30q, log says %.30q); remove it or rerun",
			lp, filepath.Base(path), digest, l.Frame)
	}
	if err := checkTime("wall_seconds", l.WallSeconds); err != nil {
		return fmt.Errorf("frame: run log %s: %w", lp, err)
	}
	for k, v := range l.Timings {
		if err := checkTime(fmt.Sprintf("timings[%q]", k), v); err != nil {
			return fmt.Errorf("frame: run log %s: %w", lp, err)
		}
	}
	m.WallSeconds, m.Timings, m.Build = l.WallSeconds, l.Timings, l.Build
	return nil
}
