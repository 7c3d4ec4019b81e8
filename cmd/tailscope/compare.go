package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/summary"
)

func init() {
	register("compare", "'compare DIR...': per size bin p50 and p99 slowdown and error against a baseline, for any run directories", runCompare)
}

func runCompare(args []string) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	baseline := fs.String("baseline", "packetsim", "the estimator the others are compared with")
	bins := fs.String("bins", "parsimon", metrics.BinsUsage)
	out := fs.String("out", "", "also write the rows as a frame here (.parquet or .arrow)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: tailscope compare [flags] DIR...\n\nDIR is a run's directory (<out>/<scenario>, named for the scenario's name, topology, CC and load, then its ID) or a results directory holding them.")
		fs.PrintDefaults()
	}
	// Flags may come before or after the directories.
	var dirs []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		dirs = append(dirs, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if len(dirs) == 0 {
		return fmt.Errorf("no directories: tailscope compare [flags] DIR... (DIR as tailscope run --out DIR writes it)")
	}
	b, err := metrics.ParseBins(*bins)
	if err != nil {
		return err
	}
	if *out != "" {
		if ext := filepath.Ext(*out); ext != ".parquet" && ext != ".arrow" {
			return fmt.Errorf("--out %s: want a .parquet or .arrow file", *out)
		}
	}
	rows, err := summary.CompareDirs(dirs, *baseline, b)
	if err != nil {
		return err
	}
	if err := summary.WriteBinRows(os.Stdout, rows); err != nil {
		return err
	}
	if *out != "" {
		if err := mkdirOut(filepath.Dir(*out)); err != nil {
			return err
		}
		if err := frame.WriteTable(*out, summary.BinTable(rows)); err != nil {
			return err
		}
		fmt.Printf("\ncompare: %d rows -> %s\n", len(rows), *out)
	}
	return nil
}
