package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// processWords are words of how the software was developed, not of the
// software: numbered work rounds, issue numbers, working names.
var processWords = regexp.MustCompile(`(?i)\b(issue ?#?[0-9]+|the issue's|stops? [0-9]+|since stop|sessions?|house4|linkev|planning repository)\b`)

// The command line's output, its errors and the packages' documentation
// speak of the software and its users: no process words in any Go source
// of the command line or the library.
func TestNoProcessWords(t *testing.T) {
	for _, root := range []string{".", "../../lib"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "voice_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, line := range strings.Split(string(b), "\n") {
				if m := processWords.FindString(line); m != "" {
					t.Errorf("%s:%d: %q: %s", path, i+1, m, strings.TrimSpace(line))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
