package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// checkStudyDirs refuses, before any work, what would otherwise give an
// empty report: an --archive holding no archive (rows, its rows file) for
// run and report, and, when out is not "", a report of an --out where no
// study ran. Each error suggests the command that works.
func checkStudyDirs(cmd, verb string, args []string, archive, rows, out string) error {
	if verb != "archive" && archive != "" {
		if _, err := os.Stat(filepath.Join(archive, rows)); err != nil {
			return suggestFlag(cmd, append([]string{verb}, withoutFlag(args, "archive")...), "", "",
				fmt.Errorf("--archive %s: no archive there (%v)", archive, err))
		}
	}
	if verb == "report" && out != "" {
		if _, err := os.Stat(out); err != nil {
			return suggestFlag(cmd, append([]string{"run"}, args...), "", "",
				fmt.Errorf("--out %s: no study there to report (%v)", out, err))
		}
	}
	return nil
}
