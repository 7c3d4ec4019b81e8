// Command m3heldout compares m3 models on the held-out tasks (task index
// % 10 == 9) of training data directories, each directory apart: per
// output bucket, the rows (held-out samples with at least
// m3.MinTargetFlows foreground flows in the bucket), and the mean |p99
// error| and mean signed p99 error of flowSim alone and of each model,
// with the foreground whole and thinned to one flow (m3study.Ablations).
// It shows whether a model trained on one data set holds on another's
// paths, e.g. the embedded model on low-share tasks (gendata -min-share).
// For a network data set (gendata -space table4-fabric), whose drawn paths
// carry a flow or two each, it pools instead: per CC and output bucket,
// the p50 and p99 of the held-out scenarios' drawn paths' flows in
// packetsim, of flowSim on their parking lots, and of each model's
// predicted percentiles (100 per flow, the mixture m3 pools).
//
//	go run ./scripts/bench/m3heldout -data out/m3data,out/m3fg-data -model '' -model out/new/m3.model
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/m3study"
	"github.com/tailscope/tailscope/lib/metrics"
)

func main() {
	data := flag.String("data", "", "data directories from 'tailscope m3 gendata', comma-separated")
	seed := flag.Uint64("seed", 1, "thinning seed")
	paths := flag.Int("paths", m3study.DefaultNetworkPaths, "paths drawn per scenario of a network data set")
	var models []string
	flag.Func("model", "model file, '' for the embedded default (repeatable)", func(s string) error {
		models = append(models, s)
		return nil
	})
	flag.Parse()
	if err := run(strings.Split(*data, ","), models, *seed, *paths); err != nil {
		fmt.Fprintln(os.Stderr, "m3heldout:", err)
		os.Exit(1)
	}
}

func run(dirs, names []string, seed uint64, paths int) error {
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
		ds, manifests, err := m3study.LoadData(dir, m3study.LoadOptions{Seed: seed, NetworkPaths: paths})
		if err != nil {
			return err
		}
		fmt.Printf("%s: %d held-out samples\n", dir, len(ds.Test))
		if m3study.IsNetworkSpace(manifests[0].Space) {
			pooled(ds.Test, names, models)
			continue
		}
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

// pooled prints, per CC and output bucket, the p50 and p99 of the
// held-out network samples' flows: packetsim, flowSim on the lots, and
// each model's predicted percentiles for every flow.
func pooled(test []*m3.Sample, names []string, models []*m3.Model) {
	type key struct {
		cc string
		b  int
	}
	truth, flowsim := map[key][]float64{}, map[key][]float64{}
	pred := make([]map[key][]float64, len(models))
	preds := make([][][][]float64, len(models))
	for i, m := range models {
		pred[i], preds[i] = map[key][]float64{}, m.Predict(test)
	}
	var keys []key
	for j, s := range test {
		for b, ys := range s.TargetFlows {
			k := key{s.Network.CC, b}
			if len(ys) > 0 && truth[k] == nil {
				keys = append(keys, k)
			}
			for _, y := range ys {
				truth[k] = append(truth[k], y)
				flowsim[k] = append(flowsim[k], s.Base[b][0]) // one flow: every percentile
				for i := range models {
					pred[i][k] = append(pred[i][k], preds[i][j][b]...)
				}
			}
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := strings.Compare(a.cc, b.cc); c != 0 {
			return c
		}
		return a.b - b.b
	})
	labels := metrics.M3OutputBins().Labels
	for _, k := range keys {
		line := fmt.Sprintf("  %-13s %-9s flows %5d: p50/p99 packetsim %.2f/%.2f, flowSim %.2f/%.2f",
			k.cc, labels[k.b], len(truth[k]), quantile(truth[k], 0.5), quantile(truth[k], 0.99), quantile(flowsim[k], 0.5), quantile(flowsim[k], 0.99))
		for i := range models {
			line += fmt.Sprintf(", model %q %.2f/%.2f", names[i], quantile(pred[i][k], 0.5), quantile(pred[i][k], 0.99))
		}
		fmt.Println(line)
	}
}

// quantile is the q-quantile of xs (the sorted value at index q*n).
func quantile(xs []float64, q float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[min(len(s)-1, int(q*float64(len(s))))]
}
