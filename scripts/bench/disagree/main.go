// Command disagree sets an estimator's p99 FCT slowdown against a
// baseline's, both from record frames of the same flows, under the
// slowdown definitions an evaluation could use (metrics.SlowdownDef):
// the same definition on both sides, and each mismatch where one side
// measures differently from the other. It prints a Markdown table: p99
// overall and per Parsimon size bin, and the error. The network comes
// from the baseline frame's spec.
//
//	go run ./scripts/bench/disagree BASELINE.parquet ESTIMATE.parquet
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
)

// pairing is a definition for each side.
type pairing struct {
	name      string
	base, est metrics.SlowdownDef
}

var (
	ours = metrics.SlowdownDef{}
	rtt  = metrics.SlowdownDef{AckFCT: true, RTTIdeal: true}
	ack  = metrics.SlowdownDef{AckFCT: true}
	// pairings: both sides alike, then one side off.
	pairings = []pairing{
		{"both: delivered FCT / one-way ideal (both papers' code)", ours, ours},
		{"both: ack FCT / RTT ideal (original HPCC fork)", rtt, rtt},
		{"baseline ack FCT / RTT ideal, estimate one-way", rtt, ours},
		{"estimate ack FCT / one-way ideal, baseline one-way", ours, ack},
		{"baseline ack FCT / RTT ideal, estimate ack FCT / one-way ideal", rtt, ack},
		{"estimate ideal without propagation", ours, metrics.SlowdownDef{NoProp: true}},
	}
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: disagree BASELINE.parquet ESTIMATE.parquet")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "disagree:", err)
		os.Exit(1)
	}
}

func run(basePath, estPath string) error {
	base, meta, err := frame.ReadRecords(basePath)
	if err != nil {
		return err
	}
	est, emeta, err := frame.ReadRecords(estPath)
	if err != nil {
		return err
	}
	if meta.ScenarioID != emeta.ScenarioID {
		// Different networks are allowed (a variant's ground truth against
		// an estimate on the default network), different flows are not.
		bs, es, err := specs(meta.Spec, emeta.Spec)
		if err != nil {
			return err
		}
		if bs.WorkloadID() != es.WorkloadID() {
			return fmt.Errorf("%s and %s hold different flows (workloads %s and %s)", basePath, estPath, bs.WorkloadID(), es.WorkloadID())
		}
	}
	spec, err := scenario.Parse(strings.NewReader(meta.Spec))
	if err != nil {
		return fmt.Errorf("%s: spec: %w", basePath, err)
	}
	net, err := spec.Topology.Build()
	if err != nil {
		return err
	}
	bins := metrics.ParsimonBins()
	fmt.Printf("| definition | base p99 | est p99 | error | %s |\n| --- | ---: | ---: | ---: |%s\n",
		strings.Join(bins.Labels, " | "), strings.Repeat(" ---: |", bins.Len()))
	for _, p := range pairings {
		b, err := metrics.Redefine(net, spec.Network, base, p.base)
		if err != nil {
			return fmt.Errorf("%s: %w", basePath, err)
		}
		e, err := metrics.Redefine(net, spec.Network, est, p.est)
		if err != nil {
			return fmt.Errorf("%s: %w", estPath, err)
		}
		c := metrics.Compare(e, b, bins, 99)
		fmt.Printf("| %s | %.3f | %.3f | %+.1f%% |", p.name, c.BaseAll, c.All, 100*c.ErrorAll)
		for _, x := range c.Error {
			fmt.Printf(" %+.1f%% |", 100*x)
		}
		fmt.Println()
	}
	return nil
}

func specs(a, b string) (scenario.Spec, scenario.Spec, error) {
	sa, err := scenario.Parse(strings.NewReader(a))
	if err != nil {
		return sa, sa, err
	}
	sb, err := scenario.Parse(strings.NewReader(b))
	return sa, sb, err
}
