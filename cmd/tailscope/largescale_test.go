package main

import (
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
