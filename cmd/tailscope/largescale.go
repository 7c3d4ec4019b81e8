package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscope/tailscope/lib/largescale"
	"github.com/tailscope/tailscope/lib/progress"
)

func init() {
	register("largescale", "'largescale run|report|archive': the papers' 6,144-host evaluations and the sensitivity analysis at scale, resumable", runLargescale)
}

func runLargescale(args []string) error {
	verb, fs, out, archive, err := studyFlags("largescale", args, "out/largescale", "largescale.md and largescale.parquet", "sensitivity scenarios, small enough to commit (results/largescale-paper holds the paper scale's)")
	if err != nil {
		return err
	}
	scale := fs.String("scale", "ci", "ci (1/1000 of the papers' flows), mid (1/10) or paper")
	parts := fs.String("parts", strings.Join(largescale.Parts, ","), "comma-separated parts: "+strings.Join(largescale.Parts, ", "))
	figs := fs.String("figures", "", "directory of the figures (default <out>/figures)")
	executor := executorFlags(fs, "local (one task at a time, so each task's CPU time is its own) or slurm", "local", "slurm")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	s, err := largescale.ScaleByName(*scale)
	if err != nil {
		return err
	}
	ps := split(*parts)
	if _, err := largescale.Cases(s, ps); err != nil {
		return err
	}
	// A mistyped directory is an error, not an empty report.
	if err := checkStudyDirs("largescale", verb, args[1:], *archive, largescale.ArchiveRows, *out); err != nil {
		return err
	}
	if err := mkdirOut(*out); err != nil {
		return err
	}
	if verb == "archive" {
		if *archive == "" {
			return errNoArchive("largescale")
		}
		n, err := largescale.Archive(*out, *archive, s)
		if err != nil {
			return err
		}
		fmt.Printf("largescale: %s holds %d sensitivity scenarios\n", *archive, n)
		return nil
	}
	if verb == "run" {
		exec, err := executor.build(1)
		if err != nil {
			return err
		}
		ctx, stop := interruptible()
		defer stop()
		if err := largescale.Run(ctx, *out, *archive, s, ps, exec, progress.NewLine(os.Stderr, "largescale")); err != nil {
			return err
		}
	}
	r, err := largescale.LoadResults(*out, *archive, s, ps)
	if err != nil {
		return err
	}
	if *figs == "" {
		*figs = filepath.Join(*out, "figures")
	}
	if err := r.Save(*out, *figs); err != nil {
		return err
	}
	fmt.Print(r.Markdown())
	fmt.Printf("\nlargescale: report %s, figures %s", filepath.Join(*out, "largescale.md"), *figs)
	if len(r.Outcomes) > 0 {
		fmt.Printf(", table %s", filepath.Join(*out, "largescale.parquet"))
	}
	fmt.Println()
	return nil
}
