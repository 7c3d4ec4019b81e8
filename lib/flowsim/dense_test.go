package flowsim

import (
	"context"
	"fmt"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// The dense allocator and the general path must give the same FCTs on
// networks with few routes: parking lots with and without chain
// bottlenecks and binding host rates, and a small fabric with ECMP.
// Both compute the unique max-min allocation, in different orders, so
// finish times may differ by rounding only; records are whole
// nanoseconds, and a finish within rounding of a half nanosecond may
// round either way.
func TestDenseMatchesGeneral(t *testing.T) {
	lot := func(s topo.ParkingLotSpec) func() (*topo.Network, [][2]int, string) {
		return func() (*topo.Network, [][2]int, string) {
			net, err := topo.ParkingLot(s)
			if err != nil {
				t.Fatal(err)
			}
			ends := []int{0}
			for i := 0; i < s.Hops-1; i++ {
				for j := 0; j < s.BackgroundHosts; j++ {
					ends = append(ends, s.BackgroundHost(i, j))
				}
			}
			ends = append(ends, 1)
			var pairs [][2]int
			for i := range ends {
				for j := i + 1; j < len(ends); j++ {
					pairs = append(pairs, [2]int{ends[i], ends[j]})
				}
			}
			return net, pairs, ""
		}
	}
	fabric := func() (*topo.Network, [][2]int, string) {
		net, err := topo.Fabric(topo.FabricSpec{Pods: 1, RacksPerPod: 2, HostsPerRack: 3, Planes: 2, SpinesPerPlane: 1})
		if err != nil {
			t.Fatal(err)
		}
		return net, nil, "uniform"
	}
	cases := []struct {
		name  string
		build func() (*topo.Network, [][2]int, string)
		host  int64 // Options.HostRateBps
		load  float64
	}{
		{"lot6", lot(topo.ParkingLotSpec{Hops: 6, BackgroundHosts: 1}), 0, 0.7},
		{"lot3x2", lot(topo.ParkingLotSpec{Hops: 3, BackgroundHosts: 2}), 0, 0.9},
		{"lot4-mixed", lot(topo.ParkingLotSpec{Hops: 4, BackgroundHosts: 1, Bandwidths: []int64{10e9, 2.5e9, 40e9, 10e9}, HostBandwidth: 25e9}), 0, 0.8},
		{"lot4-hostrate", lot(topo.ParkingLotSpec{Hops: 4, BackgroundHosts: 1}), 4e9, 0.8},
		{"fabric", fabric, 0, 0.7},
		{"fabric-hostrate", fabric, 3e9, 0.7},
	}
	defer func(v int) { denseRoutes = v }(denseRoutes)
	cfg := netcfg.Default()
	for _, c := range cases {
		for seed := uint64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("%s/%d", c.name, seed), func(t *testing.T) {
				net, pairs, matrix := c.build()
				flows, err := workload.Generate(net, workload.Spec{Flows: 3000, Components: []workload.Component{{
					Pairs: pairs, Matrix: matrix,
					Sizes:   workload.SizeSpec{Dist: "pareto", Mean: 20_000},
					Arrival: workload.Arrival{Sigma: 2},
					MaxLoad: c.load,
				}}}, seed)
				if err != nil {
					t.Fatal(err)
				}
				e := newEngine(make([]int64, len(net.Channels)), 0)
				for _, f := range flows {
					path, err := net.Path(f.ID, f.Src, f.Dst)
					if err != nil {
						t.Fatal(err)
					}
					e.intern(path, 0)
				}
				if len(e.routes) > 64 || len(net.Channels) > 64 {
					t.Fatalf("%d routes over %d channels: too many for the dense path", len(e.routes), len(net.Channels))
				}
				opts := Options{HostRateBps: c.host}
				denseRoutes = 64
				fast, err := Run(context.Background(), net, flows, cfg, opts)
				if err != nil {
					t.Fatal(err)
				}
				denseRoutes = 0
				slow, err := Run(context.Background(), net, flows, cfg, opts)
				if err != nil {
					t.Fatal(err)
				}
				slowed := 0
				for i := range fast {
					if d := fast[i].FCT - slow[i].FCT; d < -1 || d > 1 {
						t.Fatalf("flow %d: FCT %d ns on the dense path, %d ns on the general path", flows[i].ID, fast[i].FCT, slow[i].FCT)
					}
					if slow[i].FCT > slow[i].Ideal+1 {
						slowed++
					}
				}
				if slowed < len(flows)/10 {
					t.Errorf("only %d of %d flows were slowed by sharing: the case does not test sharing", slowed, len(flows))
				}
			})
		}
	}
}
