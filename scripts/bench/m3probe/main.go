// Command m3probe asks whether m3's model is biased on parking lots of a
// given kind: it draws training-like tasks (m3.RandomTask, then 4 or 6
// hops, WebServer sizes, the default network, and the flows, max load,
// foreground share, arrival sigma, background hosts and inner-segment
// weight given), simulates each with flowSim and packetsim (m3.RunTask),
// thins its foreground to one flow as a fabric path has, and prints the
// mean signed p99 error of flowSim and of the model against packetsim per
// output bucket, for lots whose busiest hop is a host link (an end of the
// chain) and for those whose busiest hop is an inner, fabric link.
//
//	go run ./scripts/bench/m3probe -tasks 80 -inner-weight 16 -background-hosts 16
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

type options struct {
	tasks, flows, bgHosts, inner int
	seed                         uint64
	loadLo, loadHi               float64
	shareLo, shareHi             float64
	sigma                        float64
	modelPath                    string
}

func main() {
	var o options
	flag.IntVar(&o.tasks, "tasks", 40, "parking lots")
	flag.IntVar(&o.flows, "flows", 4000, "flows per parking lot")
	flag.IntVar(&o.bgHosts, "background-hosts", m3.DefaultBackgroundHosts, "hosts per attachment group")
	flag.IntVar(&o.inner, "inner-weight", 0, "m3.Task.InnerWeight")
	flag.Uint64Var(&o.seed, "seed", 1, "task draws")
	flag.Float64Var(&o.loadLo, "load-min", 0.04, "max load, log-uniform from")
	flag.Float64Var(&o.loadHi, "load-max", 0.24, "max load, log-uniform to")
	flag.Float64Var(&o.shareLo, "share-min", 0.2, "foreground share, log-uniform from")
	flag.Float64Var(&o.shareHi, "share-max", 0.5, "foreground share, log-uniform to")
	flag.Float64Var(&o.sigma, "sigma", 0, "log-normal arrival sigma (0: the task's draw, 1-2)")
	flag.StringVar(&o.modelPath, "model", "", "model file ('' the embedded model)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "m3probe:", err)
		os.Exit(1)
	}
}

// task draws probe task i.
func (o options) task(i int) m3.Task {
	t := m3.RandomTask(o.seed, i, o.flows)
	r := rand.New(rand.NewPCG(o.seed, 0x70726f6265+uint64(i))) // "probe"
	logUniform := func(lo, hi float64) float64 { return lo * math.Pow(hi/lo, r.Float64()) }
	t.Hops = []int{4, 6}[r.IntN(2)]
	t.Bandwidths = nil
	for h := range t.Hops {
		bw := 40 * topo.Gbps
		if h == 0 || h == t.Hops-1 {
			bw = 10 * topo.Gbps
		}
		t.Bandwidths = append(t.Bandwidths, bw)
	}
	t.MaxLoad = logUniform(o.loadLo, o.loadHi)
	t.ForegroundShare = logUniform(o.shareLo, o.shareHi)
	t.Sizes = workload.SizeSpec{Dist: "webserver"}
	if o.sigma > 0 {
		t.Sigma = o.sigma
	}
	t.BackgroundHosts, t.InnerWeight = o.bgHosts, o.inner
	t.Network = netcfg.Default()
	return t
}

// hostBound reports whether the busiest chain hop of r (bytes over
// bandwidth) is an end hop.
func hostBound(r *m3.TaskResult) bool {
	h := r.Task.Hops
	busy := make([]float64, h)
	for i, sz := range r.Sizes {
		for c := r.First[i]; c <= r.Last[i]; c++ {
			busy[c] += float64(sz) / float64(r.Task.Bandwidths[c])
		}
	}
	best := 0
	for c := range h {
		if busy[c] > busy[best] {
			best = c
		}
	}
	return best == 0 || best == h-1
}

func run(o options) error {
	model, err := m3.DefaultModel()
	if o.modelPath != "" {
		model, err = m3.LoadModel(o.modelPath)
	}
	if err != nil {
		return err
	}
	results := make([]*m3.TaskResult, o.tasks)
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(runtime.NumCPU())
	for i := range results {
		g.Go(func() error {
			var err error
			results[i], err = m3.RunTask(ctx, o.task(i))
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	type acc struct {
		n                 int
		flowSim, modelErr float64
	}
	var sums [2][]acc // host-bound, fabric-bound; per bucket
	for k := range sums {
		sums[k] = make([]acc, metrics.M3OutputBins().Len())
	}
	r := rand.New(rand.NewPCG(o.seed, 0x7468)) // "th"
	for _, res := range results {
		s, err := res.Sample(false)
		if err != nil {
			return err
		}
		thin := s.Thin(1, r)
		pred := model.Predict([]*m3.Sample{thin})[0]
		k := 1
		if hostBound(res) {
			k = 0
		}
		for b, row := range s.Target {
			if s.TargetCount[b] < m3.MinTargetFlows {
				continue
			}
			t := row[m3.NumPercentiles-2]
			a := &sums[k][b]
			a.n++
			a.flowSim += thin.Base[b][m3.NumPercentiles-2]/t - 1
			a.modelErr += pred[b][m3.NumPercentiles-2]/t - 1
		}
	}
	labels := metrics.M3OutputBins().Labels
	for k, name := range []string{"busiest hop a host link", "busiest hop a fabric link"} {
		for b, a := range sums[k] {
			if a.n == 0 {
				continue
			}
			fmt.Printf("%s, %-9s %3d lots: mean signed p99 error, one foreground flow: flowSim %+6.1f%%, model %+6.1f%%\n",
				name, labels[b], a.n, 100*a.flowSim/float64(a.n), 100*a.modelErr/float64(a.n))
		}
	}
	return nil
}
