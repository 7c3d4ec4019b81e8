// Command prunes prints the share of link simulations Parsimon/C prunes
// on a spec's network as its flow count grows: for each count it builds
// the scenario, decomposes and clusters its channels as `parsimon-c`
// does (parsimon.Run with clustering on and its default thresholds), and
// stops before the link simulations, so even the papers' 5 s of traffic
// on the 6,144-host fabric takes about a minute.
//
//	go run ./scripts/bench/prunes -flows 6830000,20000000 scripts/bench/specs/meta384-b30.json
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/scenario"
)

func main() {
	flows := flag.String("flows", "", "comma-separated flow counts (empty: the spec's)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: prunes [-flows N,N,...] spec.json")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *flows); err != nil {
		fmt.Fprintln(os.Stderr, "prunes:", err)
		os.Exit(1)
	}
}

// errPlanned stops parsimon.Run once its link simulations are planned.
var errPlanned = errors.New("planned")

func run(path, flows string) error {
	spec, err := scenario.Load(path)
	if err != nil {
		return err
	}
	counts := []int{spec.Workload.Flows}
	if flows != "" {
		counts = counts[:0]
		for _, f := range strings.Split(flows, ",") {
			n, err := strconv.Atoi(f)
			if err != nil || n <= 0 {
				return fmt.Errorf("-flows: %q is not a positive count", f)
			}
			counts = append(counts, n)
		}
	}
	fmt.Println("| flows | arrivals (s) | busy channels | simulated | pruned | build s | setup and clustering s |")
	fmt.Println("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, n := range counts {
		spec.Workload.Flows = n
		t0 := time.Now()
		sc, err := scenario.Build(spec)
		if err != nil {
			return err
		}
		build := time.Since(t0)
		var busy, simulated int
		// Options.Links receives the simulations Parsimon/C kept.
		o := parsimon.Options{Cluster: true, Links: func(_ context.Context, l parsimon.Links, _ func(int, *parsimon.TaskResult) error) error {
			simulated = len(l.Channels)
			for c := range sc.Net.Channels {
				if len(l.D.On(c)) > 0 {
					busy++
				}
			}
			return errPlanned
		}}
		t1 := time.Now()
		if _, err := parsimon.Run(context.Background(), sc.Net, sc.Flows, sc.Spec.Network, o); !errors.Is(err, errPlanned) {
			return fmt.Errorf("%d flows: %v", n, err)
		}
		fmt.Printf("| %d | %.2f | %d | %d | %d (%.1f%%) | %.1f | %.1f |\n", n, float64(sc.Flows[len(sc.Flows)-1].Start)/1e9,
			busy, simulated, busy-simulated, 100*float64(busy-simulated)/float64(busy), build.Seconds(), time.Since(t1).Seconds())
	}
	return nil
}
