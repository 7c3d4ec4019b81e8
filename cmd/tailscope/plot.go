package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/summary"
)

func init() {
	register("plot", "draw figures (cdf, heatmap, error, error-load, violin), build summary frames (summary) and tables (table)", runPlot)
}

var plotKinds = map[string]func(args []string) error{
	"cdf": plotCDF, "heatmap": plotHeatmap, "summary": plotSummary,
	"error": plotError, "violin": plotViolin, "table": plotTable, "error-load": plotErrorByLoad,
}

func runPlot(args []string) error {
	if len(args) == 0 || plotKinds[args[0]] == nil {
		kinds := make([]string, 0, len(plotKinds))
		for k := range plotKinds {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		return fmt.Errorf("usage: tailscope plot <%s> [flags] (\"tailscope plot cdf -h\" for flags)", strings.Join(kinds, "|"))
	}
	return plotKinds[args[0]](args[1:])
}

// split is a comma-separated flag value without empty items.
func split(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// floats is a comma-separated list of numbers, each in sp.
func floats(s string, sp span) ([]float64, error) {
	var out []float64
	for _, v := range split(s) {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !sp.contains(f) {
			return nil, fmt.Errorf("%q: want %s", v, sp)
		}
		out = append(out, f)
	}
	return out, nil
}

// counts parses a comma-separated list of counts (chunks, flows per
// trial), each an integer >= 1.
func counts(s string) ([]int, error) {
	var out []int
	for _, v := range split(s) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q: want an integer >= 1", v)
		}
		out = append(out, n)
	}
	return out, nil
}

func plotCDF(args []string) error {
	fs := flag.NewFlagSet("plot cdf", flag.ContinueOnError)
	records := fs.String("records", "", "comma-separated record frames (one per estimator, same scenario)")
	names := fs.String("names", "", "comma-separated legend names (default: each frame's estimator)")
	bins := fs.String("bins", "parsimon", metrics.BinsUsage)
	tail := floatFlag(fs, "tail", 0.9, span{lo: 0, hi: 1, hiOpen: true}, "lower end of the CDF axis (0 for the whole CDF)")
	out := fs.String("out", "cdf.png", "figure to write (.png or .svg)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	paths := split(*records)
	if len(paths) == 0 {
		return errors.New("plot cdf: --records is required")
	}
	b, err := metrics.ParseBins(*bins)
	if err != nil {
		return err
	}
	legend := split(*names)
	if len(legend) != 0 && len(legend) != len(paths) {
		return fmt.Errorf("plot cdf: %d names for %d record frames", len(legend), len(paths))
	}
	var sets [][]metrics.Record
	for i, p := range paths {
		recs, meta, err := frame.ReadRecords(p)
		if err != nil {
			return err
		}
		sets = append(sets, recs)
		if len(legend) < len(paths) && i == len(legend) {
			legend = append(legend, meta.Estimator)
		}
	}
	f, err := plot.SlowdownCDF(legend, sets, b, *tail)
	if err != nil {
		return err
	}
	return save(f, *out)
}

func plotHeatmap(args []string) error {
	fs := flag.NewFlagSet("plot heatmap", flag.ContinueOnError)
	records := fs.String("records", "", "record frame")
	bins := fs.String("bins", "m3", metrics.BinsUsage)
	out := fs.String("out", "heatmap.png", "figure to write (.png or .svg)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *records == "" {
		return errors.New("plot heatmap: --records is required")
	}
	b, err := metrics.ParseBins(*bins)
	if err != nil {
		return err
	}
	recs, meta, err := frame.ReadRecords(*records)
	if err != nil {
		return err
	}
	f, err := plot.SlowdownHeatmap(recs, b, fmt.Sprintf("%s, scenario %s", meta.Estimator, meta.ScenarioID))
	if err != nil {
		return err
	}
	return save(f, *out)
}

func save(f *plot.Figure, path string) error {
	if err := plot.Save(f, path); err != nil {
		return err
	}
	fmt.Println("wrote", path)
	return nil
}

// plotSummary reads the layout "tailscope run" writes,
// <dir>/<scenario>/<estimator>.parquet, and writes one summary row per
// scenario and non-baseline estimator.
func plotSummary(args []string) error {
	fs := flag.NewFlagSet("plot summary", flag.ContinueOnError)
	dir := fs.String("dir", "out", "results directory of \"tailscope run\"")
	baseline := fs.String("baseline", "packetsim", "baseline estimator the others are compared with")
	bins := fs.String("bins", "parsimon", metrics.BinsUsage)
	pct := floatFlag(fs, "percentile", 99, span{lo: 0, hi: 100, loOpen: true}, "slowdown percentile compared")
	out := fs.String("out", "summary.parquet", "summary frame to write (.parquet or .arrow)")
	level := floatFlag(fs, "level", 0.95, unitOpen, "confidence level of the intervals over seeds")
	perSeed := fs.Bool("per-seed", false, "keep one row per seed instead of combining a scenario's seeds")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	b, err := metrics.ParseBins(*bins)
	if err != nil {
		return err
	}
	rows, err := summary.SummarizeDir(*dir, *baseline, b, *pct, os.Stderr)
	if err != nil {
		return err
	}
	if !*perSeed {
		n := len(rows)
		if rows, err = summary.CombineSeeds(rows, *level); err != nil {
			return err
		}
		if len(rows) < n {
			fmt.Printf("combined %d rows of scenarios run with several seeds into %d (means with %.0f%% confidence intervals)\n", n, len(rows), 100**level)
		}
	}
	t, err := summary.Table(rows)
	if err != nil {
		return err
	}
	if err := frame.WriteTable(*out, t); err != nil {
		return err
	}
	fmt.Printf("wrote %d summary rows to %s\n", len(rows), *out)
	return nil
}

// readSummary reads a summary frame's rows.
func readSummary(path string) ([]metrics.Summary, error) {
	if path == "" {
		return nil, errors.New("--summary is required")
	}
	t, err := frame.ReadTable(path)
	if err != nil {
		return nil, err
	}
	rows, err := summary.Rows(t)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rows, nil
}

func plotError(args []string) error {
	fs := flag.NewFlagSet("plot error", flag.ContinueOnError)
	summaryPath := fs.String("summary", "", "summary frame (tailscope plot summary)")
	est := fs.String("estimator", "parsimon", "estimator whose errors to plot")
	edges := fs.String("edges", "0.41,0.56", "max-load bin edges (fractions)")
	out := fs.String("out", "error_cdf.png", "figure to write (.png or .svg)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rows, err := readSummary(*summaryPath)
	if err != nil {
		return err
	}
	e, err := floats(*edges, span{lo: 0, hi: 1})
	if err != nil {
		return fmt.Errorf("plot error: --edges: %w", err)
	}
	f, err := plot.ErrorCDF(rows, *est, e)
	if err != nil {
		return err
	}
	return save(f, *out)
}

func plotViolin(args []string) error {
	fs := flag.NewFlagSet("plot violin", flag.ContinueOnError)
	summaryPath := fs.String("summary", "", "summary frame (tailscope plot summary)")
	est := fs.String("estimator", "parsimon", "estimator whose errors to plot")
	lo := floatFlag(fs, "load-lo", 0, span{lo: 0, hi: 1}, "keep scenarios with max load above this")
	hi := floatFlag(fs, "load-hi", 0.5, span{lo: 0, hi: 1}, "and at most this (Parsimon Fig. 9a: 0-0.5, 9b: 0.5-1)")
	out := fs.String("out", "violins.png", "figure to write (.png or .svg)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rows, err := readSummary(*summaryPath)
	if err != nil {
		return err
	}
	f, err := plot.ErrorViolins(rows, *est, *lo, *hi)
	if err != nil {
		return err
	}
	return save(f, *out)
}

func plotTable(args []string) error {
	fs := flag.NewFlagSet("plot table", flag.ContinueOnError)
	summaryPath := fs.String("summary", "", "summary frame (tailscope plot summary)")
	kind := fs.String("kind", "top", "top (Parsimon Table 4: largest errors), compare (m3 Table 5) or stats (errors and speed per estimator and load range)")
	est := fs.String("estimator", "parsimon", "estimator for -kind top")
	k := intFlag(fs, "k", 5, 1, math.MaxInt, "rows for -kind top")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rows, err := readSummary(*summaryPath)
	if err != nil {
		return err
	}
	switch *kind {
	case "top":
		fmt.Print(summary.Markdown(summary.TopErrors(rows, *est, *k)))
	case "compare":
		fmt.Print(summary.Markdown(summary.ComparisonTable(rows)))
	case "stats":
		fmt.Print(summary.Markdown(summary.ErrorStats(rows, metrics.ParsimonLoadEdges())))
	default:
		return fmt.Errorf("plot table: unknown -kind %q (top, compare or stats)", *kind)
	}
	return nil
}

func plotErrorByLoad(args []string) error {
	fs := flag.NewFlagSet("plot error-load", flag.ContinueOnError)
	summaryPath := fs.String("summary", "", "summary frame (tailscope plot summary)")
	est := fs.String("estimator", "parsimon", "estimator whose errors to plot")
	out := fs.String("out", "error_load.png", "figure to write (.png or .svg)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	rows, err := readSummary(*summaryPath)
	if err != nil {
		return err
	}
	f, err := plot.ErrorByLoad(rows, *est)
	if err != nil {
		return err
	}
	return save(f, *out)
}
