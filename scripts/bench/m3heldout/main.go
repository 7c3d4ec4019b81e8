// Command m3heldout compares m3 models on the held-out tasks (task index
// % 10 == 9) of training data directories, each directory apart: per
// output bucket, the rows (held-out samples with at least
// m3.MinTargetFlows foreground flows in the bucket), and the mean |p99
// error| and mean signed p99 error of flowSim alone and of each model,
// with the foreground whole and thinned to one flow (m3study.Ablations).
// It shows whether a model trained on one data set holds on another's
// paths, e.g. the embedded model on low-share tasks (gendata -min-share).
//
//	go run ./scripts/bench/m3heldout -data out/m3data,out/m3fg-data -model '' -model out/new/m3.model
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/m3study"
)

func main() {
	data := flag.String("data", "", "data directories from 'tailscope m3 gendata', comma-separated")
	seed := flag.Uint64("seed", 1, "thinning seed")
	var models []string
	flag.Func("model", "model file, '' for the embedded default (repeatable)", func(s string) error {
		models = append(models, s)
		return nil
	})
	flag.Parse()
	if err := run(strings.Split(*data, ","), models, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "m3heldout:", err)
		os.Exit(1)
	}
}

func run(dirs, names []string, seed uint64) error {
	if len(names) == 0 {
		names = []string{""}
	}
	var models []*m3.Model
	for _, n := range names {
		m, err := m3.DefaultModel()
		if n != "" {
			m, err = m3.LoadModel(n)
		}
		if err != nil {
			return err
		}
		models = append(models, m)
	}
	for _, dir := range dirs {
		ds, err := m3.LoadData([]string{dir}, seed)
		if err != nil {
			return err
		}
		fmt.Printf("%s: %d held-out samples\n", dir, len(ds.Test))
		for i, m := range models {
			abls, err := m3study.Ablations(m, ds.Test, seed)
			if err != nil {
				return err
			}
			for _, a := range abls {
				fs, _ := a.Table.Float64s("flowsim_err")
				me, _ := a.Table.Float64s("model_err")
				bucket, _ := a.Table.Strings("bucket")
				for b, label := range a.Buckets {
					var sf, sm float64
					for r, l := range bucket {
						if l == label {
							sf += fs[r]
							sm += me[r]
						}
					}
					n := float64(max(a.Rows[b], 1))
					fmt.Printf("  model %q %s thin %d %-9s rows %4d: flowSim |err| %5.1f%% (signed %+6.1f%%), model |err| %5.1f%% (signed %+6.1f%%)\n",
						names[i], m.Digest(), a.Thin, label, a.Rows[b], 100*a.FlowSimErr[b], 100*sf/n, 100*a.ModErr[b], 100*sm/n)
				}
				all := func(xs []float64) (abs, signed float64) {
					for _, x := range xs {
						abs += math.Abs(x)
						signed += x
					}
					n := float64(max(len(xs), 1))
					return abs / n, signed / n
				}
				fa, fsg := all(fs)
				ma, msg := all(me)
				fmt.Printf("  model %q thin %d all       rows %4d: flowSim |err| %5.1f%% (signed %+6.1f%%), model |err| %5.1f%% (signed %+6.1f%%)\n",
					names[i], a.Thin, len(fs), 100*fa, 100*fsg, 100*ma, 100*msg)
			}
		}
	}
	return nil
}
