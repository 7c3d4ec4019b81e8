package packetsim

import (
	"context"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// must fails the test on a topology builder's error.
func must(t testing.TB, n *topo.Network, err error) *topo.Network {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func fabric(t testing.TB, preset string) *topo.Network {
	t.Helper()
	spec, err := topo.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	n, err := topo.Fabric(spec)
	return must(t, n, err)
}

// A lone flow meets nothing in any queue, so its FCT must equal the
// closed-form ideal FCT to the nanosecond. The paths cover 1, 2, 4 and 6
// hops on parking lots (all 10G) and 2, 4 and 6 hops on the fabric
// (10/40/40/40/40/10G: the first packet's store-and-forward at fast hops,
// the rest paced by the 10G ends), for every congestion control that
// starts at line rate. HPCC aims at eta of line rate from its second RTT
// on, so only flows done within it (10 KB) are ideal.
func TestLoneFlowIdeal(t *testing.T) {
	fab := fabric(t, "meta32-2:1")
	// Hosts 0 and 1 share a rack; 0 and 8 a pod; 0 and 255 nothing.
	fabPairs := map[int][2]int{2: {0, 1}, 4: {0, 8}, 6: {0, 255}}
	type tc struct {
		name     string
		net      *topo.Network
		src, dst int
		hops     int
	}
	var cases []tc
	for _, h := range []int{1, 2, 4, 6} {
		pl, err := topo.ParkingLot(topo.ParkingLotSpec{Hops: h})
		must(t, pl, err)
		cases = append(cases, tc{"parkinglot", pl, 0, 1, h})
	}
	for _, h := range []int{2, 4, 6} {
		cases = append(cases, tc{"fabric", fab, fabPairs[h][0], fabPairs[h][1], h})
	}
	ccs := []struct {
		cc      string
		maxSize int64
	}{{"dctcp", 10_000_000}, {"dcqcn", 10_000_000}, {"timely", 10_000_000}, {"hpcc", 10_000}}
	for _, c := range cases {
		for _, cc := range ccs {
			for _, size := range []int64{1, 1000, 1001, 10_000, 10_000_000} {
				if size > cc.maxSize {
					continue
				}
				path, err := c.net.Path(7, c.src, c.dst)
				if err != nil {
					t.Fatal(err)
				}
				if len(path) != c.hops {
					t.Fatalf("%s: path %v has %d hops, want %d", c.name, path, len(path), c.hops)
				}
				cfg := netcfg.Default()
				// The 6-hop 10G parking lot's RTT (~17 us) exceeds the
				// 18 KB window's 14.4 us: lift the cap so only the links
				// limit the flow, which is what the ideal FCT assumes.
				cfg.DCTCP.WindowBytes = 1 << 30
				cfg.CC = cc.cc
				fl := []workload.Flow{{ID: 7, Src: c.src, Dst: c.dst, Size: size, Start: 12345}}
				res, err := Run(context.Background(), c.net, fl, cfg, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Records) != 1 {
					t.Fatalf("%s %d hops size %d: %d records", c.name, c.hops, size, len(res.Records))
				}
				r := res.Records[0]
				want := metrics.IdealFCT(c.net, path, size, cfg)
				if r.FCT != want || r.Ideal != want {
					t.Errorf("%s %s %d hops size %d: FCT %d ns, ideal %d ns, want both %d", cc.cc, c.name, c.hops, size, r.FCT, r.Ideal, want)
				}
				if res.Marks != 0 || res.Drops != 0 || res.Retransmits != 0 {
					t.Errorf("%s %s %d hops size %d: lone flow saw %d marks, %d drops, %d retransmits", cc.cc, c.name, c.hops, size, res.Marks, res.Drops, res.Retransmits)
				}
			}
		}
	}
}

func TestBadInput(t *testing.T) {
	net := fabric(t, "meta32-2:1")
	ok := workload.Flow{ID: 1, Src: 0, Dst: 9, Size: 1000, Start: 0}
	cfg := netcfg.Default()
	badCfg := netcfg.Default()
	badCfg.CC = "reno"
	cases := []struct {
		name  string
		flows []workload.Flow
		cfg   netcfg.Config
		opts  Options
		want  string
	}{
		{"unknown destination", []workload.Flow{{ID: 1, Src: 0, Dst: 100000, Size: 1}}, cfg, Options{}, "destination 100000 is not a host"},
		{"switch as source", []workload.Flow{{ID: 1, Src: 256, Dst: 0, Size: 1}}, cfg, Options{}, "source 256 is not a host"},
		{"zero size", []workload.Flow{{ID: 1, Src: 0, Dst: 1, Size: 0}}, cfg, Options{}, "size 0"},
		{"same host", []workload.Flow{{ID: 1, Src: 3, Dst: 3, Size: 1}}, cfg, Options{}, "both host 3"},
		{"unsorted", []workload.Flow{{ID: 1, Src: 0, Dst: 1, Size: 1, Start: 5}, {ID: 2, Src: 0, Dst: 1, Size: 1, Start: 4}}, cfg, Options{}, "sorted by start"},
		{"unknown cc", []workload.Flow{ok}, badCfg, Options{}, `unknown congestion control "reno"`},
		{"bad port K", []workload.Flow{ok}, cfg, Options{KBytes: map[int]int64{-1: 100}}, "KBytes names channel -1"},
		{"bad sample channel", []workload.Flow{ok}, cfg, Options{SampleEveryNanos: 10, SampleChannels: []int{1 << 20}}, "SampleChannels names channel"},
	}
	for _, c := range cases {
		_, err := Run(context.Background(), net, c.flows, c.cfg, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// Unroutable pairs cannot be built: topo.New refuses networks whose hosts
// cannot all reach each other, and FailLink refuses to disconnect them. Run
// reports topo's routing error for the flow; the check that a flow's
// endpoints are hosts of this network is the one that fires in practice,
// for flows written for another topology.
func TestFlowsFromAnotherTopology(t *testing.T) {
	small, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 2})
	must(t, small, err)
	_, err = Run(context.Background(), small, []workload.Flow{{ID: 4, Src: 0, Dst: 200, Size: 10}}, netcfg.Default(), Options{})
	if err == nil || !strings.Contains(err.Error(), "flow 4") {
		t.Fatalf("error %v, want one naming flow 4", err)
	}
}

// With a finite buffer, an incast overflows the receiver's port: drops
// are counted, lost packets are recovered (go-back-N on NACK or timeout),
// every byte is still delivered exactly once, and the sent packets add up:
// delivered + dropped + duplicates, under every congestion control.
func TestFiniteBufferIncast(t *testing.T) {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 8, Receivers: 1})
	must(t, net, err)
	cfg := netcfg.Default()
	cfg.BufferBytes = 20_000
	var flows []workload.Flow
	var total int64
	for i := 0; i < 8; i++ {
		flows = append(flows, workload.Flow{ID: i, Src: i, Dst: 8, Size: 200_000 + int64(i)*777, Start: int64(i)})
		total += flows[i].Size
	}
	for _, cc := range netcfg.CCs {
		cfg.CC = cc
		res, err := Run(context.Background(), net, flows, cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Records) != len(flows) || res.DeliveredBytes != total {
			t.Fatalf("%s: %d records, %d bytes delivered of %d", cc, len(res.Records), res.DeliveredBytes, total)
		}
		if res.Drops == 0 || res.Retransmits == 0 {
			t.Errorf("%s: a 20 KB buffer under an 8-way incast saw %d drops, %d retransmits", cc, res.Drops, res.Retransmits)
		}
		var delivered int64
		for _, f := range flows {
			delivered += cfg.Packets(f.Size)
		}
		// ACKs are never dropped here: the reverse direction is idle.
		if res.DataPackets != delivered+res.Drops+res.Duplicates {
			t.Errorf("%s: %d data packets sent, but %d delivered + %d dropped + %d duplicates", cc, res.DataPackets, delivered, res.Drops, res.Duplicates)
		}
		t.Logf("%s: drops %d, retransmits %d, duplicates %d, max slowdown %.1f", cc, res.Drops, res.Retransmits, res.Duplicates, maxSlowdown(res))
	}
}

func maxSlowdown(r *Result) float64 {
	var m float64
	for _, rec := range r.Records {
		m = max(m, rec.Slowdown)
	}
	return m
}
