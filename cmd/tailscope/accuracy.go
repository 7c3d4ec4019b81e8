package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscope/tailscope/lib/accuracy"
	"github.com/tailscope/tailscope/lib/progress"
)

func init() {
	register("accuracy", "'accuracy run|report|archive': the accuracy atlas, every estimator against packetsim over a held-out sample of the scenario space, resumable", runAccuracy)
}

func runAccuracy(args []string) error {
	verb, fs, out, archive, err := studyFlags("accuracy", args, "out/accuracy", "accuracy.md", "scenarios, small enough to commit (results/accuracy-atlas holds the small design's)")
	if err != nil {
		return err
	}
	size := fs.String("size", "small", "design: tiny (3 draws of 300 flows, minutes) or small (400 atlas and 100 calibration draws of 5k-20k flows)")
	samples := fs.String("samples", accuracy.SampleAtlas+","+accuracy.SampleCalibration+","+accuracy.SampleNoise, "run: the samples to run (noise: packetsim under two more seeds of some atlas scenarios, for the direction scores)")
	summaryPath := fs.String("summary", "", "report: also write the atlas summary that answers carry (datasets/accuracy/atlas.json is the embedded one)")
	executor := executorFlags(fs, "local (one task at a time, so each task's CPU time is its own) or slurm", "local", "slurm")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	o, ok := accuracy.Sizes[*size]
	if !ok {
		return fmt.Errorf("accuracy: unknown size %q (tiny, small)", *size)
	}
	ss := split(*samples)
	for _, s := range ss {
		if s != accuracy.SampleAtlas && s != accuracy.SampleCalibration && s != accuracy.SampleNoise {
			return fmt.Errorf("accuracy: -samples: unknown sample %q (%s, %s, %s)", s, accuracy.SampleAtlas, accuracy.SampleCalibration, accuracy.SampleNoise)
		}
	}
	// A mistyped archive is an error, not a report of nothing; a report
	// of the archive alone needs no study under -out.
	if err := checkStudyDirs("accuracy", verb, args[1:], *archive, accuracy.ArchiveRows, ""); err != nil {
		return err
	}
	if err := mkdirOut(*out); err != nil {
		return err
	}
	switch verb {
	case "archive":
		if *archive == "" {
			return errNoArchive("accuracy")
		}
		n, err := accuracy.Archive(*out, *archive, o)
		if err != nil {
			return err
		}
		fmt.Printf("accuracy: %s holds %d scenarios\n", *archive, n)
		return nil
	case "run":
		exec, err := executor.build(1)
		if err != nil {
			return err
		}
		ctx, stop := interruptible()
		defer stop()
		// Both samples in one sweep, calibration draws among the atlas's
		// (accuracy.Run), so a run stopped early has both.
		rep, err := accuracy.Run(ctx, *out, *archive, o, ss, exec, progress.NewLine(os.Stderr, "accuracy"))
		fmt.Fprintf(os.Stderr, "accuracy: %d tasks, %d done before, %d run, %d failed\n", rep.Total, rep.Skipped, rep.Ran, rep.Failed)
		if err != nil {
			if ctx.Err() != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "accuracy: %v\n", err)
		}
	}
	rows, err := accuracy.Load(*out, *archive, o)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	accuracy.Report(&b, rows)
	fmt.Print(b.String())
	path := filepath.Join(*out, "accuracy.md")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Printf("\naccuracy: report %s\n", path)
	if *summaryPath != "" {
		var sb bytes.Buffer
		src := fmt.Sprintf("tailscope accuracy report -size %s (%s)", *size, strings.TrimSpace(*archive))
		if err := accuracy.Summarize(rows, src).Write(&sb); err != nil {
			return err
		}
		if err := os.WriteFile(*summaryPath, sb.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Printf("accuracy: summary %s\n", *summaryPath)
	}
	return nil
}
