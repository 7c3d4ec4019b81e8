package packetsim

import (
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
// the rest paced by the 10G ends).
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
	for _, c := range cases {
		for _, size := range []int64{1, 1000, 1001, 10_000_000} {
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
			fl := []workload.Flow{{ID: 7, Src: c.src, Dst: c.dst, Size: size, Start: 12345}}
			res, err := Run(c.net, fl, cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Records) != 1 {
				t.Fatalf("%s %d hops size %d: %d records", c.name, c.hops, size, len(res.Records))
			}
			r := res.Records[0]
			want := metrics.IdealFCT(c.net, path, size, cfg)
			if r.FCT != want || r.Ideal != want {
				t.Errorf("%s %d hops size %d: FCT %d ns, ideal %d ns, want both %d", c.name, c.hops, size, r.FCT, r.Ideal, want)
			}
			if res.Marks != 0 || res.Drops != 0 || res.Retransmits != 0 {
				t.Errorf("%s %d hops size %d: lone flow saw %d marks, %d drops, %d retransmits", c.name, c.hops, size, res.Marks, res.Drops, res.Retransmits)
			}
		}
	}
}
