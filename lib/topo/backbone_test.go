package topo

import (
	"math"
	"testing"
)

// The CENIC-like backbone has DSCALE's size (25 routers, 41 links, a host
// per router), the paper's delay rule (0.1 ms within a site, else the
// length at 133,000 miles/s: Sunnyvale-Los Angeles, about 505 km, takes
// 2.36 ms) and the chosen bandwidths.
func TestCENIC(t *testing.T) {
	n, err := CENIC(CENICSpec{BackboneBandwidth: 2 * Gbps, InterconnectBandwidth: Gbps / 2})
	if err != nil {
		t.Fatal(err)
	}
	hosts, switches := n.CountKinds()
	if hosts != 25 || switches != 25 || len(n.Links) != 25+41 {
		t.Fatalf("%s: want 25 hosts, 25 routers, 66 links", n.Summary())
	}
	node := map[string]int{}
	for i, r := range CENICRouters {
		node[r] = CENICRouterNode(i)
		if p, err := n.Path(0, i, (i+1)%25); err != nil || n.Channels[p[0]].Dst != CENICRouterNode(i) {
			t.Fatalf("host %d does not reach host %d through its router %s: %v %v", i, (i+1)%25, r, p, err)
		}
	}
	link := func(a, b string) Link {
		for _, l := range n.Links {
			if (l.A == node[a] && l.B == node[b]) || (l.A == node[b] && l.B == node[a]) {
				return l
			}
		}
		t.Fatalf("no link %s-%s", a, b)
		return Link{}
	}
	for _, c := range []struct {
		a, b    string
		bw      int64
		delayMs float64
		tol     float64
	}{
		{"SVL-hpr", "SVL-dc1", Gbps / 2, 0.1, 1e-9},
		{"LAX-dc1", "LAX-dc2", 2 * Gbps, 0.1, 1e-9},
		{"SAC-hpr", "SAC-dc", 2 * Gbps, 0.1, 1e-9},
		{"SVL-hpr", "LAX-hpr", 2 * Gbps, 505 / 1.609344 / 133, 0.02},
	} {
		l := link(c.a, c.b)
		if l.Bandwidth != c.bw || math.Abs(float64(l.Delay)/1e6-c.delayMs) > c.tol*c.delayMs {
			t.Errorf("%s-%s: %d bps, %.3f ms; want %d bps, %.3f ms", c.a, c.b, l.Bandwidth, float64(l.Delay)/1e6, c.bw, c.delayMs)
		}
	}
	if CENICNodeName(CENICRouterNode(0)) != "SVL-hpr" || CENICNodeName(1) != "host@SVL-dc1" {
		t.Errorf("names: %s, %s", CENICNodeName(CENICRouterNode(0)), CENICNodeName(1))
	}
	if l := n.Links[0]; l.Bandwidth != 20*Gbps || l.Delay != Microsecond {
		t.Errorf("access link %+v, want 20 Gbps and 1 us", l)
	}
}
