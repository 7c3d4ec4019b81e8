package experiment

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tailscope/tailscope/lib/frame"
)

// ReadArchive reads the archive at dir: a study's results small enough to
// commit, as a frame of rows (the file named rows) beside the journal of
// the archived tasks' costs (JournalFile). An empty dir, or one without
// the rows file, holds nothing: a nil table and no costs.
func ReadArchive(dir, rows string) (*frame.Table, map[string]Cost, error) {
	if dir == "" {
		return nil, nil, nil
	}
	path := filepath.Join(dir, rows)
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	costs, err := ReadJournal(dir)
	if err != nil {
		return nil, nil, err
	}
	t, err := frame.ReadTable(path)
	if err != nil {
		return nil, nil, fmt.Errorf("experiment: archive: %w", err)
	}
	return t, costs, nil
}

// WriteArchive writes the archive at dir (created if need be): the table t
// as the rows file and the journal of costs. The rows file is replaced by
// renaming, so an interrupted write leaves the archive as it was or
// complete.
func WriteArchive(dir, rows string, t *frame.Table, costs map[string]Cost) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("experiment: archive: %w", err)
	}
	path := filepath.Join(dir, rows)
	tmp := filepath.Join(dir, ".tmp-"+rows)
	if err := frame.WriteTable(tmp, t); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("experiment: archive: %w", err)
	}
	return WriteJournal(dir, costs)
}
