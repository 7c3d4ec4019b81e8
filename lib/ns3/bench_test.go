package ns3

import (
	"context"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// BenchmarkFabric2000 runs 2000 WebServer flows (matrix B, sigma 2) at 30%
// max load on the 32-rack 2:1 fabric, the CI-sized ns-3 scenario,
// and reports ns-3's events per second of the program's own wall time.
func BenchmarkFabric2000(b *testing.B) {
	needNS3(b)
	fs, err := topo.Preset("meta32-2:1")
	if err != nil {
		b.Fatal(err)
	}
	net, err := topo.Fabric(fs)
	if err != nil {
		b.Fatal(err)
	}
	flows, err := workload.Generate(net, workload.Spec{
		Flows: 2000,
		Components: []workload.Component{{
			Matrix:  "B",
			Sizes:   workload.SizeSpec{Dist: "webserver"},
			Arrival: workload.Arrival{Process: "lognormal", Sigma: 2},
			MaxLoad: 0.3,
		}},
	}, 1)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := Build(DefaultProgram()); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var res *Result
	for range b.N {
		if res, err = Simulate(context.Background(), net, flows, netcfg.Default(), Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.Events), "events")
	b.ReportMetric(float64(res.Events)/res.WallSeconds, "events/s")
	b.ReportMetric(float64(res.SimNanos)/1e9, "sim-s")
	b.Logf("preloaded allocator: %q", tcmalloc())
}
