// Command speedup measures estimators against a reference estimator
// (packetsim) in wall and CPU time, for one or more tailscope binaries:
// round after round it runs `tailscope run` of every estimator with every
// binary on every spec, one process at a time, and prints each run's wall
// and CPU seconds (user + system, from rusage), peak RSS and Parsimon's
// timings, then per spec, estimator and binary the median wall and CPU
// times and the ratio of the reference's (same binary, same round) to
// them. The records of every binary must equal the first binary's for
// each estimator, value for value, or it stops with an error.
//
// Wall-time ratios mean something only on otherwise idle cores: run it
// on a quiet machine.
//
//	go run ./scripts/bench/speedup -rounds 2 -bin old=OLD -bin new=NEW -estimators packetsim,parsimon,parsimon-c spec.json
package main

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/scripts/bench/internal/bins"
	"github.com/tailscope/tailscope/scripts/bench/internal/records"
)

type run = bins.Usage

func main() {
	var bs bins.Flag
	flag.Var(&bs, "bin", "name=path of a tailscope binary (repeat; the first is the reference for the records)")
	ests := flag.String("estimators", "packetsim,parsimon,parsimon-c", "comma-separated estimators; the first is the reference of the ratios")
	rounds := flag.Int("rounds", 2, "rounds; each runs every estimator of every binary once per spec")
	out := flag.String("out", os.TempDir(), "directory for the frames")
	flag.Parse()
	if len(bs) < 1 || flag.NArg() == 0 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "usage: speedup -bin name=path [-bin name=path ...] [-estimators ref,e1,...] [-rounds N] spec.json ...")
		os.Exit(2)
	}
	if err := measure(bs, strings.Split(*ests, ","), flag.Args(), *rounds, *out); err != nil {
		fmt.Fprintln(os.Stderr, "speedup:", err)
		os.Exit(1)
	}
}

func measure(bs bins.Flag, ests, specs []string, rounds int, out string) error {
	names, paths, err := bs.Split()
	if err != nil {
		return err
	}
	res := map[string][]run{} // spec/estimator/bin -> runs, one per round
	for r := 1; r <= rounds; r++ {
		for _, spec := range specs {
			for _, est := range ests {
				var ref []metrics.Record
				for i := range names {
					x, recs, timings, err := runOnce(paths[i], spec, est, filepath.Join(out, names[i]))
					if err != nil {
						return fmt.Errorf("%s %s on %s: %w", names[i], est, spec, err)
					}
					if i == 0 {
						ref = recs
					} else if err := records.Same(ref, recs); err != nil {
						return fmt.Errorf("%s %s on %s: records differ from %s's: %w", names[i], est, spec, names[0], err)
					}
					k := key(spec, est, names[i])
					res[k] = append(res[k], x)
					fmt.Printf("round %d  %-20s %-11s %-6s wall %8.2f s  cpu %8.2f s  rss %6.0f MiB  %s\n",
						r, filepath.Base(spec), est, names[i], x.Wall, x.CPU, float64(x.RSSKB)/1024, timings)
				}
			}
		}
	}
	fmt.Println()
	for _, spec := range specs {
		for _, est := range ests {
			for _, n := range names {
				rs, base := res[key(spec, est, n)], res[key(spec, ests[0], n)]
				fmt.Printf("%-20s %-11s %-6s median wall %7.2f s, cpu %7.2f s; %s / it: wall x%s, cpu x%s\n",
					filepath.Base(spec), est, n, median(rs, wall), median(rs, cpu), ests[0],
					ratios(base, rs, wall), ratios(base, rs, cpu))
			}
		}
	}
	return nil
}

func key(spec, est, bin string) string { return spec + "/" + est + "/" + bin }

func wall(x run) float64 { return x.Wall }
func cpu(x run) float64  { return x.CPU }

// runOnce runs one estimator of one binary on one spec and reads its
// frame and its timings back.
func runOnce(bin, spec, est, dir string) (run, []metrics.Record, string, error) {
	if err := os.RemoveAll(dir); err != nil {
		return run{}, nil, "", err
	}
	cmd := exec.Command(bin, "run", "-spec", spec, "-estimator", est, "-out", dir)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	x, err := bins.Run(cmd)
	if err != nil {
		return run{}, nil, "", fmt.Errorf("%w: %s", err, log.Bytes())
	}
	frames, err := filepath.Glob(filepath.Join(dir, "*", est+"*.parquet"))
	if err != nil || len(frames) != 1 {
		return run{}, nil, "", fmt.Errorf("want one %s frame under %s, found %v (%v)", est, dir, frames, err)
	}
	recs, meta, err := frame.ReadRecords(frames[0])
	if err != nil {
		return run{}, nil, "", err
	}
	// The estimator's own timings (from the frame's run log), as
	// "name=seconds ...".
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(meta.Timings)) {
		parts = append(parts, fmt.Sprintf("%s=%.2f", k, meta.Timings[k]))
	}
	return x, recs, strings.Join(parts, " "), nil
}

// ratios are base's times over rs's, round by round.
func ratios(base, rs []run, f func(run) float64) string {
	parts := make([]string, len(rs))
	for i := range rs {
		parts[i] = fmt.Sprintf("%.2f", f(base[i])/f(rs[i]))
	}
	return strings.Join(parts, ", ")
}

func median(rs []run, f func(run) float64) float64 {
	v := make([]float64, len(rs))
	for i, x := range rs {
		v[i] = f(x)
	}
	return metrics.Percentile(v, 50)
}
