//go:build unix

package m3_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tailscope/tailscope/internal/cputime"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/scenario"
)

// fabricScenario is the Parsimon issue's scenario (lib/parsimon's
// accuracy benchmark): meta32-2:1, matrix B, WebServer, sigma 2.
func fabricScenario(b *testing.B, flows int, load float64) *scenario.Scenario {
	spec := scenario.Default()
	spec.Name = fmt.Sprintf("m3-accuracy-%g", load)
	spec.Workload.Flows = flows
	spec.Workload.Components[0].MaxLoad = load
	sc, err := scenario.Build(spec)
	if err != nil {
		b.Fatal(err)
	}
	return sc
}

// BenchmarkRunFabric times m3 with the embedded model on the fabric
// scenario at 30% load with 200k flows (500 paths).
func BenchmarkRunFabric(b *testing.B) {
	sc := fabricScenario(b, 200_000, 0.3)
	model, err := m3.DefaultModel()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m3.Run(context.Background(), sc.Net, sc.Flows, sc.Spec.Network, m3.Options{Seed: 1, Model: model}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecompose times the path decomposition (routing, grouping,
// channel index) of 300k flows on the 6,144-host fabric (meta384-2:1,
// matrix B, WebServer, sigma 2, 30% max load), where nearly every flow has
// a path of its own.
func BenchmarkDecompose(b *testing.B) {
	spec := scenario.Default()
	spec.Topology.Preset = "meta384-2:1"
	spec.Workload.Flows = 300_000
	spec.Workload.Components[0].MaxLoad = 0.3
	sc, err := scenario.Build(spec)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, err := m3.Decompose(sc.Net, sc.Flows)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(d.NumPaths()), "paths")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(sc.Flows)), "ns/flow")
}

// BenchmarkAccuracy is the network-wide study: m3 (embedded model), m3
// without the model (flowSim alone) and Parsimon against full-network
// packetsim, p99 slowdown per m3 output bucket and overall, with wall and
// CPU times. Heavy: run with -benchtime 1x. TAILSCOPE_M3_FLOWS sets the
// flows (default 200000), TAILSCOPE_M3_LOADS the max loads in percent
// (default "30,60"), TAILSCOPE_M3_SEEDS the scenario seeds (default "1"),
// TAILSCOPE_M3_OUT a Parquet file for the comparison frame.
func BenchmarkAccuracy(b *testing.B) {
	flows := 200_000
	if s := os.Getenv("TAILSCOPE_M3_FLOWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			b.Fatalf("TAILSCOPE_M3_FLOWS=%q: want a positive integer", s)
		}
		flows = n
	}
	list := func(name, def string) []float64 {
		s := os.Getenv(name)
		if s == "" {
			s = def
		}
		var out []float64
		for _, f := range strings.Split(s, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				b.Fatalf("%s: bad entry %q", name, f)
			}
			out = append(out, v)
		}
		return out
	}
	loads, seeds := list("TAILSCOPE_M3_LOADS", "30,60"), list("TAILSCOPE_M3_SEEDS", "1")
	model, err := m3.DefaultModel()
	if err != nil {
		b.Fatal(err)
	}
	var rows comparisonRows
	for i := 0; i < b.N; i++ {
		for _, load := range loads {
			for _, seed := range seeds {
				accuracy(b, flows, load/100, uint64(seed), model, &rows)
			}
		}
	}
	if out := os.Getenv("TAILSCOPE_M3_OUT"); out != "" {
		if err := frame.WriteTable(out, rows.table()); err != nil {
			b.Fatal(err)
		}
	}
}

type comparisonRows struct {
	load                      []float64
	seed                      []int64
	estimator, bucket         []string
	est, base, err, wall, cpu []float64
}

func (r *comparisonRows) add(load float64, seed uint64, name string, c metrics.Comparison, wall, cpu float64) {
	for i, l := range append(append([]string(nil), c.Labels...), "all") {
		e, bs, er := c.All, c.BaseAll, c.ErrorAll
		if i < len(c.Labels) {
			e, bs, er = c.Est[i], c.Base[i], c.Error[i]
		}
		r.load, r.seed, r.estimator, r.bucket = append(r.load, load), append(r.seed, int64(seed)), append(r.estimator, name), append(r.bucket, l)
		r.est, r.base, r.err, r.wall, r.cpu = append(r.est, e), append(r.base, bs), append(r.err, er), append(r.wall, wall), append(r.cpu, cpu)
	}
}

func (r *comparisonRows) table() *frame.Table {
	return &frame.Table{Columns: []frame.Column{
		frame.Float64Column("max_load", r.load), frame.Int64Column("seed", r.seed),
		frame.StringColumn("estimator", r.estimator), frame.StringColumn("bucket", r.bucket),
		frame.Float64Column("est_p99", r.est), frame.Float64Column("packetsim_p99", r.base),
		frame.Float64Column("p99_err", r.err), frame.Float64Column("wall_s", r.wall), frame.Float64Column("cpu_s", r.cpu),
	}}
}

func accuracy(b *testing.B, n int, load float64, seed uint64, model *m3.Model, rows *comparisonRows) {
	sc := fabricScenario(b, n, load)
	if seed != sc.Spec.Seed {
		spec := sc.Spec
		spec.Seed = seed
		var err error
		if sc, err = scenario.Build(spec); err != nil {
			b.Fatal(err)
		}
	}
	cfg := sc.Spec.Network
	t0, c0 := time.Now(), cputime.Used().Seconds()
	base, err := packetsim.Run(context.Background(), sc.Net, sc.Flows, cfg, packetsim.Options{})
	if err != nil {
		b.Fatal(err)
	}
	baseWall, baseCPU := time.Since(t0).Seconds(), cputime.Used().Seconds()-c0
	fmt.Printf("\n== meta32-2:1, matrix B, WebServer, sigma 2, max load %g%%, seed %d, %d flows ==\npacketsim: %.1f s wall, %.1f s CPU\n", 100*load, seed, n, baseWall, baseCPU)
	bins := metrics.M3OutputBins()
	for _, name := range []string{"m3", "m3-flowsim-only", "parsimon"} {
		t0, c0 := time.Now(), cputime.Used().Seconds()
		var recs []metrics.Record
		switch name {
		case "parsimon":
			res, err := parsimon.Run(context.Background(), sc.Net, sc.Flows, cfg, parsimon.Options{Seed: sc.Spec.Seed})
			if err != nil {
				b.Fatal(err)
			}
			recs = res.Records
		default:
			o := m3.Options{Seed: sc.Spec.Seed}
			if name == "m3" {
				o.Model = model
			}
			est, err := m3.Run(context.Background(), sc.Net, sc.Flows, cfg, o)
			if err != nil {
				b.Fatal(err)
			}
			recs = est.Records
		}
		wall, cpu := time.Since(t0).Seconds(), cputime.Used().Seconds()-c0
		c := metrics.Compare(recs, base.Records, bins, 99)
		mean := 0.0
		for _, e := range c.Error {
			mean += math.Abs(e) / float64(len(c.Error))
		}
		fmt.Printf("-- %s: %.1f s wall, %.1f s CPU (%.1fx / %.1fx faster than packetsim), mean |p99 err| over buckets %.1f%%\n%s",
			name, wall, cpu, baseWall/wall, baseCPU/cpu, 100*mean, c.String())
		rows.add(load, seed, name, c, wall, cpu)
		b.ReportMetric(100*mean, fmt.Sprintf("%s-mean-abs-p99-err%%-load%g-seed%d", name, 100*load, seed))
	}
	rows.add(load, seed, "packetsim", metrics.Compare(base.Records, base.Records, bins, 99), baseWall, baseCPU)
}
