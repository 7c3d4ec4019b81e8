package packetsim

import (
	"context"
	"testing"

	"github.com/tailscope/tailscope/lib/cc"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// tcpConfig is window DCTCP with a finite buffer too large to fill, ECN
// marking out of reach and alpha held near 1 (g tiny), so that the only
// congestion signals are the losses a test makes and a cut halves the
// window.
func tcpConfig() netcfg.Config {
	cfg := netcfg.NS3()
	cfg.BufferBytes = 10 << 20
	cfg.KBytes = 1 << 30
	cfg.DCTCP.InitAlpha = 1
	cfg.DCTCP.G = 1e-9
	return cfg
}

// runDrops runs flows on net under cfg with HostFIFO, dropping the data
// packets for which drop returns true (n: how often that packet has
// reached the first hop's port before, 0 for its first transmission),
// and returns the stopped simulator and its result.
func runDrops(t *testing.T, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, stopNs int64, drop func(pkt int32, n int) bool) (*sim, *Result) {
	t.Helper()
	var recs []metrics.Record
	s, err := newSim(net, workload.SliceSource(flows), cfg, Options{HostFIFO: true, StopAtNanos: stopNs}, cc.NewDCTCPWindow, func(r metrics.Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.tcp == nil {
		t.Fatal("window DCTCP with a finite buffer does not run stock TCP's recovery")
	}
	seen := map[int32]int{}
	s.dropHook = func(e event, c int32) bool {
		if e.flag()&flagAck != 0 || e.hop() != 0 {
			return false
		}
		n := seen[e.pkt]
		seen[e.pkt]++
		return drop(e.pkt, n)
	}
	if err := s.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := s.result()
	if err != nil {
		t.Fatal(err)
	}
	res.Records = recs
	return s, res
}

func lineNet(t *testing.T) *topo.Network {
	t.Helper()
	n, err := topo.ParkingLot(topo.ParkingLotSpec{Hops: 1})
	return must(t, n, err)
}

// One packet lost in the middle of a long flow is found by three
// duplicate ACKs and resent once, by fast retransmit, not by a timeout;
// the window is cut once: with alpha 1, ssthresh is half the window at
// the loss, which slow start had opened by one packet per ACK to the
// initial window plus the packets acknowledged before the loss.
func TestTCPFastRetransmit(t *testing.T) {
	cfg := tcpConfig()
	const lost = 50
	flows := []workload.Flow{{ID: 0, Src: 0, Dst: 1, Size: 2000 * cfg.PayloadBytes}}
	s, res := runDrops(t, lineNet(t), flows, cfg, 400_000, func(pkt int32, n int) bool { return pkt == lost && n == 0 })
	if res.Drops != 1 || res.Retransmits != 1 || res.FastRecoveries != 1 || res.Timeouts != 0 || res.Duplicates != 0 {
		t.Fatalf("drops %d, retransmits %d, fast recoveries %d, timeouts %d, duplicates %d; want 1, 1, 1, 0, 0",
			res.Drops, res.Retransmits, res.FastRecoveries, res.Timeouts, res.Duplicates)
	}
	tc := &s.tcp[0]
	if tc.state != tcpOpen {
		t.Fatalf("state %d after the recovery, want open", tc.state)
	}
	mss := float64(cfg.PayloadBytes)
	want := float64(cfg.DCTCP.InitWindow+lost) * mss / 2
	if got := tc.cc.SlowStartThreshold(); got < want*(1-1e-6) || got > want*(1+1e-6) {
		t.Errorf("ssthresh %.1f after one loss, want %.1f (one cut of a %d-packet window)", got, want, cfg.DCTCP.InitWindow+lost)
	}
}

// A short flow's last packet lost has no packets behind it to report it:
// stock TCP waits for the retransmission timeout, which doubles at each
// expiry without progress. The FCT is the timeouts plus about a round
// trip.
func TestTCPTailLossTimeout(t *testing.T) {
	cfg := tcpConfig()
	rto := cfg.DCTCP.MinRTONanos
	const pkts = 5
	flows := []workload.Flow{{ID: 0, Src: 0, Dst: 1, Size: pkts * cfg.PayloadBytes}}
	for _, c := range []struct {
		losses int   // transmissions of the last packet lost
		waits  int64 // timeouts waited, in minimum RTOs: 1, 1+2, 1+2+4
	}{{1, 1}, {2, 3}, {3, 7}} {
		_, res := runDrops(t, lineNet(t), flows, cfg, 0, func(pkt int32, n int) bool { return pkt == pkts-1 && n < c.losses })
		if len(res.Records) != 1 {
			t.Fatalf("%d losses: %d records", c.losses, len(res.Records))
		}
		r := res.Records[0]
		if res.Timeouts != int64(c.losses) || res.FastRecoveries != 0 || res.Retransmits != int64(c.losses) {
			t.Errorf("%d losses: %d timeouts, %d fast recoveries, %d retransmits", c.losses, res.Timeouts, res.FastRecoveries, res.Retransmits)
		}
		if lo, hi := c.waits*rto, c.waits*rto+2*r.Ideal; r.FCT < lo || r.FCT > hi {
			t.Errorf("%d losses: FCT %d ns, want %d..%d (ideal %d)", c.losses, r.FCT, lo, hi, r.Ideal)
		}
	}
}

// Stock TCP's recovery keeps every byte delivered exactly once on a fabric
// with drops, whether hosts hand packets to a FIFO NIC or NICs pull them.
func TestTCPConservation(t *testing.T) {
	net, flows := fabricScenario(t, 3_000)
	for _, fifo := range []bool{false, true} {
		cfg := netcfg.NS3()
		cfg.BufferBytes = 30_000
		res := checkConservation(t, net, flows, cfg, Options{Seed: 1, HostFIFO: fifo})
		if res.Drops == 0 || res.FastRecoveries+res.Timeouts == 0 {
			t.Errorf("host FIFO %v: %d drops, %d fast recoveries, %d timeouts: the test needs losses", fifo, res.Drops, res.FastRecoveries, res.Timeouts)
		}
	}
}
