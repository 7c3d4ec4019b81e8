package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The studies' report and run refuse an archive, and largescale a study
// directory, that does not exist, instead of reporting nothing.
func TestStudyMissingDirectories(t *testing.T) {
	tmp := t.TempDir()
	missing := filepath.Join(tmp, "nonexistent")
	for _, c := range []struct {
		name string
		run  func([]string) error
		args []string
		want string
	}{
		{"largescale report archive", runLargescale, []string{"report", "--scale", "ci", "--out", tmp, "--archive", missing}, "--archive " + missing + ": no archive there"},
		{"largescale run archive", runLargescale, []string{"run", "--scale", "ci", "--out", filepath.Join(tmp, "o"), "--archive", missing}, "no archive there"},
		{"largescale report out", runLargescale, []string{"report", "--scale", "ci", "--out", missing}, "no study there"},
		{"accuracy report archive", runAccuracy, []string{"report", "--size", "tiny", "--out", tmp, "--archive", missing}, "--archive " + missing + ": no archive there"},
		{"accuracy run archive", runAccuracy, []string{"run", "--size", "tiny", "--out", filepath.Join(tmp, "o"), "--archive", missing}, "no archive there"},
		{"accuracy unknown design", runAccuracy, []string{"run", "--size", "tiny,huge", "--out", filepath.Join(tmp, "o")}, `unknown design "huge" (small, tiny, wide)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.run(c.args)
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
