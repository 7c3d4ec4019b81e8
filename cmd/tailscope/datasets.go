package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/tailscope/tailscope/lib/workload"
)

func init() {
	register("datasets", "write the synthesized traffic matrices, or summarize the embedded datasets", runDatasets)
}

const datasetsUsage = `usage:
  tailscope datasets matrices [--out DIR] [--seed N]   write A, B, C for 32 and 384 racks
  tailscope datasets summary [--samples N] [--seed N]  print size and matrix summary facts`

func runDatasets(args []string) error {
	if len(args) == 0 {
		return errors.New(datasetsUsage)
	}
	switch args[0] {
	case "matrices":
		return writeMatrices(args[1:])
	case "summary":
		return summarizeDatasets(args[1:])
	}
	return fmt.Errorf("unknown datasets command %q\n%s", args[0], datasetsUsage)
}

func writeMatrices(args []string) error {
	fs := flag.NewFlagSet("datasets matrices", flag.ContinueOnError)
	out := fs.String("out", "datasets/matrices", "directory to write <name>-<racks>.csv into")
	seed := fs.Uint64("seed", 1, "seed of the synthesis")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	for _, s := range workload.MatrixSpecs() {
		m, err := workload.SynthesizeMatrix(s, *seed)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		if err := m.WriteCSV(&buf, matrixHeader(s, *seed)); err != nil {
			return err
		}
		// Report the shares of the file as written, after rounding.
		back, err := workload.ReadMatrixCSV(s.Name, bytes.NewReader(buf.Bytes()))
		if err != nil {
			return err
		}
		rack, pod := back.Shares(s.RacksPerPod)
		path := filepath.Join(*out, fmt.Sprintf("%s-%d.csv", s.Name, s.Racks))
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return err
		}
		fmt.Printf("%s: %d bytes, intra-rack %.3f%%, intra-pod %.2f%%, top 5%% of pairs %.1f%%\n",
			path, buf.Len(), 100*rack, 100*pod, 100*back.TopShare(0.05))
	}
	return nil
}

func matrixHeader(s workload.MatrixSpec, seed uint64) []string {
	facts := "Published facts matched (32-rack samples)"
	if s.Racks != 32 {
		facts = "Facts: no figures are published for 384 racks, so the 32-rack facts are carried over"
	}
	return []string{
		fmt.Sprintf("Matrix %s: rack-to-rack traffic of a %s cluster for %d racks (%d pods of %d); row = source rack, column = destination rack.",
			s.Name, s.Cluster, s.Racks, s.Racks/s.RacksPerPod, s.RacksPerPod),
		"Source: Parsimon (Zhao et al., NSDI 2023) §5.1 and Fig. 6a, which show 32-rack samples of the matrices of",
		"Roy et al., \"Inside the Social Network's (Datacenter) Network\", SIGCOMM 2015 (A database, B web server, C Hadoop).",
		fmt.Sprintf("%s: intra-rack share %g%%, intra-pod share (intra-rack included) %g%%;", facts, 100*s.IntraRack, 100*s.IntraPod),
		"A is the most all-to-all and cross-rack, C the most skewed.",
		"Derivation: tailscope's own seeded synthesis (workload.SynthesizeMatrix), no data file copied: log-normal send and receive",
		fmt.Sprintf("activity per rack (sigma %g) times log-normal noise per pair (sigma %g), then the intra-rack, intra-pod and", s.Spread, s.Noise),
		"cross-pod pairs each scaled to their share exactly; rounding the entries moves any share by at most 0.05 points.",
		fmt.Sprintf("Command: tailscope datasets matrices --out datasets/matrices --seed %d", seed),
		"Entries: relative weights, mean entry 1000, rounded to integers.",
	}
}

func summarizeDatasets(args []string) error {
	fs := flag.NewFlagSet("datasets summary", flag.ContinueOnError)
	samples := intFlag(fs, "samples", 1000000, 1, math.MaxInt, "size samples drawn per distribution")
	seed := fs.Uint64("seed", 1, "seed of the size samples")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *samples < 1 {
		return fmt.Errorf("--samples %d must be positive", *samples)
	}
	fmt.Printf("%-14s %12s %12s %12s %12s %8s %8s\n", "sizes", "mean B", "sample mean", "median B", "p99 B", "<=1KB", "<=10KB")
	for _, name := range []string{"cachefollower", "webserver", "hadoop", "websearch"} {
		d, err := workload.NewSizeDist(workload.SizeSpec{Dist: name})
		if err != nil {
			return err
		}
		r := rand.New(rand.NewPCG(*seed, 0))
		xs := make([]int64, *samples)
		sum := 0.0
		for i := range xs {
			xs[i] = d.Sample(r)
			sum += float64(xs[i])
		}
		slices.Sort(xs)
		q := func(p float64) int64 { return xs[min(len(xs)-1, int(math.Ceil(p*float64(len(xs))))-1)] }
		fmt.Printf("%-14s %12.0f %12.0f %12d %12d %8.3f %8.3f\n", name, d.Mean(), sum/float64(len(xs)), q(0.5), q(0.99), d.CDF(1000), d.CDF(10000))
	}
	fmt.Printf("\n%-8s %6s %11s %10s %11s\n", "matrix", "racks", "intra-rack", "intra-pod", "top 5% pairs")
	for _, s := range workload.MatrixSpecs() {
		m, err := workload.LoadMatrix(s.Name, s.Racks)
		if err != nil {
			return err
		}
		rack, pod := m.Shares(s.RacksPerPod)
		fmt.Printf("%-8s %6d %10.3f%% %9.2f%% %10.1f%%\n", s.Name, s.Racks, 100*rack, 100*pod, 100*m.TopShare(0.05))
	}
	return nil
}
