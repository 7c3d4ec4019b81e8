// Command psimscale measures packetsim binaries against each other: it
// runs `tailscope run --estimator packetsim` of each binary on each spec,
// alternating the binaries round after round so that a shared machine's
// load falls on both alike, and prints per run the CPU seconds (user +
// system, from rusage), peak RSS, packet-hops per CPU second (from the
// frame's packet_hops) and, per spec, the ratio of the binaries' rates.
// The records of every binary must equal the first binary's (value for
// value), or it stops with an error.
//
//	go run ./scripts/bench/psimscale -rounds 3 -bin old=/path/old/tailscope -bin new=/path/new/tailscope spec1.json spec2.json
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/scripts/bench/internal/bins"
	"github.com/tailscope/tailscope/scripts/bench/internal/records"
)

type run struct {
	bins.Usage
	hops int64
}

func main() {
	var bs bins.Flag
	flag.Var(&bs, "bin", "name=path of a tailscope binary (repeat; the first is the reference)")
	rounds := flag.Int("rounds", 3, "rounds; each runs every binary once per spec")
	out := flag.String("out", os.TempDir(), "directory for the frames")
	flag.Parse()
	if len(bs) < 1 || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: psimscale -bin name=path [-bin name=path ...] spec.json ...")
		os.Exit(2)
	}
	if err := measure(bs, flag.Args(), *rounds, *out); err != nil {
		fmt.Fprintln(os.Stderr, "psimscale:", err)
		os.Exit(1)
	}
}

func measure(bs bins.Flag, specs []string, rounds int, out string) error {
	names, paths, err := bs.Split()
	if err != nil {
		return err
	}
	res := map[string][]run{} // spec/bin -> runs
	for r := 0; r < rounds; r++ {
		for _, spec := range specs {
			var ref []metrics.Record
			for i := range names {
				dir := filepath.Join(out, names[i])
				x, recs, err := runOnce(paths[i], spec, dir)
				if err != nil {
					return fmt.Errorf("%s on %s: %w", names[i], spec, err)
				}
				if i == 0 {
					ref = recs
				} else if err := records.Same(ref, recs); err != nil {
					return fmt.Errorf("%s on %s: records differ from %s's: %w", names[i], spec, names[0], err)
				}
				key := spec + "/" + names[i]
				res[key] = append(res[key], x)
				fmt.Printf("round %d  %-28s %-6s cpu %8.2f s  wall %8.2f s  rss %7.0f MiB  %6.2fM hops/cpu-s\n",
					r+1, filepath.Base(spec), names[i], x.CPU, x.Wall, float64(x.RSSKB)/1024, float64(x.hops)/x.CPU/1e6)
			}
		}
	}
	fmt.Println()
	for _, spec := range specs {
		base := rate(res[spec+"/"+names[0]])
		for i := range names {
			rs := res[spec+"/"+names[i]]
			fmt.Printf("%-28s %-6s median %6.2fM hops/cpu-s (x%.2f of %s), cpu s %s, peak rss %s MiB\n",
				filepath.Base(spec), names[i], rate(rs)/1e6, rate(rs)/base, names[0], list(rs, func(x run) float64 { return x.CPU }), list(rs, func(x run) float64 { return float64(x.RSSKB) / 1024 }))
		}
	}
	return nil
}

// runOnce runs one binary on one spec and reads its frame back.
func runOnce(bin, spec, dir string) (run, []metrics.Record, error) {
	if err := os.RemoveAll(dir); err != nil {
		return run{}, nil, err
	}
	cmd := exec.Command(bin, "run", "-spec", spec, "-estimator", "packetsim", "-out", dir)
	cmd.Stderr = os.Stderr
	u, err := bins.Run(cmd)
	if err != nil {
		return run{}, nil, err
	}
	frames, err := filepath.Glob(filepath.Join(dir, "*", "packetsim.parquet"))
	if err != nil || len(frames) != 1 {
		return run{}, nil, fmt.Errorf("want one frame under %s, found %v (%v)", dir, frames, err)
	}
	recs, meta, err := frame.ReadRecords(frames[0])
	if err != nil {
		return run{}, nil, err
	}
	hops, err := strconv.ParseInt(meta.Extra["packet_hops"], 10, 64)
	if err != nil {
		return run{}, nil, fmt.Errorf("frame has no packet_hops: %w", err)
	}
	return run{Usage: u, hops: hops}, recs, nil
}

// rate is the median of the runs' packet-hops per CPU second.
func rate(rs []run) float64 {
	v := make([]float64, len(rs))
	for i, x := range rs {
		v[i] = float64(x.hops) / x.CPU
	}
	return metrics.Percentile(v, 50)
}

func list(rs []run, f func(run) float64) string {
	parts := make([]string, len(rs))
	for i, x := range rs {
		parts[i] = strconv.FormatFloat(f(x), 'f', 1, 64)
	}
	return strings.Join(parts, ", ")
}
