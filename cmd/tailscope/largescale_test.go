package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// largescale report and run refuse an archive or a study directory that
// does not exist, instead of reporting nothing.
func TestLargescaleMissingDirectories(t *testing.T) {
	tmp := t.TempDir()
	missing := filepath.Join(tmp, "nonexistent")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"report archive", []string{"report", "--scale", "ci", "--out", tmp, "--archive", missing}, "--archive " + missing + ": no archive there"},
		{"run archive", []string{"run", "--scale", "ci", "--out", filepath.Join(tmp, "o"), "--archive", missing}, "no archive there"},
		{"report out", []string{"report", "--scale", "ci", "--out", missing}, "no study there"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := runLargescale(c.args)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
			if _, err := os.Stat(missing); !os.IsNotExist(err) {
				t.Errorf("%s was made (stat: %v)", missing, err)
			}
			if _, err := os.Stat(filepath.Join(tmp, "o")); !os.IsNotExist(err) {
				t.Errorf("the run made its directory before refusing")
			}
		})
	}
}

// Without the archive, the report runs as suggested.
func TestLargescaleSuggestion(t *testing.T) {
	tmp := t.TempDir()
	err := runLargescale([]string{"report", "--scale", "ci", "--parts", "sensitivity", "--out", tmp, "--archive", filepath.Join(tmp, "none")})
	_, line, ok := strings.Cut(fmt.Sprint(err), "run instead:\n")
	if !ok {
		t.Fatalf("refusal %v suggests no command", err)
	}
	if strings.Contains(line, "--archive") {
		t.Errorf("suggested %q still names the archive", line)
	}
	if err := runLine(t, strings.TrimSpace(line)); err != nil {
		t.Errorf("suggested %q: %v", line, err)
	}
}
