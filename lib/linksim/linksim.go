// Package linksim is Parsimon's dedicated link-level simulator (Parsimon
// §4.1: "a custom and minimal simulator optimized for high fidelity single
// link simulation", which "only models the workload, topology, queueing,
// and congestion control"). It runs the flows of one link-level topology
// (Parsimon §3.2, Fig. 4) with the packet model of lib/packetsim, but
// simulates only what that topology can make interesting:
//
//   - every source host's NIC, which paces its flows and serializes them
//     round-robin onto the source's first hop, as packetsim's NICs do;
//   - the target channel's output port, a FIFO that ECN-marks data above
//     K bytes (at dequeue or enqueue, netcfg.Config.ECNMark) and drops
//     beyond a finite buffer exactly as packetsim's switch ports do (when
//     the target leaves a host, the target is that host's NIC and nothing
//     is marked, as in packetsim); a buffer per port only
//     (netcfg.Config.BufferBytes): a shared switch buffer and PFC are
//     refused, since the topology holds one port of each switch and so
//     sees neither the other ports' use of the buffer nor their pauses,
//     and so is window DCTCP with a finite buffer, whose stock-TCP loss
//     recovery only packetsim has (losses here are repaired by go-back-N,
//     the RDMA NICs' recovery of the rate-based algorithms), and so are
//     FIFO host NICs (host_nic "fifo"): the source NICs here serve their
//     flows round-robin;
//   - the downstream hop to each destination as a FIFO of fixed rate plus
//     a fixed delay, computed in closed form when a packet leaves the
//     target: in Parsimon's topology it is inflated, so it never queues
//     enough to mark;
//   - ACKs as a pure delay (serialization plus propagation on each hop
//     back to the sender): in the link-level topology the reverse channels
//     carry only these ACKs, at most as fast as the data they answer, so
//     they hardly queue;
//   - congestion control through lib/cc's CC interface, so every CC
//     packetsim knows runs here with the same controllers, and the
//     network's part of each as packetsim has it: DCQCN's RED-style
//     marking at the target (cc.RED, drawing from Options.Seed)
//     and its receivers' CNPs at most once per interval per flow; HPCC's
//     INT records from the switch ports a packet crosses (the target when
//     sources feed it, with its real queue, bytes sent and times, and the
//     downstream hop as it is modelled; host NICs write none, as in
//     packetsim), echoed in the ACK; the base RTT and the timers
//     (cc.BaseRTTSetter, cc.Clocked).
//
// A data packet thus costs at most three events (its NIC waking to send
// it, its arrival at the target port, its ACK reaching the sender; two
// when the target is the NIC) where the general simulator spends one per
// hop of data and of ACK plus the NICs' own. A sender's uplink under the
// built-in rate-based DCTCP with infinite buffers needs neither the ACKs
// nor the event queue while its flows' windows stay open: nothing marks
// its packets, so no ACK changes a rate (runNIC). Because the hops after the
// target and the ACK path are fixed, the receiver's state is updated when
// a packet leaves the target (a flow's packets stay in order on a FIFO
// path), and the ACK is scheduled at once. Marking at dequeue, a packet
// that had to wait leaves the target only once its mark is known (when
// its transmission has started): the next arrival at the target lets the
// waiting packets go, or, failing one, an event shortly before the first
// one's ACK is due, so that a busy port adds well under one event per
// packet.
//
// Time is kept in integer picoseconds, as in packetsim, and a run is a
// deterministic function of its inputs: events at equal times run in the
// order they were scheduled, flow starts first. A run looks at its
// context every 8192 events (well under a millisecond) and stops when it
// is done.
package linksim

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/tailscope/tailscope/lib/cc"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/workload"
)

// Hop is a channel of the link-level topology at the rate it is simulated
// at.
type Hop struct {
	Bandwidth int64 // bps
	Delay     int64 // propagation delay, ns
}

// Link is a link-level topology: the target channel, the hops that feed it
// and the hops after it.
type Link struct {
	// Target is the channel under study.
	Target Hop
	// KBytes is the ECN marking threshold of the target's port.
	KBytes int64
	// Sources are the first hops of the sending hosts into the target's
	// port, with the propagation delay of every hop up to the target.
	// Empty when the target leaves a host (Parsimon's uplink and
	// host-to-host shapes): the target is then the one sender's NIC.
	Sources []Hop
	// Dests are the hops after the target to each receiving host, with
	// the propagation delay of every hop after the target. Empty when the
	// target enters the receiving host.
	Dests []Hop
}

// Options tune a run beyond the shared network model.
type Options struct {
	// CC overrides the controller of the congestion control named by
	// cfg.CC; the network's part (RED marking, CNPs, INT) still follows
	// cfg.CC. As packetsim's controllers, its window and rate may change
	// only in its OnAck, OnAckINT, OnTimeout, Advance and SetBaseRTT
	// calls: the simulator reads them after each.
	CC cc.NewCC
	// Seed drives the run's random choices: today only DCQCN's RED-style
	// marking.
	Seed uint64

	eventsOnly bool // never runNIC (tests compare the two)
}

// Result is the outcome of a run.
type Result struct {
	// FCT is each flow's completion time in ns, in flow order: from its
	// start to the arrival of its last byte at the receiver.
	FCT []int64
	// Events counts processed events (a run without ACK events, runNIC,
	// counts its NIC's wake-ups).
	Events int64
	// DataPackets counts data packets sent (Retransmits of them sent
	// again after a loss); Marks counts those CE-marked at the target,
	// Drops those dropped at its full buffer.
	DataPackets, Retransmits, Marks, Drops int64
	// DeliveredBytes is the payload received in order, over all flows.
	DeliveredBytes int64
	// TargetBytes is the wire bytes the target channel carried.
	TargetBytes int64
}

// Run simulates flows on l under cfg until every flow has finished. A
// flow's Src indexes l.Sources and its Dst l.Dests (0 when the list is
// empty); flows must be sorted by start and have positive sizes. The run
// looks at ctx every few thousand events and stops with an error wrapping
// ctx.Err() once it is done.
func Run(ctx context.Context, l Link, flows []workload.Flow, cfg netcfg.Config, opts Options) (*Result, error) {
	if err := check(l, flows, cfg); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("linksim: interrupted: %w", err)
	}
	newCC := opts.CC
	if newCC == nil {
		var err error
		if newCC, err = cc.ByName(cfg.CC); err != nil {
			return nil, fmt.Errorf("linksim: %w", err)
		}
	}
	s := newSim(ctx, l, flows, cfg, opts, newCC)
	if s.noAcks {
		err := s.runNIC()
		if err == nil {
			return s.result(), nil
		}
		if !errors.Is(err, errWindowClosed) {
			return nil, err
		}
		opts.eventsOnly = true // a window closed: start over with every event
		s = newSim(ctx, l, flows, cfg, opts, newCC)
	}
	if err := s.run(); err != nil {
		return nil, err
	}
	return s.result(), nil
}

// check reports the first problem with a run's inputs.
func check(l Link, flows []workload.Flow, cfg netcfg.Config) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("linksim: %w", err)
	}
	if err := cfg.CheckResolved(); err != nil {
		// A link sees too little of the network to resolve it.
		return fmt.Errorf("linksim: %w", err)
	}
	if cfg.SharedBuffer() {
		// One port of each switch is all a link-level topology holds.
		return fmt.Errorf("linksim: a shared switch buffer and PFC are not supported: the link-level topology holds one port of each switch, so it sees neither the other ports' use of the buffer nor their pauses (use buffer_bytes, a buffer per port, or packetsim)")
	}
	if err := cfg.RoundRobinNICs("linksim"); err != nil {
		// Its source NICs take packets from their flows in turn, the
		// papers' RDMA NICs; a stock TCP stack's FIFO is not modelled
		// (Parsimon's packetsim backend has it).
		return fmt.Errorf("linksim: %w", err)
	}
	if cfg.DCTCP.WindowBytes <= 0 && cfg.CC == "dctcp" {
		return fmt.Errorf("linksim: dctcp window_bytes must be positive, got %d", cfg.DCTCP.WindowBytes)
	}
	if cfg.BufferBytes > 0 && cfg.CC == "dctcp-window" {
		// packetsim recovers window DCTCP's losses as stock TCP does; this
		// simulator has only the RDMA NICs' go-back-N, so it would answer
		// for another network.
		return fmt.Errorf("linksim: window DCTCP with a finite buffer is not supported: its stock-TCP loss recovery (duplicate ACKs, SACK, PRR) is modelled only in packetsim (use Parsimon's packetsim backend, or buffer_bytes 0)")
	}
	if cfg.BufferBytes > 0 && cfg.DCTCP.MinRTONanos <= 0 {
		return fmt.Errorf("linksim: a finite buffer needs loss recovery: set dctcp min_rto_nanos > 0")
	}
	for _, hs := range []struct {
		what string
		hops []Hop
	}{{"target", []Hop{l.Target}}, {"source", l.Sources}, {"destination", l.Dests}} {
		for i, h := range hs.hops {
			if h.Bandwidth <= 0 || h.Delay < 0 {
				return fmt.Errorf("linksim: %s hop %d has bandwidth %d bps and delay %d ns; want bandwidth > 0 and delay >= 0", hs.what, i, h.Bandwidth, h.Delay)
			}
		}
	}
	if len(l.Sources) > 0 && l.KBytes <= 0 {
		return fmt.Errorf("linksim: target ECN threshold %d bytes; it must be positive", l.KBytes)
	}
	if len(flows) > math.MaxInt32 {
		return fmt.Errorf("linksim: %d flows; at most %d are supported", len(flows), math.MaxInt32)
	}
	nsrc, ndst := max(len(l.Sources), 1), max(len(l.Dests), 1)
	for i, f := range flows {
		switch {
		case f.Size <= 0:
			return fmt.Errorf("linksim: flow %d has size %d bytes; it must be positive", f.ID, f.Size)
		case cfg.Packets(f.Size) > math.MaxInt32:
			return fmt.Errorf("linksim: flow %d has %d packets; at most %d are supported", f.ID, cfg.Packets(f.Size), math.MaxInt32)
		case f.Start < 0 || i > 0 && f.Start < flows[i-1].Start:
			return fmt.Errorf("linksim: flow %d starts at %d ns: flows must start at times >= 0 in order", f.ID, f.Start)
		case f.Start > maxTs/1000:
			return fmt.Errorf("linksim: flow %d starts at %d ns; at most %d ns are supported", f.ID, f.Start, maxTs/1000)
		case f.Src < 0 || f.Src >= nsrc:
			return fmt.Errorf("linksim: flow %d has source %d; the link has sources 0..%d", f.ID, f.Src, nsrc-1)
		case f.Dst < 0 || f.Dst >= ndst:
			return fmt.Errorf("linksim: flow %d has destination %d; the link has destinations 0..%d", f.ID, f.Dst, ndst-1)
		}
	}
	return nil
}
