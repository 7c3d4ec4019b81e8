package parsimon

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

const gbps = topo.Gbps

// handNet is a two-switch network with distinct delays on every link so
// that summed delays are recognisable:
//
//	h0 -100ns- s0 -1000ns, 40G- s1 -300ns- h2
//	h1 -200ns-/               \-400ns, 25G- h3
//
// Host links are 10G unless noted. Channels: h0->s0 0, s0->h0 1,
// h1->s0 2, s0->h1 3, s0->s1 4, s1->s0 5, s1->h2 6, h2->s1 7,
// s1->h3 8, h3->s1 9.
func handNet(t *testing.T) *topo.Network {
	t.Helper()
	nodes := []topo.Node{{ID: 0}, {ID: 1}, {ID: 2}, {ID: 3}, {ID: 4, Kind: topo.Switch}, {ID: 5, Kind: topo.Switch}}
	links := []topo.Link{
		{A: 0, B: 4, Bandwidth: 10 * gbps, Delay: 100},
		{A: 1, B: 4, Bandwidth: 10 * gbps, Delay: 200},
		{A: 4, B: 5, Bandwidth: 40 * gbps, Delay: 1000},
		{A: 5, B: 2, Bandwidth: 10 * gbps, Delay: 300},
		{A: 5, B: 3, Bandwidth: 25 * gbps, Delay: 400},
	}
	n, err := topo.New("hand", nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// handFlows: three flows left to right, two right to left (whose ACKs
// cross the left-to-right channels s0->s1 and h0->s0).
var handFlows = []workload.Flow{
	{ID: 0, Src: 0, Dst: 2, Size: 4000, Start: 0},
	{ID: 1, Src: 1, Dst: 3, Size: 1500, Start: 500},
	{ID: 2, Src: 0, Dst: 3, Size: 30000, Start: 800},
	{ID: 3, Src: 2, Dst: 0, Size: 5000, Start: 1000},
	{ID: 4, Src: 3, Dst: 0, Size: 2500, Start: 3000},
}

func TestAckCorrection(t *testing.T) {
	d, err := Decompose(context.Background(), handNet(t), handFlows, netcfg.Default())
	if err != nil {
		t.Fatal(err)
	}
	// Flows 3 and 4 cross s1->s0 and s0->h0: 5 + 3 ACKs of 60 B over the
	// 2000 ns between their starts = 3840 bits / 2 us = 1.92 Gbps, landing
	// on the reverse channels s0->s1 (4) and h0->s0 (0). Channel s1->h3
	// (8) has one reverse flow (4, on h3->s1): no span, no correction.
	// Channel s0->h0 (1) carries the ACKs of flows 0 and 2 (4 + 30
	// packets) over 800 ns: 16320 bits / 0.8 us = 20.4 Gbps, more than
	// the link, so Available floors it at half the bandwidth.
	want := map[int]float64{0: 1.92e9, 4: 1.92e9, 1: 2.04e10, 8: 0, 3: 0}
	for c, w := range want {
		if got := d.AckBps[c]; got != w {
			t.Errorf("AckBps[%d] = %g, want %g", c, got, w)
		}
	}
	if got := d.Available(4); got != 40*gbps-1_920_000_000 {
		t.Errorf("Available(4) = %d", got)
	}
	if got := d.Available(8); got != 25*gbps {
		t.Errorf("Available(8) = %d", got)
	}
	if got := d.Available(1); got != 5*gbps {
		t.Errorf("Available(1) = %d, want the 5 Gbps floor", got)
	}
}

func TestLinkTopologies(t *testing.T) {
	net := handNet(t)
	cfg := netcfg.Default()
	d, err := Decompose(context.Background(), net, handFlows, cfg)
	if err != nil {
		t.Fatal(err)
	}
	host, sw := TaskNode{}, TaskNode{Switch: true}
	tests := []struct {
		name    string
		channel int
		kind    Kind
		nodes   []TaskNode // IDs filled in below
		links   []TaskLink
		flows   [][2]int // remapped (src, dst) per flow in order
		kBytes  int64
	}{
		{
			// Fig. 4 A: h0's NIC, ACK-corrected; destinations behind s0
			// at 10x the downstream minimum bandwidth (10G to h2, 25G to
			// h3) with the downstream delays (1000+300, 1000+400).
			name: "uplink h0->s0", channel: 0, kind: Uplink,
			nodes: []TaskNode{host, sw, host, host},
			links: []TaskLink{
				{A: 0, B: 1, Bandwidth: 8_080_000_000, NominalBandwidth: 10 * gbps, Delay: 100},
				{A: 1, B: 2, Bandwidth: 100 * gbps, NominalBandwidth: 100 * gbps, Delay: 1300},
				{A: 1, B: 3, Bandwidth: 250 * gbps, NominalBandwidth: 250 * gbps, Delay: 1400},
			},
			flows: [][2]int{{0, 2}, {0, 3}}, kBytes: 30_000,
		},
		{
			// Fig. 4 B: sources h0, h1 on their un-inflated first hops
			// (h0's ACK-corrected) with their upstream delays, the core
			// channel ACK-corrected, destinations on inflated links.
			name: "core s0->s1", channel: 4, kind: Core,
			nodes: []TaskNode{sw, sw, host, host, host, host},
			links: []TaskLink{
				{A: 0, B: 1, Bandwidth: 38_080_000_000, NominalBandwidth: 40 * gbps, Delay: 1000},
				{A: 2, B: 0, Bandwidth: 8_080_000_000, NominalBandwidth: 10 * gbps, Delay: 100},
				{A: 3, B: 0, Bandwidth: 10 * gbps, NominalBandwidth: 10 * gbps, Delay: 200},
				{A: 1, B: 4, Bandwidth: 100 * gbps, NominalBandwidth: 100 * gbps, Delay: 300},
				{A: 1, B: 5, Bandwidth: 250 * gbps, NominalBandwidth: 250 * gbps, Delay: 400},
			},
			flows: [][2]int{{2, 4}, {3, 5}, {2, 5}}, kBytes: 120_000,
		},
		{
			// Fig. 4 C: the 25G downlink to h3, sources h1 then h0 (flow
			// order) on their first hops with delays 200+1000, 100+1000.
			name: "downlink s1->h3", channel: 8, kind: Downlink,
			nodes: []TaskNode{sw, host, host, host},
			links: []TaskLink{
				{A: 0, B: 1, Bandwidth: 25 * gbps, NominalBandwidth: 25 * gbps, Delay: 400},
				{A: 2, B: 0, Bandwidth: 10 * gbps, NominalBandwidth: 10 * gbps, Delay: 1200},
				{A: 3, B: 0, Bandwidth: 8_080_000_000, NominalBandwidth: 10 * gbps, Delay: 1100},
			},
			flows: [][2]int{{2, 1}, {3, 1}}, kBytes: 75_000,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			task, err := d.Task(tc.channel, DefaultInflation)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.nodes {
				tc.nodes[i].ID = i
			}
			if task.Kind != tc.kind || task.KBytes != tc.kBytes {
				t.Errorf("kind %v, K %d; want %v, %d", task.Kind, task.KBytes, tc.kind, tc.kBytes)
			}
			if !reflect.DeepEqual(task.Nodes, tc.nodes) {
				t.Errorf("nodes %+v\nwant  %+v", task.Nodes, tc.nodes)
			}
			if !reflect.DeepEqual(task.Links, tc.links) {
				t.Errorf("links %+v\nwant  %+v", task.Links, tc.links)
			}
			if len(task.Flows) != len(tc.flows) {
				t.Fatalf("%d flows, want %d", len(task.Flows), len(tc.flows))
			}
			small, err := task.Network(false)
			if err != nil {
				t.Fatal(err)
			}
			for i, f := range task.Flows {
				if [2]int{f.Src, f.Dst} != tc.flows[i] {
					t.Errorf("flow %d remapped to %d->%d, want %v", f.ID, f.Src, f.Dst, tc.flows[i])
				}
				// RTT preservation: the link-level path's propagation
				// delay equals the full path's.
				full, _ := net.Path(f.ID, handFlows[f.ID].Src, handFlows[f.ID].Dst)
				p, err := small.Path(f.ID, f.Src, f.Dst)
				if err != nil {
					t.Fatal(err)
				}
				if got, orig := pathDelay(small, p), pathDelay(net, full); got != orig {
					t.Errorf("flow %d: link-level path delay %d ns, full path %d ns", f.ID, got, orig)
				}
			}
		})
	}
	if task, err := d.Task(6, DefaultInflation); err != nil || task == nil || len(task.Flows) != 1 {
		t.Errorf("channel s1->h2: task %v, err %v", task, err)
	}
	if task, err := d.Task(3, DefaultInflation); err != nil || task != nil {
		t.Errorf("idle channel s0->h1 gave task %v, err %v; want nil, nil", task, err)
	}
	if _, err := d.Task(99, DefaultInflation); err == nil {
		t.Error("channel 99 accepted")
	}
}

// pathDelay is the propagation delay of a path.
func pathDelay(n *topo.Network, path []int) int64 {
	var d int64
	for _, c := range path {
		d += n.Channels[c].Delay
	}
	return d
}

// A flow alone on its link-level topology, with no reverse traffic (no ACK
// correction), is delayed by nothing: packetsim's lone-flow FCT is the
// ideal FCT. A task survives a JSON round trip (it must, to run in
// another process) with identical results.
func TestRunTaskLoneFlowAndJSON(t *testing.T) {
	net := handNet(t)
	cfg := netcfg.Default()
	for _, size := range []int64{1, 1000, 1001, 123_456} {
		d, err := Decompose(context.Background(), net, []workload.Flow{{ID: 7, Src: 1, Dst: 2, Size: size}}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []int{2, 4, 6} {
			task, err := d.Task(c, DefaultInflation)
			if err != nil {
				t.Fatal(err)
			}
			res, err := RunTask(context.Background(), task, Packetsim)
			if err != nil {
				t.Fatal(err)
			}
			if res.Delays[0] != 0 || res.FlowIDs[0] != 7 || res.Sizes[0] != size {
				t.Errorf("size %d, channel %d: lone flow result %+v, want delay 0", size, c, res)
			}
		}
	}
	d, err := Decompose(context.Background(), net, handFlows, cfg)
	if err != nil {
		t.Fatal(err)
	}
	task, err := d.Task(4, DefaultInflation)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(task)
	if err != nil {
		t.Fatal(err)
	}
	var back Task
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	r1, err := RunTask(context.Background(), task, Packetsim)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := RunTask(context.Background(), &back, Packetsim)
	if err != nil {
		t.Fatal(err)
	}
	r1.WallSeconds, r2.WallSeconds = 0, 0
	if !reflect.DeepEqual(r1, r2) {
		t.Errorf("results differ after a JSON round trip:\n%+v\n%+v", r1, r2)
	}
}

func TestDecomposeErrors(t *testing.T) {
	net := handNet(t)
	cfg := netcfg.Default()
	shared := netcfg.Default()
	shared.Buffer.SharedBytes = 200_000
	bad := []struct {
		name  string
		flows []workload.Flow
		cfg   netcfg.Config
	}{
		{"switch endpoint", []workload.Flow{{ID: 0, Src: 4, Dst: 2, Size: 1}}, cfg},
		{"unsorted", []workload.Flow{{ID: 0, Src: 0, Dst: 2, Size: 1, Start: 5}, {ID: 1, Src: 0, Dst: 2, Size: 1}}, cfg},
		{"bad config", handFlows, netcfg.Config{}},
		{"shared buffer", handFlows, shared},
	}
	for _, b := range bad {
		if _, err := Decompose(context.Background(), net, b.flows, b.cfg); err == nil {
			t.Errorf("%s: no error", b.name)
		}
	}
	d, err := Decompose(context.Background(), net, handFlows, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Task(4, 0.5); err == nil {
		t.Error("inflation 0.5 accepted")
	}
}

// defaultScenario is the default fabric and workload with n flows.
func defaultScenario(t *testing.T, n int) *scenario.Scenario {
	t.Helper()
	spec := scenario.Default()
	spec.Workload.Flows = n
	sc, err := scenario.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestTaskPath checks the paths Task.Records takes from a link-level
// topology's shape against routing on it, for every task of the hand
// network and of the default fabric, and that a topology of another
// shape is left to routing.
func TestTaskPath(t *testing.T) {
	sc := defaultScenario(t, 3000)
	for _, c := range []struct {
		net   *topo.Network
		flows []workload.Flow
	}{{handNet(t), handFlows}, {sc.Net, sc.Flows}} {
		d, err := Decompose(context.Background(), c.net, c.flows, netcfg.Default())
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[Kind]int{}
		for ch := range c.net.Channels {
			task, err := d.Task(ch, DefaultInflation)
			if err != nil || task == nil {
				continue
			}
			kinds[task.Kind]++
			nom, err := task.Network(true)
			if err != nil {
				t.Fatal(err)
			}
			in, out := task.hops()
			for _, f := range task.Flows {
				want, err := nom.AppendPath(nil, f.ID, f.Src, f.Dst)
				if err != nil {
					t.Fatal(err)
				}
				if got := task.path(nil, in, out, f); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s channel %d (%s), flow %d from node %d to %d: path %v, routing says %v", c.net.Name, ch, task.Kind, f.ID, f.Src, f.Dst, got, want)
				}
			}
		}
		if len(kinds) < 3 {
			t.Errorf("%s: tasks of kinds %v, want uplink, core and downlink", c.net.Name, kinds)
		}
	}
	d, err := Decompose(context.Background(), handNet(t), handFlows, netcfg.Default())
	if err != nil {
		t.Fatal(err)
	}
	task, err := d.Task(0, DefaultInflation)
	if err != nil {
		t.Fatal(err)
	}
	if in, _ := task.hops(); in == nil {
		t.Fatal("hops refused the uplink task of channel 0")
	}
	for _, c := range []struct {
		name  string
		shape func(*Task)
	}{
		{"node IDs out of position", func(t *Task) { t.Nodes[2].ID, t.Nodes[3].ID = 3, 2 }},
		// Node 2 would be one hop from node 0 by this link's reverse.
		{"a destination that also feeds node 0", func(t *Task) { t.Links = append(t.Links, TaskLink{A: 2, B: 0, Bandwidth: gbps}) }},
		{"a second link between the target's ends", func(t *Task) { t.Links = append(t.Links, TaskLink{A: 1, B: 0, Bandwidth: gbps}) }},
		{"a link into node 1", func(t *Task) { t.Links = append(t.Links, TaskLink{A: 3, B: 1, Bandwidth: gbps}) }},
	} {
		odd := *task
		odd.Nodes, odd.Links = slices.Clone(task.Nodes), slices.Clone(task.Links)
		c.shape(&odd)
		if in, out := odd.hops(); in != nil || out != nil {
			t.Errorf("%s: hops gave %v, %v, want nil (routing decides)", c.name, in, out)
		}
	}
}

// TestDecompositionLoads checks the loads a run takes from its
// decomposition against metrics.LinkLoads, which routes the flows itself.
func TestDecompositionLoads(t *testing.T) {
	sc := defaultScenario(t, 3000)
	d, err := Decompose(context.Background(), sc.Net, sc.Flows, netcfg.Default())
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.loads()
	if err != nil {
		t.Fatal(err)
	}
	want, err := metrics.LinkLoads(sc.Net, sc.Flows)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("loads from the decomposition differ from metrics.LinkLoads: max %g on channel %d, want %g on %d", got.Max, got.MaxChannel, want.Max, want.MaxChannel)
	}
	if _, err := (&Decomposition{Net: sc.Net, Flows: sc.Flows[:1]}).loads(); err == nil {
		t.Error("loads of one flow: no error, want the missing span's")
	}
}

// TestDecomposeChunks checks the decomposition of flows routed in several
// chunks against each flow's own route, and every channel's flows.
func TestDecomposeChunks(t *testing.T) {
	net, flows := tinyScenario(t, 150_000)
	d, err := Decompose(context.Background(), net, flows, netcfg.Default())
	if err != nil {
		t.Fatal(err)
	}
	// One worker (Options.Workers 1) decomposes alike.
	if one, err := decompose(context.Background(), net, flows, netcfg.Default(), 1); err != nil || !reflect.DeepEqual(one, d) {
		t.Errorf("decomposed on one worker: %v, same as on GOMAXPROCS %v; want no error and the same", err, err == nil && reflect.DeepEqual(one, d))
	}
	on := make([][]int32, len(net.Channels))
	for i, f := range flows {
		want, err := net.AppendPath(nil, f.ID, f.Src, f.Dst)
		if err != nil {
			t.Fatal(err)
		}
		got := d.Path(i)
		if len(got) != len(want) {
			t.Fatalf("flow %d: path %v, want %v", i, got, want)
		}
		for k, c := range want {
			if int(got[k]) != c {
				t.Fatalf("flow %d: path %v, want %v", i, got, want)
			}
			on[c] = append(on[c], int32(i))
		}
	}
	for c := range net.Channels {
		if !reflect.DeepEqual(d.On(c), on[c]) && (len(on[c]) > 0 || len(d.On(c)) > 0) {
			t.Fatalf("channel %d carries %d flows, want %d", c, len(d.On(c)), len(on[c]))
		}
	}
}
