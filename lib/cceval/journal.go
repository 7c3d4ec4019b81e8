package cceval

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
)

// journalLine is one finished trial in a journal file.
type journalLine struct {
	Seed    uint64  `json:"seed"`
	Metrics Metrics `json:"metrics"`
}

// JournalTrial wraps trial so that every finished trial is appended to
// the file at path as a JSON line, and a trial whose seed the file
// already holds is not run again: an estimation killed at any moment and
// started again with the same Config resumes where it stopped, with the
// same result (trials are functions of their seeds). The file is created
// if missing; a line torn by a kill mid-write is ignored.
func JournalTrial(trial Trial, path string) (Trial, error) {
	if trial == nil {
		return nil, errors.New("cceval: nil trial")
	}
	done := map[uint64]Metrics{}
	if f, err := os.Open(path); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		for sc.Scan() {
			var j journalLine
			if err := json.Unmarshal(sc.Bytes(), &j); err != nil {
				continue // torn by a kill mid-write: that trial runs again
			}
			done[j.Seed] = j.Metrics
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("cceval: journal %s: %w", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("cceval: journal: %w", err)
	}
	var mu sync.Mutex
	return func(ctx context.Context, seed uint64) (Metrics, error) {
		mu.Lock()
		m, ok := done[seed]
		mu.Unlock()
		if ok {
			return m, nil
		}
		m, err := trial(ctx, seed)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(journalLine{seed, m})
		if err != nil {
			return nil, fmt.Errorf("cceval: journal: %w", err)
		}
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("cceval: journal: %w", err)
		}
		_, err = f.Write(append(b, '\n'))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("cceval: journal %s: %w", path, err)
		}
		done[seed] = m
		return m, nil
	}, nil
}
