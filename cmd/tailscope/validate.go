package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/validate"
)

func init() {
	register("validate", "'validate ns3': packetsim against real ns-3 on a dumbbell, a parking lot and a fabric", runValidate)
}

func runValidate(args []string) error {
	if len(args) == 0 || args[0] != "ns3" {
		return errors.New("usage: tailscope validate ns3 [flags] (\"tailscope validate ns3 -h\" for flags)")
	}
	fs := flag.NewFlagSet("validate ns3", flag.ContinueOnError)
	flows := intFlag(fs, "flows", 2000, 1, math.MaxInt, "flows per case")
	loads := fs.String("loads", "0.3,0.6", "target max loads, comma-separated")
	seed := fs.Uint64("seed", 1, "workload seed")
	tops := fs.String("topologies", strings.Join(validate.Topologies, ","), "topologies to run, comma-separated: "+strings.Join(append(slices.Clone(validate.Topologies), validate.Large...), ", "))
	matrix := fs.String("matrix", "B", "traffic matrix of the fabric cases: A, B or C (Meta's)")
	buffer := fs.Int64("buffer", 0, "bytes of buffer per port, tail drop (0: infinite)")
	out := fs.String("out", "out/validate-ns3", "directory: task results, validate.parquet, validate.png and validate.svg")
	executor := executorFlags(fs, "local or slurm", "local", "slurm")
	workers := intFlag(fs, "workers", 1, 1, math.MaxInt, "local: tasks run at once")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	ls, err := floats(*loads, unitOpen)
	if err != nil {
		return fmt.Errorf("validate ns3: --loads: %w", err)
	}
	cases, err := validate.CasesOn(strings.Split(*tops, ","), *flows, ls, *seed)
	if err != nil {
		return fmt.Errorf("validate ns3: --topologies: %w", err)
	}
	if cases, err = validate.WithMatrix(cases, *matrix); err != nil {
		return fmt.Errorf("validate ns3: --matrix: %w", err)
	}
	if *buffer < 0 {
		return fmt.Errorf("validate ns3: --buffer %d: want bytes >= 0 (0: infinite)", *buffer)
	}
	if *buffer > 0 {
		if cases, err = validate.Finite(cases, *buffer); err != nil {
			return err
		}
	}
	exec, ctx, stop, err := executor.prepare(*workers, *out)
	if err != nil {
		return err
	}
	defer stop()
	outs, err := validate.Run(ctx, *out, cases, exec, progress.NewLine(os.Stderr, "validate ns3"))
	if err != nil {
		return err
	}
	validate.Report(os.Stdout, outs)
	if err := frame.WriteTable(filepath.Join(*out, "validate.parquet"), validate.Table(outs)); err != nil {
		return err
	}
	fig, err := validate.Figure(outs)
	if err != nil {
		return err
	}
	for _, ext := range []string{".png", ".svg"} {
		if err := plot.Save(fig, filepath.Join(*out, "validate"+ext)); err != nil {
			return err
		}
	}
	fmt.Printf("\nvalidate ns3: frame %s, figure %s\n", filepath.Join(*out, "validate.parquet"), filepath.Join(*out, "validate.png"))
	return nil
}
