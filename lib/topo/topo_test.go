package topo

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestPresetCounts(t *testing.T) {
	// Node and link counts of Parsimon §5 / REFERENCE.md "Topologies".
	tests := []struct {
		preset                 string
		hosts, switches, links int
		oversub                float64
	}{
		{"meta32-1:1", 256, 32 + 4 + 32, 256 + 64 + 64, 1},
		{"meta32-2:1", 256, 32 + 4 + 16, 256 + 64 + 32, 2},
		{"meta32-4:1", 256, 32 + 4 + 8, 256 + 64 + 16, 4},
		{"meta384-1:1", 6144, 384 + 32 + 192, 9216, 1},
		{"meta384-2:1", 6144, 384 + 32 + 96, 8448, 2},
	}
	for _, tc := range tests {
		t.Run(tc.preset, func(t *testing.T) {
			s, err := Preset(tc.preset)
			if err != nil {
				t.Fatal(err)
			}
			n, err := Fabric(s)
			if err != nil {
				t.Fatal(err)
			}
			h, sw := n.CountKinds()
			if h != tc.hosts || sw != tc.switches || len(n.Links) != tc.links {
				t.Errorf("got %d hosts, %d switches, %d links; want %d, %d, %d", h, sw, len(n.Links), tc.hosts, tc.switches, tc.links)
			}
			if got := s.Oversubscription(); got != tc.oversub {
				t.Errorf("oversubscription %g, want %g", got, tc.oversub)
			}
			// Offered ToR bandwidth equals uplink bandwidth (1:1 at the ToR).
			if up, down := int64(s.Planes)*s.FabricBandwidth, int64(s.HostsPerRack)*s.HostBandwidth; up != down {
				t.Errorf("ToR uplinks %d bps != host links %d bps", up, down)
			}
		})
	}
}

func TestPathLengths(t *testing.T) {
	n := mustPreset(t, "meta32-2:1")
	tests := []struct {
		src, dst, hops int
	}{
		{0, 1, 2},   // same rack
		{0, 8, 4},   // same pod, other rack
		{0, 128, 6}, // other pod
		{255, 3, 6},
	}
	for _, tc := range tests {
		for flow := 0; flow < 50; flow++ {
			p, err := n.Path(flow, tc.src, tc.dst)
			if err != nil {
				t.Fatal(err)
			}
			if len(p) != tc.hops {
				t.Fatalf("%d->%d: %d hops, want %d", tc.src, tc.dst, len(p), tc.hops)
			}
			checkPath(t, n, p, tc.src, tc.dst)
		}
	}
}

func checkPath(t *testing.T, n *Network, p []int, src, dst int) {
	t.Helper()
	at := src
	for i, c := range p {
		ch := n.Channels[c]
		if ch.Src != at {
			t.Fatalf("hop %d: channel %d leaves %d, flow is at %d", i, c, ch.Src, at)
		}
		if n.Failed(ch.Link) {
			t.Fatalf("hop %d uses failed link %d", i, ch.Link)
		}
		if i < len(p)-1 && n.IsHost(ch.Dst) {
			t.Fatalf("hop %d forwards through host %d", i, ch.Dst)
		}
		at = ch.Dst
	}
	if at != dst {
		t.Fatalf("path ends at %d, want %d", at, dst)
	}
}

func mustPreset(t testing.TB, name string) *Network {
	s, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	n, err := Fabric(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// chiSquare returns Pearson's statistic of counts against equal expectation.
func chiSquare(counts map[string]int, total, cells int) float64 {
	exp := float64(total) / float64(cells)
	x := 0.0
	for _, c := range counts {
		x += (float64(c) - exp) * (float64(c) - exp) / exp
	}
	return x + float64(cells-len(counts))*exp // cells never hit
}

func TestECMPSpreadsEvenly(t *testing.T) {
	// Between pods of the 1:1 32-rack fabric there are 2 planes x 16 spines
	// = 32 equal-cost paths; per-flow hashing must use them equally.
	n := mustPreset(t, "meta32-1:1")
	const flows = 64000
	counts := map[string]int{}
	for f := 0; f < flows; f++ {
		p, err := n.Path(f, 5, 200)
		if err != nil {
			t.Fatal(err)
		}
		counts[fmt.Sprint(p)]++
	}
	if len(counts) != 32 {
		t.Fatalf("flows used %d distinct paths, want 32", len(counts))
	}
	// 31 degrees of freedom: the 0.999 quantile of chi-square is 61.1.
	if x := chiSquare(counts, flows, 32); x > 61.1 {
		t.Errorf("chi-square %.1f over 32 paths exceeds 61.1 (p=0.001): uneven ECMP", x)
	}
	// Same flow, same path.
	a, _ := n.Path(12345, 5, 200)
	b, _ := n.Path(12345, 5, 200)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("flow 12345 took %v then %v", a, b)
	}
}

// A path is fixed exactly when every flow between its hosts takes it: on
// a fabric within a rack (one path) but not across racks (ECMP), and on a
// parking lot always.
func TestFixedPath(t *testing.T) {
	lot, err := ParkingLot(ParkingLotSpec{Hops: 3, BackgroundHosts: 1})
	if err != nil {
		t.Fatal(err)
	}
	fab := mustPreset(t, "meta32-2:1")
	for _, c := range []struct {
		net       *Network
		src, dst  int
		wantFixed bool
	}{{fab, 0, 1, true}, {fab, 0, 9, false}, {fab, 5, 200, false}, {lot, 0, 1, true}, {lot, 2, 3, true}} {
		paths := map[string]bool{}
		for f := 0; f < 200; f++ {
			p, fixed, err := c.net.AppendFixedPath(nil, f, c.src, c.dst)
			if err != nil {
				t.Fatal(err)
			}
			if fixed != c.wantFixed {
				t.Fatalf("%s %d->%d: fixed %v, want %v", c.net.Name, c.src, c.dst, fixed, c.wantFixed)
			}
			paths[fmt.Sprint(p)] = true
		}
		if c.wantFixed != (len(paths) == 1) {
			t.Errorf("%s %d->%d: %d distinct paths over 200 flows, fixed %v", c.net.Name, c.src, c.dst, len(paths), c.wantFixed)
		}
	}
}

func TestFailLinkReroutes(t *testing.T) {
	n := mustPreset(t, "meta32-2:1")
	// Fail one fabric-spine link; flows that used it move to the remaining
	// equal-cost paths, everyone else keeps their path.
	var spineLink = -1
	for _, l := range n.Links {
		if n.Nodes[l.A].Pod == 0 && n.Nodes[l.A].Rack < 0 && n.Nodes[l.B].Pod < 0 {
			spineLink = l.ID
			break
		}
	}
	if spineLink < 0 {
		t.Fatal("no fabric-spine link found")
	}
	before := map[int][]int{}
	for f := 0; f < 2000; f++ {
		p, _ := n.Path(f, 3, 250)
		before[f] = p
	}
	if err := n.FailLink(spineLink); err != nil {
		t.Fatal(err)
	}
	moved := 0
	for f := 0; f < 2000; f++ {
		p, err := n.Path(f, 3, 250)
		if err != nil {
			t.Fatal(err)
		}
		checkPath(t, n, p, 3, 250)
		if len(p) != 6 {
			t.Fatalf("rerouted path has %d hops, want 6", len(p))
		}
		if fmt.Sprint(p) != fmt.Sprint(before[f]) {
			moved++
			uses := false
			for _, c := range before[f] {
				uses = uses || n.Channels[c].Link == spineLink
			}
			if !uses {
				// Per-hop hashing may reshuffle choices at the switch that lost a
				// next hop, but flows not passing that switch must stay.
				if !passes(n, before[f], n.Links[spineLink].A) {
					t.Errorf("flow %d moved although it never passed the failed link's switch", f)
				}
			}
		}
	}
	if moved == 0 {
		t.Error("no flow moved after failing a used link")
	}
	if err := n.RestoreLink(spineLink); err != nil {
		t.Fatal(err)
	}
	for f := 0; f < 2000; f++ {
		if p, _ := n.Path(f, 3, 250); fmt.Sprint(p) != fmt.Sprint(before[f]) {
			t.Fatalf("flow %d: path after restore differs from before", f)
		}
	}
}

func passes(n *Network, p []int, node int) bool {
	for _, c := range p {
		if n.Channels[c].Src == node {
			return true
		}
	}
	return false
}

func TestFailLinkDisconnecting(t *testing.T) {
	n, err := Dumbbell(DumbbellSpec{Senders: 2, Receivers: 2})
	if err != nil {
		t.Fatal(err)
	}
	bottleneck := len(n.Links) - 1
	err = n.FailLink(bottleneck)
	if err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Fatalf("failing the dumbbell bottleneck: err = %v, want a disconnection error", err)
	}
	if n.Failed(bottleneck) {
		t.Fatal("link left failed after a refused failure")
	}
	if _, err := n.Path(0, 0, 3); err != nil {
		t.Fatal(err)
	}
}

func TestValidation(t *testing.T) {
	h := func(id int) Node { return Node{ID: id, Kind: Host, Rack: -1, Pod: -1} }
	s := func(id int) Node { return Node{ID: id, Kind: Switch, Rack: -1, Pod: -1} }
	l := func(a, b int) Link { return Link{A: a, B: b, Bandwidth: 10 * Gbps, Delay: 1000} }
	tests := []struct {
		name  string
		nodes []Node
		links []Link
		want  string
	}{
		{"duplicate id", []Node{h(0), h(0), s(2)}, []Link{l(0, 2)}, "duplicate node id 0"},
		{"id out of range", []Node{h(0), h(5)}, nil, "out of range"},
		{"zero bandwidth", []Node{h(0), h(1), s(2)}, []Link{l(0, 2), {A: 1, B: 2}}, "bandwidth 0"},
		{"negative delay", []Node{h(0), h(1), s(2)}, []Link{l(0, 2), {A: 1, B: 2, Bandwidth: 1, Delay: -1}}, "negative delay"},
		{"self loop", []Node{h(0), h(1), s(2)}, []Link{l(2, 2)}, "to itself"},
		{"unknown node", []Node{h(0), h(1), s(2)}, []Link{l(0, 7)}, "does not exist"},
		{"duplicate link", []Node{h(0), h(1), s(2)}, []Link{l(0, 2), l(2, 0), l(1, 2)}, "both connect"},
		{"disconnected host", []Node{h(0), h(1), h(2), s(3)}, []Link{l(0, 3), l(1, 3)}, "host 2 is disconnected"},
		{"split network", []Node{h(0), h(1), s(2), s(3)}, []Link{l(0, 2), l(1, 3)}, "cannot reach"},
		{"one host", []Node{h(0), s(1)}, []Link{l(0, 1)}, "at least 2"},
		{"no nodes", nil, nil, "no nodes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.name, tc.nodes, tc.links)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

func TestPathErrors(t *testing.T) {
	n := mustPreset(t, "meta32-1:1")
	for _, tc := range []struct {
		src, dst int
		want     string
	}{
		{0, 0, "both host 0"},
		{0, 300, "not a host"},
		{-1, 3, "not a host"},
		{0, 9999, "not a host"},
	} {
		if _, err := n.Path(1, tc.src, tc.dst); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Path(%d,%d): err = %v, want %q", tc.src, tc.dst, err, tc.want)
		}
	}
}

func TestParkingLotAndDumbbell(t *testing.T) {
	for _, hops := range []int{1, 2, 4, 6} {
		spec := ParkingLotSpec{Hops: hops, BackgroundHosts: 2}
		n, err := ParkingLot(spec)
		if err != nil {
			t.Fatal(err)
		}
		p, err := n.Path(7, 0, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(p) != hops {
			t.Errorf("%d-hop parking lot: foreground path has %d hops", hops, len(p))
		}
		checkPath(t, n, p, 0, 1)
		if hops > 2 {
			// A background flow from switch 0 to switch 2 crosses hops 1 and 2
			// of the chain and nothing else of it.
			bp, err := n.Path(1, spec.BackgroundHost(0, 1), spec.BackgroundHost(2, 0))
			if err != nil {
				t.Fatal(err)
			}
			if len(bp) != 4 || bp[1] != p[1] || bp[2] != p[2] {
				t.Errorf("background path %v does not share hops 1-2 of %v", bp, p)
			}
		}
	}
	d, err := Dumbbell(DumbbellSpec{Senders: 3, Receivers: 2, BottleneckBandwidth: 40 * Gbps})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := d.Path(0, 1, 4)
	if len(p) != 3 || d.Channels[p[1]].Bandwidth != 40*Gbps {
		t.Errorf("dumbbell path %v", p)
	}
}

func TestFormatsRoundTrip(t *testing.T) {
	n := mustPreset(t, "meta32-4:1")
	var js, ns bytes.Buffer
	if err := n.WriteParsimonJSON(&js); err != nil {
		t.Fatal(err)
	}
	if err := n.WriteNS3(&ns); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func() (*Network, error){
		"json": func() (*Network, error) { return ReadParsimonJSON("t.json", bytes.NewReader(js.Bytes())) },
		"ns3":  func() (*Network, error) { return ReadNS3("topology.txt", bytes.NewReader(ns.Bytes())) },
	} {
		m, err := read()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(m.Nodes) != len(n.Nodes) || len(m.Links) != len(n.Links) {
			t.Fatalf("%s: %d nodes %d links, want %d %d", name, len(m.Nodes), len(m.Links), len(n.Nodes), len(n.Links))
		}
		for i := range n.Links {
			if m.Links[i] != n.Links[i] {
				t.Fatalf("%s: link %d = %+v, want %+v", name, i, m.Links[i], n.Links[i])
			}
		}
		for i := range n.Nodes {
			if m.Nodes[i].Kind != n.Nodes[i].Kind {
				t.Fatalf("%s: node %d kind differs", name, i)
			}
		}
		// Routing depends only on the graph, so paths are identical.
		a, _ := n.Path(99, 0, 255)
		b, _ := m.Path(99, 0, 255)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%s: path %v, want %v", name, b, a)
		}
	}
}

func TestReadErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "missing header"},
		{"3 1", "header must be"},
		{"3 1 2\n2\n0 2 10Gbps 1us 0\n", "found 1"},
		{"3 1 2\n2\n0 2 10Gbps 1us 0\n1 2 10 1us 0\n", "no unit"},
		{"3 1 2\n2\n0 2 10Gbps 1us 0\n1 2 10Gbps 1furlong 0\n", "no unit"},
		{"3 1 2\n2\n0 2 10Gbps 1us 0\n1 2 10Gbps 1us 0.01\n", "error rate"},
		{"3 2 2\n2\n", "says 2 switches"},
		{"999999999999 1 999999999999\n0\n", "node count: 999999999999 would need"},
		{"200666666 0 0\n", "only 0 links"},
		{"3 1 999999999999\n2\n0 2 10Gbps 1us 0\n", "says 999999999999 links, found 1"},
		{"3 1 2\n2\n0 2 NaNGbps 1us 0\n", "bad rate"},
		{"3 1 2\n2\n0 2 1e30Gbps 1us 0\n", "bad rate"},
		{"3 1 2\n2\n0 2 10Gbps 1e30s 0\n", "bad delay"},
		{"3 1 2\n2\n0 2 0.1bps 1us 0\n", "bad rate"},
	} {
		_, err := ReadNS3("topology.txt", strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadNS3(%q): err = %v, want %q", tc.in, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{`{"nodes":[{"id":0,"kind":"Router"}],"links":[]}`, "unknown node kind"},
		{`{"nodes":[],"links":[],"extra":1}`, "unknown field"},
		{`{"nodes":[{"id":0,"kind":"Host"},{"id":1,"kind":"Host"},{"id":2,"kind":"Switch"}],"links":[{"a":0,"b":2,"bandwidth":0,"delay":1}]}`, "bandwidth 0"},
	} {
		_, err := ReadParsimonJSON("t.json", strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadParsimonJSON(%q): err = %v, want %q", tc.in, err, tc.want)
		}
	}
}

func TestParseUnits(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int64
	}{{"10Gbps", 10 * Gbps}, {"40000Mbps", 40 * Gbps}, {"1.5Kbps", 1500}, {"100bps", 100},
		{"10G", 10 * Gbps}, {"10Gb/s", 10 * Gbps}, {"10Gbit/s", 10 * Gbps}, {"10 Gbps", 10 * Gbps}, {"1e10bps", 10 * Gbps},
		{"2.5kbits/s", 2500}, {"1Tbps", 1e12}} {
		if got, err := ParseRate(tc.s); err != nil || got != tc.want {
			t.Errorf("ParseRate(%q) = %d, %v; want %d", tc.s, got, err, tc.want)
		}
	}
	// Refusals name the spellings accepted.
	for _, s := range []string{"10Gbs", "10GBps", "Gbps", "10Xbps", "0Gbps", "-1G", "100"} {
		if _, err := ParseRate(s); err == nil || !strings.Contains(err.Error(), "rate") {
			t.Errorf("ParseRate(%q): err = %v, want a refusal", s, err)
		} else if s == "10Gbs" && !strings.Contains(err.Error(), "10Gb/s") {
			t.Errorf("ParseRate(%q): %v, want the accepted spellings", s, err)
		}
	}
	for _, tc := range []struct {
		s    string
		want int64
	}{{"1000ns", 1000}, {"1us", 1000}, {"0.5ms", 500000}, {"2s", 2e9}} {
		if got, err := ParseDelay(tc.s); err != nil || got != tc.want {
			t.Errorf("ParseDelay(%q) = %d, %v; want %d", tc.s, got, err, tc.want)
		}
	}
}

// ECMP paths of flows between pseudo-random host pairs: on the 6,144-host
// fabric the routing tables no longer fit the core's caches, which is
// what the large runs pay for once per flow.
func BenchmarkPath(b *testing.B) {
	for _, preset := range []string{"meta32-2:1", "meta384-2:1"} {
		b.Run(preset, func(b *testing.B) {
			n := mustPreset(b, preset)
			hosts := n.Hosts()
			buf := make([]int, 0, 8)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				x := hash(i, 0)
				src, dst := hosts[x%uint64(len(hosts))], hosts[(x>>32)%uint64(len(hosts))]
				if src == dst {
					continue
				}
				var err error
				if buf, err = n.AppendPath(buf[:0], i, src, dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func ExampleFabric() {
	spec, _ := Preset("meta32-2:1")
	net, _ := Fabric(spec)
	fmt.Println(net.Summary())
	path, _ := net.Path(42, 0, 200)
	fmt.Println("hops from host 0 to host 200:", len(path))
	// Output:
	// fabric-2x16x8-2to1: 308 nodes (256 hosts, 52 switches), 352 links
	// hops from host 0 to host 200: 6
}

// Pair lists of the dumbbell and the parking lot, against counts worked
// out by hand: a dumbbell crosses every sender with every receiver; a
// 4-hop parking lot with 2 background hosts per switch has 8 attachment
// points (source, destination, 3 switches x 2), and pairs every two at
// different positions: C(8,2) - 3 same-switch pairs = 25.
func TestPairLists(t *testing.T) {
	d := DumbbellSpec{Senders: 3, Receivers: 2}
	if got, want := d.CrossPairs(), [][2]int{{0, 3}, {0, 4}, {1, 3}, {1, 4}, {2, 3}, {2, 4}}; !reflect.DeepEqual(got, want) {
		t.Errorf("CrossPairs = %v, want %v", got, want)
	}
	for _, c := range []struct {
		hops, bg, want int
	}{{1, 0, 1}, {1, 3, 1}, {2, 1, 3}, {4, 2, 25}} {
		p := ParkingLotSpec{Hops: c.hops, BackgroundHosts: c.bg}
		pairs := p.ChainPairs()
		if len(pairs) != c.want {
			t.Errorf("hops %d bg %d: %d pairs, want %d", c.hops, c.bg, len(pairs), c.want)
		}
		net, err := ParkingLot(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, pr := range pairs {
			if !net.IsHost(pr[0]) || !net.IsHost(pr[1]) || pr[0] == pr[1] {
				t.Errorf("hops %d bg %d: pair %v is not two distinct hosts", c.hops, c.bg, pr)
			}
		}
	}
}

// A parking lot with attachment groups: every group host reaches the
// destination over its group's link and the chain after its switch, so
// the path's propagation delay is the group delay plus one chain delay
// per remaining hop, and the node ids follow GroupHost and Switch.
func TestParkingLotGroups(t *testing.T) {
	const d = 700
	s := ParkingLotSpec{Hops: 4, Delay: d, HostBandwidth: 25 * Gbps, GroupHosts: 2,
		Groups: []HostGroup{{Switch: 2, Delay: 0}, {Switch: 0, Delay: 3 * d}, {Switch: 0, Delay: d}}}
	net, err := ParkingLot(s)
	if err != nil {
		t.Fatal(err)
	}
	hosts, switches := net.CountKinds()
	if hosts != 2+3*2 || switches != 3 {
		t.Fatalf("%d hosts and %d switches, want 8 and 3", hosts, switches)
	}
	for i := range 3 {
		if net.IsHost(s.Switch(i)) || s.Switch(i) != 2+i {
			t.Errorf("switch %d has id %d", i, s.Switch(i))
		}
	}
	for g, hg := range s.Groups {
		for j := range s.GroupHosts {
			h := s.GroupHost(g, j)
			path, err := net.Path(0, h, 1)
			if err != nil {
				t.Fatal(err)
			}
			var delay int64
			for _, c := range path {
				delay += net.Channels[c].Delay
			}
			if want := hg.Delay + int64(s.Hops-1-hg.Switch)*d; delay != want || len(path) != s.Hops-hg.Switch {
				t.Errorf("group %d host %d (id %d): %d hops, %d ns to the destination, want %d and %d", g, j, h, len(path), delay, s.Hops-hg.Switch, want)
			}
			if bw := net.Channels[path[0]].Bandwidth; bw != s.HostBandwidth {
				t.Errorf("group %d host %d: link of %d bps, want %d", g, j, bw, s.HostBandwidth)
			}
		}
	}
	for _, bad := range []ParkingLotSpec{
		{Hops: 3, GroupHosts: 1, BackgroundHosts: 1},
		{Hops: 3, Groups: []HostGroup{{}}},
		{Hops: 3, GroupHosts: 1, Groups: []HostGroup{{Switch: 2}}},
		{Hops: 3, GroupHosts: 1, Groups: []HostGroup{{Delay: -1}}},
		{Hops: 3, GroupHosts: -1},
		{Hops: 3, BackgroundHosts: -1},
	} {
		if _, err := ParkingLot(bad); err == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
}

// The longest host-to-host route's delay: 3 links of a dumbbell, the 4
// links end to end of a 4-hop parking lot (the fork's maxRtt of 6000 and
// 8000 ns for forkcmp's scenarios, 1 us links, is twice this).
func TestMaxHostDelay(t *testing.T) {
	dumbbell, err := Dumbbell(DumbbellSpec{Senders: 3, Receivers: 2, Delay: 500})
	if err != nil {
		t.Fatal(err)
	}
	lot, err := ParkingLot(ParkingLotSpec{Hops: 4, BackgroundHosts: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		net  *Network
		want int64
	}{{dumbbell, 1500}, {lot, 4000}} {
		if got := c.net.MaxHostDelay(); got != c.want {
			t.Errorf("%s: %d ns, want %d", c.net.Name, got, c.want)
		}
	}
}
