package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/accuracy"
	"github.com/tailscope/tailscope/lib/progress"
)

func init() {
	register("accuracy", "'accuracy run|report|archive': the accuracy atlas, every estimator against packetsim over a held-out sample of the scenario space, resumable", runAccuracy)
}

func runAccuracy(args []string) error {
	verb, fs, out, archive, err := studyFlags("accuracy", args, "out/accuracy", "accuracy.md", "scenarios, small enough to commit (results/accuracy-atlas holds the small design's; designs may share one)")
	if err != nil {
		return err
	}
	size := fs.String("size", "small", "design, or designs comma-separated (small,wide: one report of both): tiny (3 draws of 300 flows, minutes), small (400 atlas and 100 calibration draws of 5k-20k flows on the 32-rack fabrics) or wide (the 384-rack fabric, 50k-1M flows, buffers and PFC, pairs under 3 seeds; about 4.5 CPU hours)")
	samples := fs.String("samples", accuracy.SampleAtlas+","+accuracy.SampleCalibration+","+accuracy.SampleNoise, "run: the samples to run (noise: packetsim under two more seeds of some atlas scenarios, for the direction scores)")
	parts := fs.String("parts", "", "run, archive: only these parts of a design made of parts, comma-separated (wide: "+strings.Join(accuracy.PartLabels(accuracy.Sizes["wide"]), ", ")+"), say those a question needs first or those complete; all by default")
	summaryPath := fs.String("summary", "", "report: also write the atlas summary that answers carry (datasets/accuracy/atlas.json is the embedded one)")
	executor := executorFlags(fs, "local (one task at a time, so each task's CPU time is its own) or slurm", "local", "slurm")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	var designs []accuracy.Options
	for _, name := range split(*size) {
		o, ok := accuracy.Sizes[name]
		if !ok {
			return fmt.Errorf("accuracy: -size: unknown design %q (%s)", name, strings.Join(slices.Sorted(maps.Keys(accuracy.Sizes)), ", "))
		}
		designs = append(designs, o)
	}
	if len(designs) == 0 {
		return fmt.Errorf("accuracy: -size names no design")
	}
	ss := split(*samples)
	for _, s := range ss {
		if s != accuracy.SampleAtlas && s != accuracy.SampleCalibration && s != accuracy.SampleNoise {
			return fmt.Errorf("accuracy: -samples: unknown sample %q (%s, %s, %s)", s, accuracy.SampleAtlas, accuracy.SampleCalibration, accuracy.SampleNoise)
		}
	}
	runDesigns, err := narrowParts(designs, split(*parts))
	if err != nil {
		return err
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
		n := 0
		for _, o := range runDesigns {
			if n, err = accuracy.Archive(*out, *archive, o); err != nil {
				return err
			}
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
		// (accuracy.Run), so a run stopped early has both; one design
		// after the other.
		for _, o := range runDesigns {
			rep, err := accuracy.Run(ctx, *out, *archive, o, ss, exec, progress.NewLine(os.Stderr, "accuracy"))
			fmt.Fprintf(os.Stderr, "accuracy: %d tasks, %d done before, %d run, %d failed\n", rep.Total, rep.Skipped, rep.Ran, rep.Failed)
			if err != nil {
				if ctx.Err() != nil {
					return err
				}
				fmt.Fprintf(os.Stderr, "accuracy: %v\n", err)
			}
		}
	}
	rows, err := accuracy.LoadAll(*out, *archive, designs)
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

// narrowParts keeps, of designs, the parts named (all if none is): a
// design without parts is kept whole, and a name no design has is an
// error.
func narrowParts(designs []accuracy.Options, names []string) ([]accuracy.Options, error) {
	if len(names) == 0 {
		return designs, nil
	}
	var out []accuracy.Options
	found := map[string]bool{}
	for _, o := range designs {
		if len(o.Parts) == 0 {
			out = append(out, o)
			continue
		}
		o.Parts = slices.DeleteFunc(slices.Clone(o.Parts), func(p accuracy.Options) bool { return !slices.Contains(names, p.Label) })
		for _, p := range o.Parts {
			found[p.Label] = true
		}
		if len(o.Parts) > 0 {
			out = append(out, o)
		}
	}
	for _, n := range names {
		if !found[n] {
			var all []string
			for _, o := range designs {
				all = append(all, accuracy.PartLabels(o)...)
			}
			return nil, fmt.Errorf("accuracy: -parts: no part %q in the designs (%s)", n, strings.Join(all, ", "))
		}
	}
	return out, nil
}
