package ns3

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// TestMain keeps `go test` usable on machines without ns-3 when
// TAILSCOPE_NO_NS3=1: examples cannot skip, so they are left out then.
func TestMain(m *testing.M) {
	flag.Parse()
	if err := Available(); err != nil && os.Getenv("TAILSCOPE_NO_NS3") == "1" {
		if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "" {
			flag.Set("test.run", "^Test")
		}
	}
	os.Exit(m.Run())
}

// needNS3 fails the test when ns-3 is missing, with the message saying how
// to install it, or skips it when TAILSCOPE_NO_NS3=1.
func needNS3(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv("TAILSCOPE_NO_NS3") == "1" {
			t.Skipf("TAILSCOPE_NO_NS3=1: %v", err)
		}
		t.Fatalf("%v (or set TAILSCOPE_NO_NS3=1 to skip the ns-3 tests)", err)
	}
}

// loneFCT is the FCT of a flow alone on path as ns-3 frames it: the ideal
// formula with ns-3's per-packet overhead (20 B IP + 32 B TCP + 2 B PPP)
// instead of netcfg's 48 B; plus the serialization of the handshake's final
// ACK (54 B), which leaves the sender just ahead of the first data packet;
// plus, for flows longer than the initial window, the one stall of slow
// start: the sender idles from the end of its first window until the first
// ACK is back, when the path's round trip exceeds the window's
// serialization time. (After that the window doubles per round trip and
// stays ahead of these paths' bandwidth-delay products.)
func loneFCT(net *topo.Network, path []int, size int64, cfg netcfg.Config) float64 {
	const overhead = 54
	first := net.Channels[path[0]].Bandwidth
	fct := float64(overhead*8) * 1e9 / float64(first)
	wcfg := cfg
	wcfg.HeaderBytes = overhead
	fct += float64(metrics.IdealFCT(net, path, size, wcfg))
	if cfg.Packets(size) <= cfg.DCTCP.InitWindow {
		return fct
	}
	var ack float64 // first data packet out, its ACK back
	for _, c := range path {
		ch := net.Channels[c]
		ack += float64((cfg.PayloadBytes+2*overhead)*8)*1e9/float64(ch.Bandwidth) + 2*float64(ch.Delay)
	}
	window := float64(cfg.DCTCP.InitWindow*(cfg.PayloadBytes+overhead)*8) * 1e9 / float64(first)
	return fct + max(0, ack-window)
}

func TestLoneFlow(t *testing.T) {
	needNS3(t)
	dumbbell, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 1, Receivers: 1})
	if err != nil {
		t.Fatal(err)
	}
	lot, err := topo.ParkingLot(topo.ParkingLotSpec{Hops: 4, Bandwidths: []int64{10 * topo.Gbps, 40 * topo.Gbps, 40 * topo.Gbps, 10 * topo.Gbps}})
	if err != nil {
		t.Fatal(err)
	}
	cfg := netcfg.Default()
	for _, tc := range []struct {
		name     string
		net      *topo.Network
		src, dst int
	}{
		{"dumbbell", dumbbell, 0, 1},
		{"parking-lot", lot, 0, 1},
	} {
		for _, size := range []int64{100, 1000, 1001, 20_000, 300_000, 2_000_000} {
			t.Run(fmt.Sprintf("%s/%dB", tc.name, size), func(t *testing.T) {
				flows := []workload.Flow{{ID: 7, Src: tc.src, Dst: tc.dst, Size: size, Start: 5000}}
				res, err := Simulate(context.Background(), tc.net, flows, cfg, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Records) != 1 || res.Unrouted != 0 || res.Failed != 0 {
					t.Fatalf("records %d, unrouted %d, failed %d; want 1, 0, 0", len(res.Records), res.Unrouted, res.Failed)
				}
				r := res.Records[0]
				path, _ := tc.net.Path(7, tc.src, tc.dst)
				want := loneFCT(tc.net, path, size, cfg)
				tol := float64(cfg.Packets(size)) + 10
				if math.Abs(float64(r.FCT)-want) > tol {
					t.Errorf("size %d: FCT %d ns, want %.0f ± %.0f (ns-3 framing)", size, r.FCT, want, tol)
				}
				t.Logf("size %d: FCT %d ns, closed form %+.0f ns, slowdown %.4f", size, r.FCT, float64(r.FCT)-want, r.Slowdown)
				if ideal := metrics.IdealFCT(tc.net, path, size, cfg); r.Ideal != ideal || r.Slowdown != float64(r.FCT)/float64(ideal) || r.Slowdown < 1 {
					t.Errorf("size %d: ideal %d (want %d), slowdown %.4f (want FCT/ideal >= 1)", size, r.Ideal, ideal, r.Slowdown)
				}
				// The handshake takes a round trip: at least twice the
				// path's propagation delay, and nothing queues.
				var prop int64
				for _, c := range path {
					prop += tc.net.Channels[c].Delay
				}
				o := res.Flows[0]
				if hs := o.FirstByte - o.Start; hs < 2*prop || hs > 2*prop+2000 {
					t.Errorf("handshake %d ns, want 2 x %d ns propagation plus under 2 us of serialization", hs, prop)
				}
			})
		}
	}
}

// TestLoadedDumbbell runs a few hundred flows at moderate load: every flow
// finishes with all its bytes, none beats the ideal, and every switch
// forwards exactly the packets and bytes it received (conservation; the run
// continues past the last flow so that closing handshakes drain).
func TestLoadedDumbbell(t *testing.T) {
	needNS3(t)
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 4, Receivers: 4})
	if err != nil {
		t.Fatal(err)
	}
	cfg := netcfg.Default()
	flows := randomFlows(net, 300, 0.5, 10*topo.Gbps, 42)
	last := flows[len(flows)-1].Start
	res, err := Simulate(context.Background(), net, flows, cfg, Options{StopAtNanos: last + 50_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unfinished) != 0 || len(res.Records) != len(flows) || res.Unrouted != 0 {
		t.Fatalf("unfinished %v, records %d of %d, unrouted %d", res.Unfinished, len(res.Records), len(flows), res.Unrouted)
	}
	var marks int64
	for i, r := range res.Records {
		if res.Flows[i].BytesReceived != flows[i].Size {
			t.Errorf("flow %d received %d of %d bytes", r.FlowID, res.Flows[i].BytesReceived, flows[i].Size)
		}
		if r.FCT < r.Ideal {
			t.Errorf("flow %d (%d B): FCT %d ns below the ideal %d ns", r.FlowID, r.Size, r.FCT, r.Ideal)
		}
	}
	in := make([]ChannelStats, len(net.Nodes))
	out := make([]ChannelStats, len(net.Nodes))
	for c, st := range res.Channels {
		ch := net.Channels[c]
		in[ch.Dst].Packets += st.Packets - st.Drops
		out[ch.Src].Packets += st.Packets
		marks += st.Marks
	}
	for id, n := range net.Nodes {
		if n.Kind == topo.Switch && in[id].Packets != out[id].Packets {
			t.Errorf("switch %d received %d packets but sent %d", id, in[id].Packets, out[id].Packets)
		}
	}
	// Every flow's data crosses the bottleneck (the last link, left to
	// right) with at least 52 B of IP and TCP header per packet.
	var data int64
	for _, f := range flows {
		data += f.Size + 52*cfg.Packets(f.Size)
	}
	bottleneck := 2 * (len(net.Links) - 1)
	if got := res.Channels[bottleneck].Bytes; got < data {
		t.Errorf("bottleneck carried %d IP bytes, less than the flows' %d", got, data)
	}
	if marks == 0 {
		t.Errorf("no ECN marks at 50%% load with 4:1 fan-in")
	}
	t.Logf("%d flows: %d events, %.2f s wall, %d marks", len(flows), res.Events, res.WallSeconds, marks)
}

// TestFiniteBuffer runs a 4-to-4 incast across the dumbbell's bottleneck
// with a 20 KB buffer per port, below the ECN threshold, so that only
// drops slow the senders: packets are dropped at the bottleneck, every
// flow recovers and delivers all its bytes, and each switch forwards what
// it received less what it dropped. With infinite buffers nothing drops.
// (Stock TCP's fast retransmit and timeouts recover; packetsim's own
// recovery is tested in its package.)
func TestFiniteBuffer(t *testing.T) {
	needNS3(t)
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 4, Receivers: 4})
	if err != nil {
		t.Fatal(err)
	}
	var flows []workload.Flow
	for i := 0; i < 4; i++ {
		flows = append(flows, workload.Flow{ID: i, Src: i, Dst: 4 + i, Size: 500_000, Start: 1000})
	}
	bottleneck := 2 * (len(net.Links) - 1)
	for _, buffer := range []int64{0, 20_000} {
		cfg := netcfg.NS3()
		cfg.BufferBytes = buffer
		// Running on after the flows lets the closing handshakes drain.
		res, err := Simulate(context.Background(), net, flows, cfg, Options{StopAtNanos: 50_000_000})
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Incomplete(); err != nil {
			t.Fatalf("buffer %d: %v", buffer, err)
		}
		in := make([]int64, len(net.Nodes))
		out := make([]int64, len(net.Nodes))
		var drops int64
		for c, st := range res.Channels {
			ch := net.Channels[c]
			in[ch.Dst] += st.Packets - st.Drops
			out[ch.Src] += st.Packets
			drops += st.Drops
		}
		for id, n := range net.Nodes {
			if n.Kind == topo.Switch && in[id] != out[id] {
				t.Errorf("buffer %d: switch %d received %d packets (less drops) but sent %d", buffer, id, in[id], out[id])
			}
		}
		for i, o := range res.Flows {
			if o.BytesReceived != flows[i].Size {
				t.Errorf("buffer %d: flow %d received %d of %d bytes", buffer, o.ID, o.BytesReceived, flows[i].Size)
			}
		}
		var recoveries int
		for _, o := range res.Flows {
			recoveries += o.Timeouts + o.FastRecoveries
		}
		t.Logf("buffer %d B: %d drops (%d at the bottleneck), %d loss recoveries", buffer, drops, res.Channels[bottleneck].Drops, recoveries)
		switch {
		case buffer == 0 && (drops != 0 || recoveries != 0):
			t.Errorf("infinite buffers: %d drops, %d loss recoveries", drops, recoveries)
		case buffer > 0 && (res.Channels[bottleneck].Drops == 0 || recoveries == 0):
			t.Errorf("buffer %d B below K: %d drops at the 4:1 bottleneck, %d loss recoveries", buffer, res.Channels[bottleneck].Drops, recoveries)
		}
	}
}

// randomFlows draws n flows between the dumbbell's senders and receivers
// with sizes uniform in 1-100 KB and Poisson arrivals loading a link of
// rate bps to about load.
func randomFlows(net *topo.Network, n int, load float64, bps int64, seed uint64) []workload.Flow {
	r := rand.New(rand.NewPCG(seed, 1))
	var senders, receivers []int
	for _, h := range net.Hosts() {
		if len(senders) < len(net.Hosts())/2 {
			senders = append(senders, h)
		} else {
			receivers = append(receivers, h)
		}
	}
	mean := 50_500.0 * 8 / (load * float64(bps)) * 1e9 // ns between arrivals
	flows := make([]workload.Flow, n)
	var at float64
	for i := range flows {
		at += r.ExpFloat64() * mean
		flows[i] = workload.Flow{ID: i, Src: senders[r.IntN(len(senders))], Dst: receivers[r.IntN(len(receivers))],
			Size: 1000 + r.Int64N(99_001), Start: int64(at)}
	}
	return flows
}

// TestPathPinning runs flows over a diamond with two equal-cost middle
// switches: each channel carries packets exactly when some flow's path (or
// its reverse, for ACKs) uses it, and the data bytes land where the paths
// say.
func TestPathPinning(t *testing.T) {
	needNS3(t)
	nodes := []topo.Node{{ID: 0}, {ID: 1}, {ID: 2, Kind: topo.Switch}, {ID: 3, Kind: topo.Switch}, {ID: 4, Kind: topo.Switch}, {ID: 5, Kind: topo.Switch}}
	g := 10 * topo.Gbps
	links := []topo.Link{{A: 0, B: 2}, {A: 2, B: 3}, {A: 2, B: 4}, {A: 3, B: 5}, {A: 4, B: 5}, {A: 5, B: 1}}
	for i := range links {
		links[i].Bandwidth, links[i].Delay = g, topo.Microsecond
	}
	net, err := topo.New("diamond", nodes, links)
	if err != nil {
		t.Fatal(err)
	}
	// Pick flow ids by the middle switch ECMP gives them: sizes differ by
	// side so that the byte counts tell the paths apart.
	var flows []workload.Flow
	var viaA, viaB int64
	for id := 0; len(flows) < 6; id++ {
		p, _ := net.Path(id, 0, 1)
		size := int64(30_000)
		if net.Channels[p[1]].Dst == 4 {
			if viaB > 0 {
				continue
			}
			size = 200_000
			viaB += size
		} else {
			if viaA >= 5*30_000 {
				continue
			}
			viaA += size
		}
		flows = append(flows, workload.Flow{ID: id, Src: 0, Dst: 1, Size: size, Start: int64(len(flows)) * 1000})
	}
	res, err := Simulate(context.Background(), net, flows, netcfg.Default(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Unrouted != 0 || len(res.Records) != len(flows) {
		t.Fatalf("unrouted %d, records %d of %d", res.Unrouted, len(res.Records), len(flows))
	}
	// Data channels 2 (2->3) and 6 (3->5) carry side A, 4 (2->4) and 8
	// (4->5) side B; their reverses carry the ACKs.
	for _, tc := range []struct {
		ch   int
		data int64
	}{{2, viaA}, {6, viaA}, {4, viaB}, {8, viaB}} {
		st := res.Channels[tc.ch]
		pkts := (tc.data + 999) / 1000
		// Data plus one SYN/ACK/FIN-sized handful per flow, nothing more.
		if st.Bytes < tc.data+52*pkts || st.Bytes > tc.data+52*pkts+6*100*int64(len(flows)) {
			t.Errorf("channel %d carried %d IP bytes, want the %d data bytes of its flows plus headers", tc.ch, st.Bytes, tc.data)
		}
		if rev := res.Channels[tc.ch^1]; rev.Packets < pkts/2 || rev.Bytes > 100*rev.Packets {
			t.Errorf("reverse channel %d: %d packets, %d bytes; want the ACKs of %d data packets", tc.ch^1, rev.Packets, rev.Bytes, pkts)
		}
	}
}

// TestKOverride checks that Options.KBytes reaches exactly the port it
// names: two senders congest the bottleneck port, which marks at
// the default K and never with a K beyond anything that can queue there.
func TestKOverride(t *testing.T) {
	needNS3(t)
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 1})
	if err != nil {
		t.Fatal(err)
	}
	flows := []workload.Flow{{ID: 0, Src: 0, Dst: 2, Size: 500_000}, {ID: 1, Src: 1, Dst: 2, Size: 500_000, Start: 1000}}
	path, _ := net.Path(0, 0, 2)
	port := path[1] // left switch to right switch, where the two flows meet
	for _, tc := range []struct {
		name   string
		k      map[int]int64
		marked bool
	}{
		{"default", nil, true},
		{"raised", map[int]int64{port: 10_000_000}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Simulate(context.Background(), net, flows, netcfg.Default(), Options{KBytes: tc.k})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Channels[port].Marks > 0; got != tc.marked || res.Channels[port].Packets < 1000 {
				t.Errorf("port %d: %d packets, %d marks; want marks: %v", port, res.Channels[port].Packets, res.Channels[port].Marks, tc.marked)
			}
		})
	}
}

func TestProgramMissing(t *testing.T) {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 1, Receivers: 1})
	if err != nil {
		t.Fatal(err)
	}
	flows := []workload.Flow{{ID: 0, Src: 0, Dst: 1, Size: 100}}
	missing := filepath.Join(t.TempDir(), "no-such-program")
	_, err = Run(context.Background(), net, flows, netcfg.Default(), Options{Program: missing})
	if err == nil || !strings.Contains(err.Error(), "make ns3") || !strings.Contains(err.Error(), "libns3-dev") || !strings.Contains(err.Error(), missing) {
		t.Fatalf("err = %v, want one naming %s, `make ns3` and libns3-dev", err, missing)
	}
}

func TestNotInstalled(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := Available()
	if err == nil || !strings.Contains(err.Error(), "make ns3") || !strings.Contains(err.Error(), "libns3-dev") {
		t.Fatalf("Available() = %v, want an error naming `make ns3` and libns3-dev", err)
	}
	// The default program cannot be built either: Run says the same.
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	net, _ := topo.Dumbbell(topo.DumbbellSpec{Senders: 1, Receivers: 1})
	_, err = Run(context.Background(), net, []workload.Flow{{ID: 0, Src: 0, Dst: 1, Size: 100}}, netcfg.Default(), Options{})
	if err == nil || !strings.Contains(err.Error(), "make ns3") {
		t.Fatalf("Run = %v, want the install message", err)
	}
}

func TestBadInput(t *testing.T) {
	net, _ := topo.Dumbbell(topo.DumbbellSpec{Senders: 1, Receivers: 1})
	ok := []workload.Flow{{ID: 0, Src: 0, Dst: 1, Size: 100}}
	bad := netcfg.Default()
	bad.PayloadBytes = 0
	shared, pfc, tiny := netcfg.NS3(), netcfg.NS3(), netcfg.NS3()
	shared.Buffer.SharedBytes = 200_000
	pfc.Buffer.SharedBytes, pfc.PFC.Enabled = 200_000, true
	tiny.BufferBytes = 2000
	for _, tc := range []struct {
		name  string
		flows []workload.Flow
		cfg   netcfg.Config
		opts  Options
		want  string
	}{
		{"switch endpoint", []workload.Flow{{ID: 0, Src: 0, Dst: 2, Size: 100}}, netcfg.Default(), Options{}, "not a host"},
		{"bad config", ok, bad, Options{}, "payload_bytes"},
		{"negative stop", ok, netcfg.Default(), Options{StopAtNanos: -1}, "negative"},
		{"bad K channel", ok, netcfg.Default(), Options{KBytes: map[int]int64{99: 1}}, "channel 99"},
		{"shared buffer", ok, shared, Options{}, "no shared switch buffer"},
		{"pfc", ok, pfc, Options{}, "no shared switch buffer or PFC"},
		{"tiny buffer", ok, tiny, Options{}, "below two packets of 1054 B"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Program = "/nonexistent" // input checks come first
			_, err := Run(context.Background(), net, tc.flows, tc.cfg, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}

// TestProgramRejects feeds the C++ program malformed inputs directly: it
// must exit with an error naming the file and line.
func TestProgramRejects(t *testing.T) {
	needNS3(t)
	prog := DefaultProgram()
	if _, err := Build(prog); err != nil {
		t.Fatal(err)
	}
	topology := "node 0 host\nnode 1 host\nnode 2 switch\nlink 0 0 2 10000000000 1000 30000 30000\nlink 1 2 1 10000000000 1000 30000 30000\n"
	for _, tc := range []struct {
		name, topo, config, flows, want string
	}{
		{"broken path", topology, "", "flow 0 0 1 100 0 2 0 3\n", "flows.txt:1: path is not a chain"},
		{"wrong end", topology, "", "flow 0 0 1 100 0 1 0\n", "flows.txt:1: path must lead from host src to host dst"},
		{"unsorted", topology, "", "flow 0 0 1 100 10 2 0 2\nflow 1 0 1 100 5 2 0 2\n", "flows.txt:2: "},
		{"bad link", "node 0 host\nlink 0 0 0 1 1 1 1\n", "", "", "topology.txt:2: "},
		{"unknown key", topology, "mss 1000\n", "", "config.txt:1: unknown key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{}
			for _, f := range []struct{ name, text string }{{"topology.txt", tc.topo}, {"config.txt", tc.config}, {"flows.txt", tc.flows}} {
				p := filepath.Join(dir, f.name)
				if err := os.WriteFile(p, []byte(f.text), 0o644); err != nil {
					t.Fatal(err)
				}
				args = append(args, p)
			}
			out, err := exec.Command(prog, append(args, filepath.Join(dir, "out.txt"))...).CombinedOutput()
			if err == nil || !strings.Contains(string(out), tc.want) {
				t.Fatalf("err %v, output %q; want a failure mentioning %q", err, out, tc.want)
			}
		})
	}
}

func TestTimeLimit(t *testing.T) {
	needNS3(t)
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 4, Receivers: 4})
	if err != nil {
		t.Fatal(err)
	}
	// 200 flows of 10 MB keep ns-3 busy for far longer than the limit.
	flows := randomFlows(net, 200, 0.9, 10*topo.Gbps, 1)
	for i := range flows {
		flows[i].Size = 10_000_000
	}
	_, err = Run(context.Background(), net, flows, netcfg.Default(), Options{TimeLimitSeconds: 0.2})
	if err == nil || !strings.Contains(err.Error(), "time limit") {
		t.Fatalf("err = %v, want the time limit to stop the run", err)
	}
}

func TestParseOutput(t *testing.T) {
	flows := []workload.Flow{{ID: 3, Size: 100, Start: 10}, {ID: 9, Size: 2000, Start: 20}}
	good := "# tailscope-ns3 v1\nflow 3 500 10 20 520 100\nflow 9 -1 20 -1 -1 1000\nloss 3 1 2\nchannel 1 5 600 0 2\nend events=77 sim_ns=900 wall_s=0.5 completed=1 failed=0 unrouted=0\n"
	res, err := parseOutput(strings.NewReader(good), "out", flows, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := FlowOutcome{ID: 3, FCT: 500, Start: 10, FirstByte: 20, End: 520, BytesReceived: 100, Timeouts: 1, FastRecoveries: 2}
	if res.Flows[0] != want || res.Flows[1].FCT != -1 || res.Channels[1] != (ChannelStats{5, 600, 0, 2}) || res.Events != 77 || res.SimNanos != 900 {
		t.Fatalf("parsed %+v", res)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"truncated", "flow 3 500 10 20 520 100\nflow 9 -1 20 -1 -1 0\n", "truncated"},
		{"missing flow", "flow 3 500 10 20 520 100\nend events=1\n", "flow 9 is missing"},
		{"unknown flow", "flow 4 500 10 20 520 100\n", "out:1: unknown flow id"},
		{"twice", "flow 3 500 10 20 520 100\nflow 3 500 10 20 520 100\n", "out:2: flow reported twice"},
		{"not a number", "flow 3 5x0 10 20 520 100\n", "out:1: field 3 is not an integer"},
		{"short", "flow 3 500 10\n", "out:1: want 6 numbers"},
		{"bytes lost", "flow 3 500 10 20 520 99\n", "inconsistent finished flow"},
		{"fct mismatch", "flow 3 400 10 20 520 100\n", "inconsistent finished flow"},
		{"loss unknown flow", "loss 4 1 0\n", "out:1: unknown flow id"},
		{"loss first", "loss 3 1 0\n", "out:1: loss record before its flow record"},
		{"loss negative", "flow 3 500 10 20 520 100\nloss 3 -1 0\n", "out:2: negative count"},
		{"loss short", "flow 3 500 10 20 520 100\nloss 3 1\n", "out:2: want 3 numbers"},
		{"channel range", "channel 2 1 1 0 0\n", "channel id out of range"},
		{"junk", "hello\n", "unknown record"},
		{"after end", "end events=1\nflow 3 500 10 20 520 100\n", "after the end line"},
		{"bad end", "end events=x\n", "bad events value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseOutput(strings.NewReader(tc.text), "out", flows, 2)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
		})
	}
}
