package linksim

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/cc"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/workload"
)

const gbps = 1_000_000_000

// shapes are the four link-level topologies of Parsimon Fig. 4.
var shapes = []struct {
	name string
	link Link
}{
	{"uplink", Link{Target: Hop{10 * gbps, 1000}, Dests: []Hop{{100 * gbps, 2000}}}},
	{"core", Link{Target: Hop{40 * gbps, 1000}, KBytes: 120_000, Sources: []Hop{{10 * gbps, 1000}}, Dests: []Hop{{100 * gbps, 3000}}}},
	{"downlink", Link{Target: Hop{10 * gbps, 1000}, KBytes: 30_000, Sources: []Hop{{40 * gbps, 2000}}}},
	{"direct", Link{Target: Hop{10 * gbps, 500}}},
}

// hops is the path of a flow from source 0 to destination 0.
func (l Link) hops() []Hop {
	var h []Hop
	if len(l.Sources) > 0 {
		h = append(h, l.Sources[0])
	}
	h = append(h, l.Target)
	if len(l.Dests) > 0 {
		h = append(h, l.Dests[0])
	}
	return h
}

// TestLoneFlowIdeal: a flow alone, within its window and with packets of
// one size, completes in its ideal time: its first packet stored and
// forwarded at every hop, the others following at the slowest hop's rate,
// plus the propagation delays.
func TestLoneFlowIdeal(t *testing.T) {
	cfg := netcfg.Default()
	for _, sh := range shapes {
		for _, size := range []int64{1, 700, 1000, 5000, 15000} {
			res, err := Run(context.Background(), sh.link, []workload.Flow{{ID: 7, Size: size, Start: 300}}, cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			wire := min(size, cfg.PayloadBytes) + cfg.HeaderBytes
			var ps, slowest float64
			slowest = math.Inf(1)
			for _, h := range sh.link.hops() {
				ps += float64(wire*8)*1e12/float64(h.Bandwidth) + float64(h.Delay)*1000
				slowest = min(slowest, float64(h.Bandwidth))
			}
			ps += float64((cfg.Packets(size)-1)*wire*8) * 1e12 / slowest
			if want := int64(math.Round(ps / 1000)); res.FCT[0] != want {
				t.Errorf("%s, %d bytes: FCT %d ns, want %d", sh.name, size, res.FCT[0], want)
			}
		}
	}
}

// randomFlows are n flows of random sizes from nsrc sources to ndst
// destinations with exponential gaps of mean gapNs.
func randomFlows(n, nsrc, ndst int, gapNs float64, seed uint64) []workload.Flow {
	r := rand.New(rand.NewPCG(seed, 0))
	flows := make([]workload.Flow, n)
	var at float64
	for i := range flows {
		at += r.ExpFloat64() * gapNs
		flows[i] = workload.Flow{ID: i, Src: r.IntN(nsrc), Dst: r.IntN(ndst), Size: 1 + r.Int64N(60_000), Start: int64(at)}
	}
	return flows
}

// TestConservation: under every congestion control, every payload byte
// is delivered once; without losses the target carries every data
// packet's wire bytes once, with a small buffer it drops and the senders
// recover.
func TestConservation(t *testing.T) {
	link := Link{
		Target: Hop{10 * gbps, 1000}, KBytes: 30_000,
		Sources: []Hop{{10 * gbps, 1000}, {10 * gbps, 1000}, {10 * gbps, 2000}, {25 * gbps, 3000}},
		Dests:   []Hop{{100 * gbps, 1000}, {100 * gbps, 3000}},
	}
	flows := randomFlows(400, 4, 2, 2000, 1) // about 1.2x the target's rate
	var payload, wire, packets int64
	cfg := netcfg.Default()
	for _, f := range flows {
		payload += f.Size
		wire += cfg.WireBytes(f.Size)
		packets += cfg.Packets(f.Size)
	}
	for _, cc := range netcfg.CCs {
		for _, buffer := range []int64{0, 40_000} {
			if cc == "dctcp-window" && buffer > 0 {
				continue // refused: stock TCP's recovery is packetsim's (TestBadInput)
			}
			c := cfg
			c.CC, c.BufferBytes = cc, buffer
			res, err := Run(context.Background(), link, flows, c, Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if res.DeliveredBytes != payload {
				t.Errorf("%s, buffer %d: delivered %d payload bytes, want %d", cc, buffer, res.DeliveredBytes, payload)
			}
			if res.Marks == 0 {
				t.Errorf("%s, buffer %d: an overloaded target marked nothing", cc, buffer)
			}
			if buffer == 0 {
				if res.TargetBytes != wire || res.DataPackets != packets || res.Drops != 0 || res.Retransmits != 0 {
					t.Errorf("%s, infinite buffer: target carried %d bytes in %d packets (%d dropped, %d resent), want %d in %d", cc, res.TargetBytes, res.DataPackets, res.Drops, res.Retransmits, wire, packets)
				}
				continue
			}
			if res.Drops == 0 || res.Retransmits == 0 || res.DataPackets != packets+res.Retransmits {
				t.Errorf("%s, buffer %d: %d drops, %d retransmits, %d data packets for %d", cc, buffer, res.Drops, res.Retransmits, res.DataPackets, packets)
			}
			if res.TargetBytes < wire {
				t.Errorf("%s, buffer %d: target carried %d bytes, less than the %d of one copy of each packet", cc, buffer, res.TargetBytes, wire)
			}
		}
	}
}

// TestMD1: single-packet flows from distinct sources arriving as a
// Poisson process at a target port queue like M/D/1, whose mean wait is
// rho S / (2 (1 - rho)) for service time S.
func TestMD1(t *testing.T) {
	cfg := netcfg.Default()
	const n = 40_000
	wire := cfg.PayloadBytes + cfg.HeaderBytes
	serviceNs := float64(wire*8) / 10 // at 10 Gbps
	for _, rho := range []float64{0.3, 0.6} {
		flows := randomFlows(n, n, 1, serviceNs/rho, 2)
		link := Link{Target: Hop{10 * gbps, 0}, KBytes: 1 << 40, Sources: make([]Hop, n)}
		for i := range flows {
			flows[i].Src, flows[i].Size = i, cfg.PayloadBytes
			link.Sources[i] = Hop{1000 * gbps, 0}
		}
		res, err := Run(context.Background(), link, flows, cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// FCT = the source's and the target's serialization plus the wait.
		fixed := float64(wire*8)/1000 + serviceNs
		var wait float64
		for _, fct := range res.FCT {
			wait += float64(fct) - fixed
		}
		wait /= n
		want := rho * serviceNs / (2 * (1 - rho))
		if math.Abs(wait-want) > 0.05*want {
			t.Errorf("rho %g: mean wait %.1f ns, M/D/1 says %.1f", rho, wait, want)
		}
	}
}

func TestDeterministic(t *testing.T) {
	link := shapes[1].link
	link.Sources = append(link.Sources, Hop{10 * gbps, 2000})
	link.Dests = append(link.Dests, Hop{100 * gbps, 1000})
	flows := randomFlows(300, 2, 2, 500, 3)
	a, err := Run(context.Background(), link, flows, netcfg.Default(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(context.Background(), link, flows, netcfg.Default(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Error("two runs of the same input differ")
	}
}

// TestInlineDCTCP: the built-in rate DCTCP, held inline, gives the same
// run as the same controller reached through the CC interface, with and
// without a finite buffer (timeouts) and with a bandwidth that does not
// divide 8e12 (serialization by division).
func TestInlineDCTCP(t *testing.T) {
	link := Link{
		Target: Hop{9_876_543_210, 1000}, KBytes: 30_000,
		Sources: []Hop{{10 * gbps, 1000}, {7_777_777_777, 2000}, {25 * gbps, 3000}},
		Dests:   []Hop{{100 * gbps, 1000}, {33_333_333_333, 3000}},
	}
	flows := randomFlows(400, 3, 2, 2000, 4)
	for _, buffer := range []int64{0, 40_000} {
		cfg := netcfg.Default()
		cfg.BufferBytes = buffer
		inline, err := Run(context.Background(), link, flows, cfg, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		iface, err := Run(context.Background(), link, flows, cfg, Options{Seed: 1, CC: cc.NewDCTCPRate})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(inline, iface) {
			t.Errorf("buffer %d: inline DCTCP differs from the interface's (FCT %v... against %v...)", buffer, inline.FCT[:3], iface.FCT[:3])
		}
		if buffer > 0 && inline.Retransmits == 0 {
			t.Errorf("buffer %d: no retransmission, so the timeout path went untested", buffer)
		}
	}
}

// TestNICWithoutAcks: a link whose target is the sender's NIC runs
// without ACK events (runNIC) and gives the run with every event, record
// for record; where a window closes it starts over with events and gives
// it too. Loads from light to past the NIC's rate, windows from ample to
// one packet, a bandwidth that does not divide 8e12 (the pacing and the
// serialization then round apart), destinations with their own delays.
func TestNICWithoutAcks(t *testing.T) {
	var fast, closed int
	for k, c := range []struct {
		bw     int64
		gapNs  float64
		window int64
	}{
		{10 * gbps, 20_000, 0}, {10 * gbps, 4000, 0}, {10 * gbps, 1500, 0},
		{9_876_543_210, 4000, 0}, {9_876_543_210, 1500, 0},
		{10 * gbps, 4000, 4000}, {10 * gbps, 1500, 1000},
	} {
		link := Link{Target: Hop{c.bw, 1000}, Dests: []Hop{{100 * gbps, 1000}, {33_333_333_333, 3000}, {40 * gbps, 500}}}
		cfg := netcfg.Default()
		if c.window > 0 {
			cfg.DCTCP.WindowBytes = c.window
		}
		flows := randomFlows(500, 1, 3, c.gapNs, uint64(10+k))
		without, err := Run(context.Background(), link, flows, cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		with, err := Run(context.Background(), link, flows, cfg, Options{eventsOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(without.FCT, with.FCT) || without.DeliveredBytes != with.DeliveredBytes || without.TargetBytes != with.TargetBytes {
			t.Errorf("case %d: without ACK events the records differ from the run with them", k)
		}
		// runNIC counts wake-ups only, the run with events ACKs too.
		if without.Events < with.Events {
			fast++
		} else {
			closed++
		}
	}
	if fast == 0 || closed == 0 {
		t.Errorf("%d runs without ACK events, %d started over: the test no longer covers both", fast, closed)
	}
	// A flow that starts as the NIC wakes is looked at first, as in run:
	// at 8 Gbps a full packet takes 1048 ns, so the second flow starts at
	// the wake-up after the first flow's first packet, and the round
	// robin sends it next.
	link := Link{Target: Hop{8 * gbps, 1000}}
	flows := []workload.Flow{{ID: 0, Size: 3000}, {ID: 1, Size: 3000, Start: 1048}}
	without, err := Run(context.Background(), link, flows, netcfg.Default(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	with, err := Run(context.Background(), link, flows, netcfg.Default(), Options{eventsOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(without.FCT, with.FCT) || without.Events >= with.Events {
		t.Errorf("a start at a wake-up: FCTs %v without ACK events (%d events), %v with (%d)", without.FCT, without.Events, with.FCT, with.Events)
	}
}

func TestBadInput(t *testing.T) {
	good := shapes[1].link
	flow := workload.Flow{ID: 3, Size: 1000}
	cfg := netcfg.Default()
	for _, c := range []struct {
		name  string
		link  Link
		flows []workload.Flow
		cfg   func(*netcfg.Config)
		want  string
	}{
		{"zero bandwidth", Link{Target: Hop{0, 1}}, nil, nil, "target hop 0 has bandwidth 0"},
		{"negative delay", Link{Target: Hop{gbps, 1}, Sources: []Hop{{gbps, -1}}, KBytes: 1}, nil, nil, "source hop 0"},
		{"no threshold", Link{Target: Hop{gbps, 1}, Sources: []Hop{{gbps, 1}}}, nil, nil, "ECN threshold 0"},
		{"bad source", good, []workload.Flow{{ID: 3, Src: 1, Size: 1}}, nil, "flow 3 has source 1"},
		{"bad destination", good, []workload.Flow{{ID: 3, Dst: -1, Size: 1}}, nil, "flow 3 has destination -1"},
		{"empty flow", good, []workload.Flow{{ID: 3}}, nil, "flow 3 has size 0"},
		{"unsorted", good, []workload.Flow{{ID: 1, Size: 1, Start: 5}, flow}, nil, "flow 3 starts at 0"},
		{"start beyond the clock", good, []workload.Flow{{ID: 3, Size: 1, Start: 300_000e9}}, nil, "flow 3 starts at 300000000000000 ns; at most"},
		{"unknown cc", good, nil, func(c *netcfg.Config) { c.CC = "reno" }, "reno"},
		{"buffer without rto", good, nil, func(c *netcfg.Config) { c.BufferBytes, c.DCTCP.MinRTONanos = 1000, 0 }, "loss recovery"},
		{"shared buffer", good, nil, func(c *netcfg.Config) { c.Buffer.SharedBytes = 200_000 }, "shared switch buffer and PFC are not supported"},
		{"window dctcp, finite buffer", good, nil, func(c *netcfg.Config) { c.CC, c.BufferBytes = "dctcp-window", 50_000 }, "window DCTCP with a finite buffer is not supported"},
		{"pfc", good, nil, func(c *netcfg.Config) { c.Buffer.SharedBytes, c.PFC.Enabled = 200_000, true }, "shared switch buffer and PFC are not supported"},
	} {
		c2 := cfg
		if c.cfg != nil {
			c.cfg(&c2)
		}
		_, err := Run(context.Background(), c.link, c.flows, c2, Options{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// echoRecorder is a CC that never reacts and remembers whether any ACK
// echoed a mark.
type echoRecorder struct {
	line   float64
	marked bool
}

func (r *echoRecorder) RateBps() float64    { return r.line }
func (r *echoRecorder) WindowBytes() int64  { return 1 << 40 }
func (r *echoRecorder) OnAck(a cc.Ack)      { r.marked = r.marked || a.ECE }
func (r *echoRecorder) OnTimeout(now int64) {}

// n single-packet flows from n sources reach the target at one instant
// and leave it in flow order, one packet time w apart. Marked at enqueue,
// flow i sees the i packets ahead of it (marked if i*w > K); marked at
// dequeue, the n-1-i behind it as it starts (marked if (n-1-i)*w > K,
// except flow 0, which found the port empty), as packetsim's switch
// ports mark.
func TestECNMarkingPoint(t *testing.T) {
	const n = 40
	link := Link{Target: Hop{10 * gbps, 1000}, KBytes: 30_000, Dests: []Hop{{10 * gbps, 1000}}}
	for range n {
		link.Sources = append(link.Sources, Hop{10 * gbps, 1000})
	}
	for _, point := range netcfg.ECNMarks {
		t.Run(point, func(t *testing.T) {
			cfg := netcfg.Default()
			cfg.ECNMark = point
			w := cfg.PayloadBytes + cfg.HeaderBytes
			var ccs []*echoRecorder
			newCC := func(cfg netcfg.Config, line int64) cc.CC {
				r := &echoRecorder{line: float64(line)}
				ccs = append(ccs, r)
				return r
			}
			flows := make([]workload.Flow, n)
			for i := range flows {
				flows[i] = workload.Flow{ID: i, Src: i, Dst: 0, Size: cfg.PayloadBytes, Start: 1000}
			}
			res, err := Run(context.Background(), link, flows, cfg, Options{CC: newCC})
			if err != nil {
				t.Fatal(err)
			}
			var marks int64
			for i, r := range ccs {
				want := int64(i)*w > link.KBytes
				if point == "dequeue" {
					want = i > 0 && int64(n-1-i)*w > link.KBytes
				}
				if r.marked != want {
					t.Errorf("flow %d: marked %v, want %v", i, r.marked, want)
				}
				if want {
					marks++
				}
			}
			if res.Marks != marks {
				t.Errorf("%d marks counted, want %d", res.Marks, marks)
			}
		})
	}
}
