// Package packetsim is a packet-level discrete-event simulator of a data
// center network running DCTCP, DCQCN, TIMELY or HPCC. It is tailscope's
// full-network baseline,
// the link-level backend of Parsimon and the path-level ground truth of the
// m3-style estimator.
//
// The model follows the papers' ns-3 ground truth (REFERENCE.md): hosts
// with NICs, switches with one FIFO output port per channel,
// store-and-forward with propagation delay, ECN step marking at a
// threshold K per port (by default at dequeue, as the fork: a packet is
// marked when more than K bytes queued behind it as it starts its
// transmission; netcfg.Config.ECNMark), an optional per-port buffer with
// tail drop, data
// packets of PayloadBytes plus HeaderBytes and one AckBytes ACK per data
// packet that travels the reverse path and queues like any packet.
// With netcfg's buffer block each switch has one shared buffer with a
// dynamic threshold instead (tail drop, or PFC: pauses sent upstream hop
// by hop to the hosts' NICs, pause frames and paused time counted per
// channel); its ports then hold their packets, since a paused port's
// departures are not known on arrival, and only such runs pay for it.
// Dropped packets are recovered by go-back-N (the receiver asks for it at
// the first out-of-order packet; a timeout rewinds to the first
// unacknowledged packet), as the RDMA NICs of the papers' fork do; window
// DCTCP, which models stock TCP, recovers them as stock TCP does instead
// (SACK, fast retransmit, proportional rate reduction, a timeout that
// doubles; see tcp.go).
// Congestion control sits behind lib/cc's CC interface. What the other
// algorithms need of the network is added only when netcfg names them:
// for DCQCN, RED-style marking between Kmin and Kmax (random draws from a
// stream per port, seeded from Options.Seed and the port's channel) and a
// receiver that echoes marks as CNPs at most once per interval per flow; for HPCC, an INT record per switch port in every
// data packet, echoed in its ACK (see cc.INTReader); TIMELY uses the ACKs'
// RTTs.
//
// Run simulates a list of flows and returns their records; Stream takes
// flows from a workload.Source as the simulation reaches their start and
// hands each record over once its flow and all before it have finished,
// so that a run of millions of flows holds only those in flight.
//
// Time is kept in integer picoseconds, so that serialization times such as
// 838.4 ns (1048 B at 10 Gbps) are exact, and rounded to nanoseconds only
// in the records. Events at equal times run flow starts first, then by
// the entity that scheduled them (the port, NIC or flow sender, by its
// channel), then in the order that entity scheduled them: an order every
// part of a network can compute alone, so a run split among workers
// (Options.Workers) keeps it. A run is a deterministic function of its
// inputs.
package packetsim

import (
	"context"
	"fmt"

	"github.com/tailscope/tailscope/lib/cc"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Name is the estimator name packetsim records carry.
const Name = "packetsim"

// Options tune a run beyond the shared network model. The fields with
// JSON names are the estimator's options ("tailscope run -options");
// the others are for callers in Go only.
type Options struct {
	// CC overrides the congestion control named by cfg.CC.
	CC cc.NewCC `json:"-"`
	// KBytes overrides the ECN marking threshold of single ports:
	// channel id -> K in bytes.
	KBytes map[int]int64 `json:"-"`
	// StopAtNanos, when positive, ends the run at that time; flows not
	// finished by then are listed in Result.Unfinished.
	StopAtNanos int64 `json:"stop_at_ns,omitempty"`
	// HostFIFO makes every host NIC a FIFO queue, as the network's
	// host_nic "fifo" (netcfg.Config.HostNIC) does, which is where the
	// NIC's discipline belongs: set that instead, so that every estimator
	// sees it (this option, kept for runs that set it before, changes
	// packetsim alone and gives its results another options hash). A FIFO
	// NIC is one queue like a switch port, as
	// in a stock TCP stack (ns-3's TcpSocketBase over a queue disc): a
	// sender hands each packet to the NIC as soon as its window opens,
	// ACKs queue behind data, and the NIC port ECN-marks above K. Without
	// it a NIC sends ACKs first and pulls data from its flows round-robin,
	// as the RDMA NICs of the papers' ns-3 fork do. Pacing (CC.RateBps)
	// needs the pull model and is ignored under HostFIFO, so use it with
	// window-based congestion control.
	HostFIFO bool `json:"host_fifo,omitempty"`
	// SampleEveryNanos, when positive, samples queue length and
	// utilisation of the SampleChannels (all channels if empty) at every
	// multiple of it.
	SampleEveryNanos int64 `json:"-"`
	SampleChannels   []int `json:"-"`
	// Paths, when set, pins the route of every flow: flow i crosses the
	// channels Paths[i] instead of net.Path's. Replicas that reconnect a
	// network's pieces (DSCALE) keep their flows on the intended routes
	// this way.
	Paths [][]int `json:"-"`
	// Seed drives the run's random choices: today only DCQCN's RED-style
	// marking draws random numbers. Runs with equal inputs and seeds are
	// identical. (The estimator takes it from the scenario.)
	Seed uint64 `json:"-"`
	// Workers, above 1, splits the network among that many workers, each
	// simulating its part on a core of its own, in windows of the
	// smallest propagation delay between parts (Partitions; the manual's
	// page on the parallel packetsim has the design): the records are
	// the same for any number of workers. 0 and 1 run the
	// sequential engine. Port sampling is not split: asking for it with
	// Workers above 1 is an error (Models).
	Workers int `json:"workers,omitempty"`
}

// PortSample is the state of one output port at one sampling time.
type PortSample struct {
	TimeNanos   int64
	Channel     int
	QueueBytes  int64   // bytes waiting or in transmission
	Utilisation float64 // share of the channel's capacity sent in the interval ending now
}

// FlowProgress is how far an unfinished flow got.
type FlowProgress struct {
	FlowID    int
	Size      int64
	Delivered int64 // payload bytes received in order
	Acked     int64 // payload bytes acknowledged to the sender
}

// Result is the outcome of a run.
type Result struct {
	// Records holds one record per finished flow, in order of flow index.
	Records []metrics.Record
	// Unfinished lists flows still running at StopAtNanos.
	Unfinished []FlowProgress

	EndNanos int64 // time of the last event processed
	// Events counts processed events. PacketHops counts packets (data
	// and ACK) put on a channel: one per packet per hop, the unit of the
	// simulator's speed.
	Events     int64
	PacketHops int64
	// DataPackets and AckPackets count packets sent by hosts; Retransmits
	// is the part of DataPackets sent again after a loss.
	DataPackets, AckPackets, Retransmits int64
	// Drops counts packets dropped at full buffers, AckDrops the ACKs
	// among them, Marks data packets marked CE, Duplicates data packets
	// that reached the receiver out of order or twice and were discarded.
	Drops, AckDrops, Marks, Duplicates int64
	// Timeouts counts retransmission timeouts that resent data, and
	// FastRecoveries the entries into fast recovery (stock TCP's loss
	// recovery of window DCTCP with finite buffers; the others recover
	// by go-back-N and never enter it).
	Timeouts, FastRecoveries int64
	// DeliveredBytes is the payload received in order, over all flows.
	DeliveredBytes int64
	// ChannelBytes is the wire bytes put on each channel (index: channel
	// id), data and ACKs.
	ChannelBytes []int64
	// Per channel: packets (data and ACKs) put on it, the nanoseconds
	// they waited at its port before their transmission began (switch
	// ports; a NIC pulls packets only when idle, so its wait is 0), and
	// packets dropped at its full buffer. ChannelQueueNanos over
	// ChannelPackets is the mean queueing delay a packet met there.
	ChannelPackets    []int64
	ChannelQueueNanos []float64
	ChannelDrops      []int64
	// PauseFrames and ResumeFrames count the PFC frames switches sent
	// (netcfg.Config.PFC); per channel, ChannelPauses counts the pause
	// frames sent to its transmitter (a switch port or host NIC) and
	// ChannelPausedNanos the time that transmitter was paused.
	// PausedNanos sums the latter over channels.
	PauseFrames, ResumeFrames, PausedNanos int64
	ChannelPauses                          []int64
	ChannelPausedNanos                     []int64
	// PeakFlows is the most flows the run held state for at once: flows
	// in flight and finished flows whose last packets were still
	// travelling. Memory grows with it, not with the number of flows.
	PeakFlows int
	// Samples holds the port samples when Options.SampleEveryNanos is set,
	// in time order, channels ascending within a time.
	Samples []PortSample
	// Parallel holds, for a run of more than one worker, what its speed
	// depends on (nil otherwise). PeakFlows of such a run counts slots
	// freed only between windows and may exceed one worker's.
	Parallel *ParallelStats
}

// Run simulates flows on net under cfg until every flow has finished (or
// until opts.StopAtNanos). Flows follow net.Path (or opts.Paths), must pass workload.Check
// (sorted by start, positive sizes, distinct host endpoints, unique ids)
// and be routable; otherwise Run returns an error naming the flow. Run
// stops with ctx's error soon after ctx is done.
func Run(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, opts Options) (*Result, error) {
	if opts.Paths != nil && len(opts.Paths) != len(flows) {
		return nil, fmt.Errorf("packetsim: %d pinned paths for %d flows", len(opts.Paths), len(flows))
	}
	recs := make([]metrics.Record, 0, len(flows))
	res, err := Stream(ctx, net, workload.SliceSource(flows), cfg, opts, func(r metrics.Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Records = recs
	return res, nil
}

// Stream is Run for workloads too large to hold: it takes the flows from
// src as the simulation reaches their start, keeps state only for flows
// in flight, and hands the records to emit in flow order (Run's order) as
// soon as a flow and all flows before it have finished, so memory grows
// with the flows in flight and the network, not with the run. The result
// has no Records; a run gives the same records as Run on the same flows.
// opts.Paths, when set, must pin a path for every flow src yields.
//
// Stream stops with ctx's error soon after ctx is done: the check rides on
// the records, a non-blocking receive of nanoseconds against microseconds
// of simulation per record, so the event loop stays as it is.
func Stream(ctx context.Context, net *topo.Network, src workload.Source, cfg netcfg.Config, opts Options, emit func(metrics.Record) error) (*Result, error) {
	if net == nil {
		return nil, fmt.Errorf("packetsim: nil network")
	}
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("packetsim: %w", err)
	}
	cfg = cfg.Resolve(net.MaxHostDelay) // the whole network is here
	if cfg.DCTCP.WindowBytes <= 0 && cfg.CC == "dctcp" {
		return nil, fmt.Errorf("packetsim: dctcp window_bytes must be positive, got %d", cfg.DCTCP.WindowBytes)
	}
	newCC := opts.CC
	if newCC == nil {
		var err error
		if newCC, err = cc.ByName(cfg.CC); err != nil {
			return nil, err
		}
	}
	for c, k := range opts.KBytes {
		if c < 0 || c >= len(net.Channels) {
			return nil, fmt.Errorf("packetsim: KBytes names channel %d; the network has channels 0..%d", c, len(net.Channels)-1)
		}
		if k <= 0 {
			return nil, fmt.Errorf("packetsim: KBytes for channel %d is %d; it must be positive", c, k)
		}
	}
	for _, c := range opts.SampleChannels {
		if c < 0 || c >= len(net.Channels) {
			return nil, fmt.Errorf("packetsim: SampleChannels names channel %d; the network has channels 0..%d", c, len(net.Channels)-1)
		}
	}
	if opts.StopAtNanos < 0 || opts.SampleEveryNanos < 0 {
		return nil, fmt.Errorf("packetsim: StopAtNanos and SampleEveryNanos must be >= 0, got %d and %d", opts.StopAtNanos, opts.SampleEveryNanos)
	}
	if err := checkWorkers(cfg, opts); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := newSim(net, src, cfg, opts, newCC, func(r metrics.Record) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		default:
			return emit(r)
		}
	})
	if err != nil {
		return nil, err
	}
	run := s.run
	if opts.Workers > 1 {
		run = s.runParallel
	}
	if err := run(ctx); err != nil {
		return nil, err
	}
	return s.result()
}
