// Command accuracycost measures what an accuracy-atlas design costs and
// plans its size from those costs.
//
// measure runs, through the design's own tasks, the first scenario of
// the design that matches each pick and prints its task keys; each
// task's wall and CPU seconds go to DIR/journal.log (the study journal:
// "done <key> <wall s> <CPU s>"). A pick is part:flows:preset[:buffer]
// (buffer "" for infinite, or "per-port buffer", "shared buffer",
// "shared buffer+PFC"), or part:flows:noise for a pair's run under
// further seeds. plan reads a JSON table of mean CPU seconds per
// "<fabric>|<flows>|<buffered>" ("32 racks|50000|", "32 racks|20000|buffer")
// and estimator ("packetsim" stands for every packetsim run) and prints
// the design's expected CPU seconds per part and estimator.
//
// wide-costs.json is the table the wide design was sized with: on the
// 384-rack fabric the means of the scenarios measured at 50k (five
// networks), 200k (three) and 1M flows (DCTCP, WebServer), on the
// 32-rack fabrics at 200k flows the means of results/largescale-paper's
// journal, at 50k one measured scenario and the small archive's cost
// per flow; buffered scenarios at the measured shared-buffer and PFC
// runs (packetsim about twice the unbuffered cost). The measured
// scenarios are in docs/howto/accuracy.md.
//
//	nice -n 19 go run ./scripts/bench/accuracycost measure -size wide -out DIR 384:50000:dctcp 384-1M:1000000:dctcp
//	go run ./scripts/bench/accuracycost plan -size wide scripts/bench/accuracycost/wide-costs.json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/lib/accuracy"
	"github.com/tailscope/tailscope/lib/atlas"
	"github.com/tailscope/tailscope/lib/experiment"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: accuracycost measure|plan [flags] ...")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	size := fs.String("size", "wide", "design (accuracy.Sizes)")
	out := fs.String("out", "", "measure: study directory")
	fs.Parse(os.Args[2:])
	o, ok := accuracy.Sizes[*size]
	if !ok {
		fail(fmt.Errorf("unknown design %q", *size))
	}
	scs, _, err := accuracy.Design(o)
	if err != nil {
		fail(err)
	}
	switch os.Args[1] {
	case "measure":
		if *out == "" {
			fail(fmt.Errorf("measure: -out is required"))
		}
		fail(measure(scs, *out, fs.Args()))
	case "plan":
		if fs.NArg() != 1 {
			fail(fmt.Errorf("plan: one cost table"))
		}
		fail(plan(scs, fs.Arg(0)))
	default:
		fail(fmt.Errorf("unknown verb %q", os.Args[1]))
	}
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "accuracycost:", err)
		os.Exit(1)
	}
}

// match is the first scenario of a pick.
func match(scs []accuracy.Scenario, pick string) (accuracy.Scenario, error) {
	f := strings.Split(pick, ":")
	if len(f) < 3 {
		return accuracy.Scenario{}, fmt.Errorf("pick %q: want part:flows:preset[:buffer] or part:flows:noise", pick)
	}
	flows, err := strconv.Atoi(f[1])
	if err != nil {
		return accuracy.Scenario{}, fmt.Errorf("pick %q: %w", pick, err)
	}
	buffer := ""
	if len(f) > 3 {
		buffer = f[3]
	}
	for _, s := range scs {
		if s.Part != f[0] || s.Spec.Workload.Flows != flows || s.Change != "" {
			continue
		}
		if f[2] == "noise" && s.Sample == accuracy.SampleNoise ||
			s.Sample != accuracy.SampleNoise && s.Preset == f[2] && atlas.BufferBand(s.Spec.Network) == buffer {
			return s, nil
		}
	}
	return accuracy.Scenario{}, fmt.Errorf("pick %q: no scenario of the design matches", pick)
}

func measure(scs []accuracy.Scenario, dir string, picks []string) error {
	for _, p := range picks {
		s, err := match(scs, p)
		if err != nil {
			return err
		}
		c := s.Spec.Workload.Components[0]
		ts, refused := accuracy.Tasks([]accuracy.Scenario{s})
		fmt.Printf("%s: %s: %s %s, %d flows, %s sizes, sigma %g, matrix %s, load %.2f; %d estimators do not model it\n",
			p, s.Spec.Name, s.Preset, s.Spec.Topology.Preset, s.Spec.Workload.Flows, c.Sizes.Dist, c.Arrival.Sigma, c.Matrix, c.MaxLoad, len(refused))
		for _, t := range ts {
			k, _ := t.Key()
			fmt.Println("  task", k)
		}
		if _, err := experiment.Sweep(context.Background(), dir, ts, experiment.Local{}, nil); err != nil {
			return err
		}
	}
	return nil
}

func plan(scs []accuracy.Scenario, table string) error {
	b, err := os.ReadFile(table)
	if err != nil {
		return err
	}
	var cost map[string]map[string]float64
	if err := json.Unmarshal(b, &cost); err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	part, est := map[string]float64{}, map[string]float64{}
	total := 0.0
	for _, s := range scs {
		r := atlas.RegionOf(s.Spec)
		buf := ""
		if r.Buffer != "" {
			buf = "buffer"
		}
		k := fmt.Sprintf("%s|%d|%s", r.Fabric, s.Spec.Workload.Flows, buf)
		c, ok := cost[k]
		if !ok {
			return fmt.Errorf("%s: no costs of %q", table, k)
		}
		for _, e := range append([]string{accuracy.Baseline}, accuracy.EstimatorsOf(s)...) {
			if _, why := accuracy.TaskOf(s, e); why != "" {
				continue
			}
			name := e
			if e == accuracy.SeedNoise {
				name = accuracy.Baseline
			}
			part[s.Part] += c[name]
			est[e] += c[name]
			total += c[name]
		}
	}
	for _, k := range slices.Sorted(maps.Keys(part)) {
		fmt.Printf("part %-10s %7.0f CPU s  %.2f h\n", k, part[k], part[k]/3600)
	}
	for _, k := range slices.Sorted(maps.Keys(est)) {
		fmt.Printf("estimator %-20s %7.0f CPU s\n", k, est[k])
	}
	fmt.Printf("total %.0f CPU s, %.2f h\n", total, total/3600)
	return nil
}
