// Command parscale measures packetsim's parallel engine against its
// sequential one: round after round it runs each spec at each worker
// count in this process, one run at a time (so a shared machine's load
// falls on all alike), and prints per run the wall and CPU seconds
// (user + system of the process) and, for parallel runs, what a model of
// the speed on more cores needs: partitions, lookahead, windows (and per
// simulated second), events and cross-partition messages per partition,
// busy time per partition, the sum over windows of the slowest
// partition's time, the coordinator's time and the barriers' cost per
// window. Every run's records must equal the first worker count's
// (a digest of every record's fields), or it stops with an error.
//
// Before every parallel run it measures how long a cache line takes to
// go from one core to another and back (two threads passing a counter):
// on a virtual machine that round trip changes with where the host puts
// the machine's cores, and a parallel run, which passes lines between
// its workers every window, runs slower when it is long.
//
// With -within-pods it keeps only the flows whose two ends lie in one
// pod: on a fabric whose pods the workers divide, no packet then crosses
// between partitions, and what two workers still lose against one is
// the windows' cost alone (their barriers and the workers' unequal
// shares of each window).
//
//	go run ./scripts/bench/parscale -workers 1,2 -rounds 2 -flows 200000 scripts/bench/specs/meta32-b30-200k.json
package main

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tailscope/tailscope/internal/cputime"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

func main() {
	workers := flag.String("workers", "1,2", "comma-separated worker counts; the first is the reference for the records")
	rounds := flag.Int("rounds", 2, "rounds; each runs every spec at every worker count once")
	flows := flag.Int("flows", 0, "flows per run, overriding the specs' count (0: the spec's)")
	withinPods := flag.Bool("within-pods", false, "keep only the flows whose two ends lie in one pod")
	flag.Parse()
	var ws []int
	for _, f := range strings.Split(*workers, ",") {
		w, err := strconv.Atoi(f)
		if err != nil || w < 1 {
			fmt.Fprintf(os.Stderr, "parscale: bad worker count %q\n", f)
			os.Exit(2)
		}
		ws = append(ws, w)
	}
	if flag.NArg() == 0 || *rounds < 1 {
		fmt.Fprintln(os.Stderr, "usage: parscale [-workers 1,2] [-rounds N] [-flows N] [-within-pods] spec.json ...")
		os.Exit(2)
	}
	if err := measure(flag.Args(), ws, *rounds, *flows, *withinPods); err != nil {
		fmt.Fprintln(os.Stderr, "parscale:", err)
		os.Exit(1)
	}
}

type result struct {
	wall, cpu time.Duration
	digest    uint64
	n         int
	res       *packetsim.Result
}

func measure(specs []string, ws []int, rounds, flows int, withinPods bool) error {
	digests := map[string]uint64{}
	walls := map[string][]float64{}
	for r := 1; r <= rounds; r++ {
		for _, path := range specs {
			for _, w := range ws {
				if w > 1 && runtime.GOMAXPROCS(0) > 1 { // with one, the two spinners would take turns
					fmt.Printf("%s round %d workers %d: cache-line round trip %.0f ns\n", path, r, w, roundTrip())
				}
				res, err := runOnce(path, w, flows, withinPods)
				if err != nil {
					return err
				}
				key := fmt.Sprintf("%s/%d", path, w)
				if d, ok := digests[path]; !ok {
					digests[path] = res.digest
				} else if d != res.digest {
					return fmt.Errorf("%s: records at %d workers differ from %d workers'", path, w, ws[0])
				}
				walls[key] = append(walls[key], res.wall.Seconds())
				report(path, r, w, res)
			}
		}
	}
	fmt.Println("\nspec\tworkers\tmedian wall s\tspeed-up over first")
	for _, path := range specs {
		ref := median(walls[fmt.Sprintf("%s/%d", path, ws[0])])
		for _, w := range ws {
			m := median(walls[fmt.Sprintf("%s/%d", path, w)])
			fmt.Printf("%s\t%d\t%.1f\t%.2fx\n", path, w, m, ref/m)
		}
	}
	return nil
}

func runOnce(path string, workers, flows int, withinPods bool) (*result, error) {
	spec, err := scenario.Load(path)
	if err != nil {
		return nil, err
	}
	if flows > 0 {
		spec.Workload.Flows = flows
	}
	sc, err := scenario.BuildNet(spec)
	if err != nil {
		return nil, err
	}
	src, err := sc.Source()
	if err != nil {
		return nil, err
	}
	if withinPods {
		src = &podSource{src: src, net: sc.Net}
	}
	h := fnv.New64a()
	var buf []byte
	out := &result{}
	t0, c0 := time.Now(), cputime.Used()
	res, err := packetsim.Stream(context.Background(), sc.Net, src, sc.Spec.Network, packetsim.Options{Seed: sc.Spec.Seed, Workers: workers}, func(r metrics.Record) error {
		buf = fmt.Appendf(buf[:0], "%d %d %d %d %x;", r.FlowID, r.Size, r.FCT, r.Ideal, math.Float64bits(r.Slowdown))
		h.Write(buf)
		out.n++
		return nil
	})
	out.wall, out.cpu = time.Since(t0), cputime.Used()-c0
	if err != nil {
		return nil, err
	}
	out.digest, out.res = h.Sum64(), res
	return out, nil
}

// podSource passes on the flows of src whose two ends lie in one pod of
// net, numbered again from 0 in order.
type podSource struct {
	src workload.Source
	net *topo.Network
	n   int
}

func (p *podSource) Next() (workload.Flow, bool) {
	for {
		f, ok := p.src.Next()
		if !ok {
			return f, false
		}
		if p.net.Nodes[f.Src].Pod == p.net.Nodes[f.Dst].Pod {
			f.ID = p.n
			p.n++
			return f, true
		}
	}
}

func (p *podSource) Err() error { return p.src.Err() }

// roundTrip returns the mean time, in nanoseconds, of a cache line's
// round trip between two threads, each spinning on the counter the other
// writes: the cost of passing a line from one core to another and back
// when the threads run on two cores (GOMAXPROCS of at least 2).
func roundTrip() float64 {
	const n = 200_000
	var ping, pong struct {
		_ [64]byte
		v atomic.Int64
		_ [64]byte
	}
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for i := int64(1); i <= n; i++ {
			for ping.v.Load() != i {
			}
			pong.v.Store(i)
		}
		close(done)
	}()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t := time.Now()
	for i := int64(1); i <= n; i++ {
		ping.v.Store(i)
		for pong.v.Load() != i {
		}
	}
	<-done
	return float64(time.Since(t).Nanoseconds()) / n
}

func report(path string, round, w int, r *result) {
	res := r.res
	fmt.Printf("%s round %d workers %d: %d records, wall %.1f s, cpu %.1f s, %d events, %d packet-hops, %.0f simulated us, digest %016x\n",
		path, round, w, r.n, r.wall.Seconds(), r.cpu.Seconds(), res.Events, res.PacketHops, float64(res.EndNanos)/1e3, r.digest)
	p := res.Parallel
	if p == nil {
		return
	}
	var ev, msgs, busy int64
	for i := range p.Events {
		ev += p.Events[i]
		msgs += p.Messages[i]
		busy += p.Busy[i]
	}
	simS := float64(res.EndNanos) / 1e9
	barrier := p.Wall - p.Critical - p.Serial
	fmt.Printf("  partitions %d (nodes %v, %d channels between), lookahead %.0f ns, %d windows (%.3g per simulated s)\n",
		p.Partitions, p.Nodes, p.CrossChannels, p.LookaheadNanos, p.Windows, float64(p.Windows)/simS)
	fmt.Printf("  events per partition %v (max/mean %.3f), messages per partition %v (%.1f per window, %.3f per event)\n",
		p.Events, maxOverMean(p.Events), p.Messages, float64(msgs)/float64(p.Windows), float64(msgs)/float64(ev))
	fmt.Printf("  busy s per partition %v; critical %.1f s, serial %.1f s, barriers %.1f s (%.2f us per window), wall %.1f s; %.0f ns per event busy\n",
		seconds(p.Busy), float64(p.Critical)/1e9, float64(p.Serial)/1e9, float64(barrier)/1e9, float64(barrier)/1e3/float64(p.Windows), float64(p.Wall)/1e9, float64(busy)/float64(ev))
}

func maxOverMean(xs []int64) float64 {
	var m, s int64
	for _, x := range xs {
		m = max(m, x)
		s += x
	}
	return float64(m) * float64(len(xs)) / float64(s)
}

func seconds(ns []int64) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = fmt.Sprintf("%.1f", float64(n)/1e9)
	}
	return out
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	if len(s) == 0 {
		return math.NaN()
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
