package parsimon

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/internal/stopctx"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// tinyScenario is a fabric of 2 pods x 2 racks x 2 hosts, 2 planes of one
// spine, with n WebServer flows, uniform rack matrix, bursty arrivals
// (sigma 2) at 30% max load.
func tinyScenario(t testing.TB, n int) (*topo.Network, []workload.Flow) {
	t.Helper()
	net, err := topo.Fabric(topo.FabricSpec{Pods: 2, RacksPerPod: 2, HostsPerRack: 2, Planes: 2, SpinesPerPlane: 1,
		HostBandwidth: 10 * gbps, FabricBandwidth: 40 * gbps, Delay: 1000})
	if err != nil {
		t.Fatal(err)
	}
	flows, err := workload.Generate(net, workload.Spec{Flows: n, Components: []workload.Component{{
		Matrix: "uniform", Sizes: workload.SizeSpec{Dist: "webserver"},
		Arrival: workload.Arrival{Process: "lognormal", Sigma: 2}, MaxLoad: 0.3}}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	return net, flows
}

func quantile(recs []metrics.Record, q float64) float64 {
	s := make([]float64, len(recs))
	for i, r := range recs {
		s[i] = r.Slowdown
	}
	sort.Float64s(s)
	return s[int(q*float64(len(s)-1))]
}

// The pool returns the same results whatever its size, in task order, and
// reports progress ending with the full count.
func TestRunTasksDeterministic(t *testing.T) {
	net, flows := tinyScenario(t, 600)
	d, err := Decompose(context.Background(), net, flows, netcfg.Default())
	if err != nil {
		t.Fatal(err)
	}
	links := Links{D: d, Inflation: DefaultInflation}
	for c := range net.Channels {
		if len(d.On(c)) > 0 {
			links.Channels = append(links.Channels, c)
		}
	}
	var runs [][]*TaskResult
	var last [3]any
	report := progress.Func(func(done, total int, what string) { last = [3]any{done, total, what} })
	for _, w := range []int{1, 3} {
		out := make([]*TaskResult, len(links.Channels))
		err := RunTasks(context.Background(), links, Packetsim, w, report, func(i int, r *TaskResult) error {
			if out[i] != nil {
				return fmt.Errorf("channel %d handed over twice", links.Channels[i])
			}
			out[i] = r
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range out {
			if r == nil || r.Channel != links.Channels[i] || len(r.Delays) != len(d.On(links.Channels[i])) {
				t.Fatalf("result %d is %+v; want channel %d with %d flows", i, r, links.Channels[i], len(d.On(links.Channels[i])))
			}
			r.WallSeconds = 0
		}
		runs = append(runs, out)
	}
	if !reflect.DeepEqual(runs[0], runs[1]) {
		t.Error("1 and 3 workers gave different results")
	}
	if want := [3]any{len(links.Channels), len(links.Channels), "link sims"}; last != want {
		t.Errorf("last progress report %v, want %v", last, want)
	}
	stop := errors.New("stop")
	if err := RunTasks(context.Background(), links, Packetsim, 2, nil, func(int, *TaskResult) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("done's error came back as %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := RunTasks(ctx, links, Packetsim, 2, nil, func(int, *TaskResult) error { return nil }); err == nil {
		t.Error("a cancelled context gave no error")
	}
}

// End to end on the tiny fabric: Parsimon and Parsimon/C against the full
// packet-level simulation. Loose sanity bounds only (the accuracy study is
// BenchmarkAccuracy): p50 and p99 slowdowns within a factor 1.5, records
// matching flows, clustering pruning some channels and the channel
// table's representatives consistent.
func TestEndToEndTinyFabric(t *testing.T) {
	net, flows := tinyScenario(t, 4000)
	cfg := netcfg.Default()
	base, err := packetsim.Run(context.Background(), net, flows, cfg, packetsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cluster := range []bool{false, true} {
		res, err := Run(context.Background(), net, flows, cfg, Options{Seed: 1, Cluster: cluster, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Records) != len(flows) {
			t.Fatalf("%d records for %d flows", len(res.Records), len(flows))
		}
		for i, r := range res.Records {
			f := flows[i]
			if r.FlowID != f.ID || r.Src != f.Src || r.Dst != f.Dst || r.Size != f.Size || r.Start != f.Start || r.FCT < r.Ideal {
				t.Fatalf("record %d = %+v for flow %+v", i, r, f)
			}
			if r.Ideal != base.Records[i].Ideal {
				t.Fatalf("flow %d: ideal %d, packetsim's %d", f.ID, r.Ideal, base.Records[i].Ideal)
			}
		}
		// The run draws on the paths of its decomposition; routed again,
		// every flow draws the same.
		again, err := res.Net.EstimateFlows(context.Background(), flows, 1)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, res.Records) {
			t.Errorf("cluster=%v: records differ from the delay network's on routed paths", cluster)
		}
		for _, q := range []float64{0.5, 0.99} {
			est, truth := quantile(res.Records, q), quantile(base.Records, q)
			t.Logf("cluster=%v: p%.0f slowdown %.3f, packetsim %.3f (%+.1f%%); %d simulated, %d pruned", cluster, 100*q, est, truth, 100*(est-truth)/truth, res.Simulated, res.Pruned)
			if est > 1.5*truth || est < truth/1.5 {
				t.Errorf("cluster=%v: p%.0f slowdown %.3f, packetsim %.3f", cluster, 100*q, est, truth)
			}
		}
		busy := 0
		for c, st := range res.Channels {
			if st.Flows > 0 {
				busy++
				rep := res.Channels[st.Representative]
				if rep.Representative != rep.Channel || rep.Kind != st.Kind || res.Net.Channel[c] != res.Net.Channel[rep.Channel] {
					t.Errorf("channel %d: representative %d is not a simulated channel of its kind", c, st.Representative)
				}
			} else if st.Representative != -1 || res.Net.Channel[c] != nil {
				t.Errorf("idle channel %d has representative %d", c, st.Representative)
			}
		}
		if res.Simulated+res.Pruned != busy || (cluster && res.Pruned == 0) || (!cluster && res.Pruned != 0) {
			t.Errorf("cluster=%v: %d simulated + %d pruned, %d busy channels", cluster, res.Simulated, res.Pruned, busy)
		}
		tab := res.ChannelsTable()
		if err := tab.Check(); err != nil || tab.Len() != len(net.Channels) {
			t.Errorf("channels table: %v, %d rows", err, tab.Len())
		}
		if inf := res.InfSeconds(); inf <= 0 || inf > res.SetupSeconds+res.SimSeconds+res.ConvolveSeconds {
			t.Errorf("inf figure %g s out of range", inf)
		}
	}
}

// Links with fewer flows than the bucket size are counted and reported:
// their single bucket is what makes Parsimon overestimate on sparse
// workloads.
func TestSparseWarning(t *testing.T) {
	net, flows := tinyScenario(t, 1000)
	for _, tc := range []struct {
		b   int
		all bool // every simulated link below B
	}{{10, false}, {100_000, true}} {
		var log strings.Builder
		res, err := Run(context.Background(), net, flows, netcfg.Default(), Options{Seed: 1, BucketSize: tc.b, Workers: 2, Progress: progress.NewLine(&log, "parsimon")})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for c, st := range res.Channels {
			if st.Representative == c && st.Flows < tc.b {
				want++
			}
		}
		if tc.all && want != res.Simulated {
			t.Fatalf("B = %d: %d of %d simulated links below B", tc.b, want, res.Simulated)
		}
		if res.Sparse != want || strings.Contains(log.String(), "warning") != (want > 0) {
			t.Errorf("B = %d: %d sparse links reported, want %d; progress:\n%s", tc.b, res.Sparse, want, log.String())
		}
	}
}

// An interrupt stops a run in its decomposition (no link simulation
// starts), its clustering or its convolution, with an error wrapping the
// context's.
func TestRunInterrupted(t *testing.T) {
	net, flows := tinyScenario(t, 2*ctxEvery+1)
	for _, tc := range []struct {
		name    string
		cluster bool
		// cancel, when set, is called once the link simulations are done;
		// otherwise the run's context is a stopctx.After of 2 looks: the
		// first is the routing pool's as it starts, the second the first
		// chunk's at its flow 0; the pool's other worker and the
		// decomposition look once more each on the way out.
		cancel bool
	}{
		{name: "decomposition"},
		{name: "convolution", cancel: true},
		{name: "convolution after clustering", cluster: true, cancel: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ctx context.Context = &stopctx.After{Context: context.Background(), N: 2}
			cancel := func() {}
			if tc.cancel {
				ctx, cancel = context.WithCancel(context.Background())
			}
			linked := false
			res, err := Run(ctx, net, flows, netcfg.Default(), Options{Seed: 1, Cluster: tc.cluster, Workers: 2,
				Links: func(ctx context.Context, links Links, done func(int, *TaskResult) error) error {
					linked = true
					err := RunTasks(context.WithoutCancel(ctx), links, LinkSim, 2, nil, done)
					cancel()
					return err
				}})
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "parsimon: interrupted") || res != nil {
				t.Fatalf("err = %v, result returned %v; want the interrupt and none", err, res != nil)
			}
			if s, ok := ctx.(*stopctx.After); ok && (s.Looks > 4 || linked) {
				t.Errorf("stopped after %d looks, link simulations started %v; want at most 4 and none", s.Looks, linked)
			}
			if tc.cancel && !linked {
				t.Error("interrupted before the link simulations")
			}
		})
	}
}

// Clustering and the convolution stop at their second look at a context
// cancelled from then on: the first is at the start, the second comes
// after one representative (three far apart loads, so three clusters) or,
// on one worker, before the first chunk of ctxEvery flows is emitted.
func TestInterruptedSteps(t *testing.T) {
	net, flows := tinyScenario(t, 2*ctxEvery+1)
	feats := []Features{{Load: 0.1}, {Load: 0.5}, {Load: 0.2}}
	for _, tc := range []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"clustering", func(ctx context.Context) error {
			_, err := Cluster(ctx, feats, ClusterOptions{})
			return err
		}},
		{"convolution", func(ctx context.Context) error {
			// One worker: the pool's look before the first chunk, then
			// the look before it is emitted.
			d := NewDelayNet(net, netcfg.Default())
			d.Workers = 1
			_, err := d.EstimateFlows(ctx, flows, 1)
			return err
		}},
	} {
		ctx := &stopctx.After{Context: context.Background(), N: 2}
		if err := tc.run(ctx); !errors.Is(err, context.Canceled) || ctx.Looks != 2 {
			t.Errorf("%s: err = %v after %d looks; want the interrupt at look 2", tc.name, err, ctx.Looks)
		}
	}
}

// On a sparse link (fewer flows than B) a long flow alone on it takes
// about its ideal FCT, yet with the published bucketing it draws the
// packet-normalized delays of short flows that queued in bursts and
// multiplies them by its own packet count. Bucketed by
// SparseBucketSize, the long flows form a bucket of their own and their
// estimate is packetsim's; a SparseBucketSize of B is the published
// bucketing.
func TestSparseLinkBuckets(t *testing.T) {
	net, _ := tinyScenario(t, 2)
	hosts := net.Hosts()
	var flows []workload.Flow
	// Six bursts of seven short flows into hosts[0], 1 ms apart...
	for w := range 6 {
		for i, src := range hosts[1:] {
			flows = append(flows, workload.Flow{ID: len(flows), Src: src, Dst: hosts[0], Size: int64(1000 * (1 + i%2)), Start: int64(w) * 1_000_000})
		}
	}
	// ...then five long flows, each alone.
	for k := range 5 {
		flows = append(flows, workload.Flow{ID: len(flows), Src: hosts[1], Dst: hosts[0], Size: 1_000_000, Start: 10_000_000 + int64(k)*2_000_000})
	}
	cfg := netcfg.Default()
	truth, err := packetsim.Run(context.Background(), net, flows, cfg, packetsim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sparse int
		lo, hi float64 // the long flows' mean FCT over packetsim's
	}{{DefaultBucketSize, 1.5, 100}, {5, 0.97, 1.03}, {10, 0.97, 1.03}} {
		t.Run(fmt.Sprintf("sparse B %d", tc.sparse), func(t *testing.T) {
			res, err := Run(context.Background(), net, flows, cfg, Options{Seed: 1, Workers: 1, SparseBucketSize: tc.sparse})
			if err != nil {
				t.Fatal(err)
			}
			if res.Sparse == 0 {
				t.Fatal("no sparse link")
			}
			var est, tr float64
			for i := len(flows) - 5; i < len(flows); i++ {
				est += float64(res.Records[i].FCT)
				tr += float64(truth.Records[i].FCT)
			}
			r := est / tr
			t.Logf("long flows' mean FCT %.0f ns, packetsim %.0f ns: ratio %.2f", est/5, tr/5, r)
			if r < tc.lo || r > tc.hi {
				t.Errorf("long flows' mean FCT %.0f ns, packetsim %.0f ns: ratio %.2f, want %g-%g", est/5, tr/5, r, tc.lo, tc.hi)
			}
		})
	}
}

// The B a channel's delays are bucketed with: SparseBucketSize below B
// records, never more than B.
func TestBucketSizeOfChannel(t *testing.T) {
	for _, tc := range []struct{ b, sparse, n, want int }{
		{100, 10, 99, 10}, {100, 10, 100, 100}, {100, 10, 5000, 100},
		{100, 100, 3, 100}, {100, 500, 3, 100}, {50, 10, 49, 10}, {50, 10, 50, 50},
	} {
		o := Options{BucketSize: tc.b, SparseBucketSize: tc.sparse}
		if got := o.bucketSize(tc.n); got != tc.want {
			t.Errorf("B %d, sparse B %d, %d records: B %d, want %d", tc.b, tc.sparse, tc.n, got, tc.want)
		}
	}
}
