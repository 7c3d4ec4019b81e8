package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// created lists the directories this process made through mkdirOut, in
// the order it made them.
var created []string

// mkdirOut makes dir and its missing parents, as os.MkdirAll, and
// remembers those it made, so that a command that fails leaves no empty
// output directory behind (removeEmptyCreated). Every command makes its
// output directories through it.
func mkdirOut(dir string) error {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := len(missing) - 1; i >= 0; i-- {
		created = append(created, missing[i])
	}
	return nil
}

// removeEmptyCreated removes the directories mkdirOut made that are still
// empty, deepest first; directories holding anything stay.
func removeEmptyCreated() {
	for i := len(created) - 1; i >= 0; i-- {
		os.Remove(created[i]) // fails, harmlessly, unless empty
	}
	created = nil
}
