// Command parsimonfix measures Parsimon's two departures from the
// published method (a smaller bucket size on sparse links, the window's
// lone-flow delay charged once per path) on the accuracy atlas's
// scenarios, before and after, per size bin.
//
// run reruns Parsimon with each variant's options on the archived atlas
// scenarios of a set and appends one JSON line per scenario and variant
// (its p99 slowdown per size bin) to -out, skipping scenarios already
// there, so a killed run resumes. The link simulations run once per
// window setting; the bucketings replay them. Sets: "sparse" (every
// scenario Parsimon answered, against the archive's packetsim p99),
// "window" (the dctcp scenarios with a 9 KB window, 0.6 of the path's
// bandwidth-delay product; packetsim is run too) and "ns3" (the ns3
// preset with round-robin host NICs, stock TCP's slow start; packetsim
// too). report prints, per set, the p99 error per bin (median and
// p10..p90) of each variant on the tuning half (atlas sample, even
// draws) and the held-out rest.
//
//	nice go run ./scripts/bench/parsimonfix run -set sparse -out sparse.jsonl
//	go run ./scripts/bench/parsimonfix report sparse.jsonl window.jsonl ns3.jsonl
package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/accuracy"
	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/scenario"
)

// line is one scenario's p99 slowdowns under one variant.
type line struct {
	ScenarioID string    `json:"scenario_id"`
	Variant    string    `json:"variant"`
	P99        []float64 `json:"p99"`
}

// variants are each set's option sets; "packetsim" is the baseline run
// beside them where the archive holds none.
var variants = map[string][][2]string{
	"sparse": {{"paper", `{"sparse_bucket_size":100,"window_once":false}`}, {"b50", `{"sparse_bucket_size":50}`},
		{"b20", `{"sparse_bucket_size":20}`}, {"b10", `{"sparse_bucket_size":10}`}, {"b5", `{"sparse_bucket_size":5}`}},
	"window": windowVariants, "ns3": windowVariants,
}

var windowVariants = [][2]string{{"paper", `{"sparse_bucket_size":100,"window_once":false}`}, {"wo", `{"sparse_bucket_size":100,"window_once":true}`},
	{"s5", `{"sparse_bucket_size":5,"window_once":false}`}, {"wo5", `{"sparse_bucket_size":5,"window_once":true}`}}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: parsimonfix run -set sparse|window|ns3 -out FILE | report FILE...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = run(os.Args[2:])
	case "report":
		err = report(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (run, report)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "parsimonfix:", err)
		os.Exit(1)
	}
}

// archived are the atlas's rows of Parsimon (answered or not) by scenario.
func archived(archive string) (map[string]accuracy.Row, error) {
	empty, err := os.MkdirTemp("", "parsimonfix")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(empty)
	rows, err := accuracy.Load(empty, archive, accuracy.Sizes["small"])
	if err != nil {
		return nil, err
	}
	m := map[string]accuracy.Row{}
	for _, r := range rows {
		if r.Estimator == "parsimon" {
			m[r.ScenarioID] = r
		}
	}
	return m, nil
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	set := fs.String("set", "sparse", "sparse, window or ns3")
	out := fs.String("out", "", "JSON lines to append to (resumed)")
	archive := fs.String("archive", "results/accuracy-atlas", "the accuracy atlas's archive")
	fs.Parse(args)
	vs, ok := variants[*set]
	if !ok || *out == "" {
		return fmt.Errorf("run: -set sparse, window or ns3 and -out are needed")
	}
	rows, err := archived(*archive)
	if err != nil {
		return err
	}
	done := map[string]int{}
	if old, err := readLines(*out); err == nil {
		for _, l := range old {
			done[l.ScenarioID]++
		}
	}
	f, err := os.OpenFile(*out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	scs, _, err := accuracy.Design(accuracy.Sizes["small"])
	if err != nil {
		return err
	}
	ctx := estimator.Measuring(context.Background())
	for _, s := range scs {
		id := s.Spec.ID()
		r, ok := rows[id]
		spec := s.Spec
		switch {
		case !ok:
			continue
		case *set == "sparse" && r.Refused != "":
			continue
		case *set == "window" && (s.Preset != "dctcp" || s.Change != "" || r.Refused != ""):
			continue
		case *set == "ns3" && (s.Preset != "ns3" || s.Change != ""):
			continue
		}
		want := len(vs)
		if *set != "sparse" {
			want++
		}
		if done[id] >= want {
			continue
		}
		switch *set {
		case "window":
			spec.Network.DCTCP.WindowBytes = 9000
		case "ns3":
			spec.Network.HostNIC = netcfg.HostNICRoundRobin
		}
		sc, err := scenario.Build(spec)
		if err != nil {
			return err
		}
		var ls []line
		if *set != "sparse" {
			res, err := estimator.Run(ctx, "packetsim", sc, "")
			if err != nil {
				return err
			}
			ls = append(ls, line{id, "packetsim", p99(res.Records)})
		}
		cache := map[bool][]*parsimon.TaskResult{}
		for _, v := range vs {
			po, _, err := estimator.ParsimonOptions("parsimon", sc, v[1])
			if err != nil {
				return err
			}
			po.Links = replay(cache, *po.WindowOnce)
			res, err := parsimon.Run(ctx, sc.Net, sc.Flows, sc.Spec.Network, po)
			if err != nil {
				return fmt.Errorf("scenario %s, %s: %w", id, v[0], err)
			}
			ls = append(ls, line{id, v[0], p99(res.Records)})
		}
		// One write per scenario: a kill loses at most the scenario in
		// flight, never half of one.
		var b strings.Builder
		for _, l := range ls {
			j, _ := json.Marshal(l)
			b.Write(append(j, '\n'))
		}
		if _, err := f.WriteString(b.String()); err != nil {
			return err
		}
	}
	return nil
}

// replay runs the link simulations of the first variant with a window
// setting and hands the same results to the others: bucketing comes
// after them.
func replay(cache map[bool][]*parsimon.TaskResult, once bool) parsimon.LinkRunner {
	return func(ctx context.Context, links parsimon.Links, done func(int, *parsimon.TaskResult) error) error {
		if trs, ok := cache[once]; ok {
			for i, tr := range trs {
				if err := done(i, tr); err != nil {
					return err
				}
			}
			return nil
		}
		be, err := parsimon.BackendByName(parsimon.Backends[0])
		if err != nil {
			return err
		}
		trs := make([]*parsimon.TaskResult, len(links.Channels))
		err = parsimon.RunTasks(ctx, links, be, 0, nil, func(i int, tr *parsimon.TaskResult) error {
			trs[i] = tr
			return done(i, tr)
		})
		if err == nil {
			cache[once] = trs
		}
		return err
	}
}

// p99 is the p99 slowdown per size bin of the atlas, then of all flows.
func p99(recs []metrics.Record) []float64 {
	c := metrics.Compare(recs, recs, accuracy.Bins(), 99)
	return append(c.Est, c.All)
}

func readLines(path string) ([]line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var ls []line
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		ls = append(ls, l)
	}
	return ls, sc.Err()
}

func report(args []string) error {
	fs := flag.NewFlagSet("report", flag.ExitOnError)
	archive := fs.String("archive", "results/accuracy-atlas", "the accuracy atlas's archive")
	fs.Parse(args)
	rows, err := archived(*archive)
	if err != nil {
		return err
	}
	labels := accuracy.Labels()
	for _, path := range fs.Args() {
		ls, err := readLines(path)
		if err != nil {
			return err
		}
		byID := map[string]map[string][]float64{}
		var names []string
		for _, l := range ls {
			if byID[l.ScenarioID] == nil {
				byID[l.ScenarioID] = map[string][]float64{}
			}
			byID[l.ScenarioID][l.Variant] = l.P99
			if l.Variant != "packetsim" && !slices.Contains(names, l.Variant) {
				names = append(names, l.Variant)
			}
		}
		for _, half := range []string{"tuning", "held-out"} {
			var ids []string
			for id, v := range byID {
				r := rows[id]
				tuning := r.Sample == accuracy.SampleAtlas && r.Draw%2 == 0
				_, own := v["packetsim"]
				if (half == "tuning") == tuning && (own || len(rows[id].Base) == len(labels)) {
					ids = append(ids, id)
				}
			}
			slices.Sort(ids)
			fmt.Printf("\n%s, %s\n\n| variant | scenarios | %s | mean abs error over bins |\n|---|---|%s---|\n", path, half, strings.Join(labels, " | "), strings.Repeat("---|", len(labels)))
			for _, name := range names {
				var cells []string
				var abs []float64
				n := 0
				for _, id := range ids {
					if len(byID[id][name]) == len(labels) {
						n++
					}
				}
				if n == 0 {
					continue
				}
				for b := range labels {
					var errs []float64
					for _, id := range ids {
						base := rows[id].Base
						if pk, ok := byID[id]["packetsim"]; ok {
							base = pk
						}
						est := byID[id][name]
						if len(est) != len(labels) || len(base) != len(labels) {
							continue // a variant not run on this scenario
						}
						if e := est[b]/base[b] - 1; !math.IsNaN(e) && !math.IsInf(e, 0) {
							errs = append(errs, e)
							abs = append(abs, math.Abs(e))
						}
					}
					slices.SortFunc(errs, cmp.Compare)
					cells = append(cells, fmt.Sprintf("%+.0f%% (%+.0f..%+.0f)", 100*q(errs, 0.5), 100*q(errs, 0.1), 100*q(errs, 0.9)))
				}
				mean := 0.0
				for _, a := range abs {
					mean += a / float64(len(abs))
				}
				fmt.Printf("| %s | %d | %s | %.1f%% |\n", name, n, strings.Join(cells, " | "), 100*mean)
			}
		}
	}
	return nil
}

// q is the p-quantile of sorted xs, linearly interpolated (NaN if none).
func q(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	k := p * float64(len(xs)-1)
	f := math.Floor(k)
	c := math.Min(f+1, float64(len(xs)-1))
	return xs[int(f)] + (xs[int(c)]-xs[int(f)])*(k-f)
}
