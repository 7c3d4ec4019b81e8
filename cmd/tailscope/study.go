package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// studyFlags reads the verb of a study command ('cmd run|report|archive
// [flags]') and returns it with the flag set of "cmd verb", and the
// flags every study takes: the study directory (its default out, and the
// report files it holds) and the archive (what archiveText says it
// holds).
func studyFlags(cmd string, args []string, out, reports, archiveText string) (verb string, fs *flag.FlagSet, outDir, archive *string, err error) {
	if len(args) == 0 || (args[0] != "run" && args[0] != "report" && args[0] != "archive") {
		return "", nil, nil, nil, fmt.Errorf("usage: tailscope %s run|report|archive [flags] (\"tailscope %s run -h\" for flags)", cmd, cmd)
	}
	verb = args[0]
	fs = flag.NewFlagSet(cmd+" "+verb, flag.ContinueOnError)
	outDir = fs.String("out", out, "study directory: task results (resumed when run again), "+reports)
	archive = fs.String("archive", "", "archive of finished "+archiveText+": run skips them, report includes them, archive adds the scenarios finished under -out")
	return verb, fs, outDir, archive, nil
}

// errNoArchive is the error of a study's archive verb without -archive.
func errNoArchive(cmd string) error { return errors.New(cmd + " archive: -archive is required") }

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
