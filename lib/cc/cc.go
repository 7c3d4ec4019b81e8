package cc

import (
	"fmt"
	"strings"

	"github.com/tailscope/tailscope/lib/netcfg"
)

// Ack is what a flow's sender learns from one ACK. Times are picoseconds,
// sequence numbers are payload bytes.
type Ack struct {
	Now     int64 // arrival time of the ACK, ps
	Acked   int64 // payload bytes newly acknowledged (0 for a duplicate)
	AckSeq  int64 // cumulative payload bytes the receiver holds in order
	NextSeq int64 // payload bytes the sender has sent so far
	ECE     bool  // the data packet it answers was ECN-marked
	RTT     int64 // from that data packet's send to this ACK's arrival, ps
}

// INTReader is implemented by controllers that read in-band telemetry,
// such as HPCC. When netcfg's CC is "hpcc", the simulator calls OnAckINT
// in place of OnAck with the INT records the data packet collected at
// the switch ports it crossed, in path order, echoed by the receiver;
// the slice is valid only during the call. (Kept out of Ack so that
// every other controller's ACK stays as small as it was.)
type INTReader interface {
	OnAckINT(a Ack, hops []INTHop)
}

// INTHop is the telemetry one switch output port writes into a data packet
// (HPCC's INT record).
type INTHop struct {
	QueueBytes int64 // bytes queued ahead of the packet when it reached the port
	TxBytes    int64 // wire bytes the port had sent when the packet left, the packet included
	TimePs     int64 // when the packet left the port
	RateBps    int64 // the port's link rate
}

// BaseRTTSetter is implemented by controllers that need their flow's base
// RTT, such as HPCC's T. The simulator calls SetBaseRTT before the flow's
// first packet with the round trip of one full data packet and its ACK
// over empty queues, in ps.
type BaseRTTSetter interface {
	SetBaseRTT(ps int64)
}

// Clocked is implemented by controllers with timers of their own, such
// as DCQCN's. The simulator calls Advance with the current time before it
// asks the controller for its rate to pace a data packet, and a
// controller also advances to an ACK's time; so timers are evaluated
// lazily, at the next send or ACK after they expire, which keeps a
// sending flow within one packet gap of its timers and costs no events.
type Clocked interface {
	Advance(now int64)
}

// CC is the congestion control of one flow. The event core asks it for a
// pacing rate and a window before every data packet and tells it about
// every ACK and retransmission timeout; it knows nothing else about the
// algorithm, so DCQCN, TIMELY or HPCC can be added as further CCs.
type CC interface {
	// RateBps is the pacing rate in bits per second: the next data
	// packet leaves no sooner than its wire size at this rate after the
	// previous one.
	RateBps() float64
	// WindowBytes caps the unacknowledged payload bytes: a data packet
	// is sent only while fewer are in flight.
	WindowBytes() int64
	// OnAck reacts to one ACK.
	OnAck(a Ack)
	// OnTimeout reacts to a retransmission timeout at time now (ps).
	OnTimeout(now int64)
}

// NewCC builds the controller of one flow whose NIC sends at lineRateBps.
type NewCC func(cfg netcfg.Config, lineRateBps int64) CC

// ByName returns the constructor of a congestion control named in
// netcfg.CCs.
func ByName(name string) (NewCC, error) {
	switch name {
	case "dctcp":
		return NewDCTCPRate, nil
	case "dctcp-window":
		return NewDCTCPWindow, nil
	case "dcqcn":
		return NewDCQCN, nil
	case "timely":
		return NewTIMELY, nil
	case "hpcc":
		return NewHPCC, nil
	}
	return nil, fmt.Errorf("cc: unknown congestion control %q (known: %s)", name, strings.Join(netcfg.CCs, ", "))
}
