// Package netcfg holds the network model shared by every estimator and by
// the ns-3 scenario generator: packet and header sizes, the congestion
// control and its parameters, ECN marking thresholds and buffer sizes.
// Defining it once keeps packetsim, ns-3, Parsimon and m3 like for like.
package netcfg

import (
	"fmt"
	"strings"
)

// Config is the network model. The zero value is not useful: start from
// Default and change what you need.
type Config struct {
	PayloadBytes int64 `json:"payload_bytes"` // per data packet (MTU payload), 1000
	HeaderBytes  int64 `json:"header_bytes"`  // per data packet, 48
	AckBytes     int64 `json:"ack_bytes"`     // per ACK, 60; every data packet is ACKed

	// CC names the congestion control: "dctcp" (rate-based, as in the
	// papers' ns-3 fork), "dctcp-window" (window-based, as ns-3's
	// TcpDctcp), "dcqcn", "timely" or "hpcc". Only the parameters of the
	// chosen one are used.
	CC     string `json:"cc"`
	DCTCP  DCTCP  `json:"dctcp"`
	DCQCN  DCQCN  `json:"dcqcn"`
	TIMELY TIMELY `json:"timely"`
	HPCC   HPCC   `json:"hpcc"`

	// KBytesPerGbps sets each port's ECN marking threshold from its rate
	// (3 KB per Gbps: 30 KB at 10G, 120 KB at 40G) unless KBytes is set.
	KBytesPerGbps float64 `json:"k_bytes_per_gbps"`
	// KBytes, when positive, is one marking threshold for every port.
	KBytes int64 `json:"k_bytes,omitempty"`
	// ECNMark is where a switch port compares its queue with K:
	// "dequeue" (the default, as the papers' ns-3 fork: the bytes queued
	// behind a packet as it starts its transmission) or "enqueue" (as
	// stock ns-3's RED queue disc: the bytes ahead of it as it arrives).
	// Marking at dequeue tells the sender about the queue a whole
	// queueing delay sooner.
	ECNMark string `json:"ecn_mark"`
	// BufferBytes is a buffer of its own for every port, with tail drop;
	// 0 means infinite. It and Buffer.SharedBytes are exclusive.
	BufferBytes int64 `json:"buffer_bytes,omitempty"`
	// Buffer is a buffer shared by the ports of each switch; off (infinite)
	// unless SharedBytes is set.
	Buffer Buffer `json:"buffer"`
	// PFC is priority flow control over the shared buffer; off by default.
	PFC PFC `json:"pfc"`
	// HostNIC is the queueing discipline of every host's NIC: "" or
	// "round-robin" (the default), the papers' RDMA NICs, which send
	// ACKs first and take data packets from their active flows in turn
	// as the line frees; or "fifo", a stock TCP stack's NIC (as stock
	// ns-3's), one queue in which every packet a window lets out, data
	// and ACKs alike, waits in order of arrival and is ECN-marked above
	// K like a switch port's. Under "fifo" a flow cannot be paced at a
	// rate (only window-based congestion control, "dctcp-window",
	// works as meant). The JSON leaves out the default, so spelling it
	// out names the same network.
	HostNIC string `json:"host_nic,omitempty"`
}

// Host NIC disciplines (Config.HostNIC).
const (
	HostNICRoundRobin = "round-robin"
	HostNICFIFO       = "fifo"
)

// HostNICs lists the disciplines Config.HostNIC may name.
var HostNICs = []string{HostNICRoundRobin, HostNICFIFO}

// HostFIFO reports whether host NICs are FIFO queues (HostNIC "fifo").
func (c Config) HostFIFO() bool { return c.HostNIC == HostNICFIFO }

// RoundRobinNICs returns nil if c's host NICs are round-robin, else an
// error saying that model (an estimator's name) models only those: the
// check of every estimator that has no FIFO host NIC.
func (c Config) RoundRobinNICs(model string) error {
	if c.HostFIFO() {
		return fmt.Errorf("%s models round-robin host NICs (the papers' RDMA NICs), not host_nic %q (a stock TCP stack's): use packetsim, or leave host_nic out", model, c.HostNIC)
	}
	return nil
}

// Buffer is a switch's shared packet memory, as the dynamic-threshold
// MMUs of data-center switches (and the papers' ns-3 fork's SwitchMmu)
// manage it: every packet waiting in a switch takes its bytes from one
// pool of SharedBytes, and a queue may hold at most Alpha times the pool's
// free bytes. Without PFC the queue is the egress port's and a packet
// over the threshold (or the pool) is dropped; with PFC it is the
// ingress port's and the threshold is where the port pauses its sender.
type Buffer struct {
	// SharedBytes is each switch's buffer; 0 means infinite. m3's Table 4
	// varies it over 200-500 KB.
	SharedBytes int64 `json:"shared_bytes"`
	// Alpha scales the dynamic threshold, 1 (the fork's default).
	Alpha float64 `json:"alpha"`
}

// PFC is priority flow control (IEEE 802.1Qbb) with one priority, as the
// papers' ns-3 fork runs it for lossless traffic: when the bytes that
// entered a switch through one ingress port exceed the dynamic threshold
// (Buffer.Alpha times the free shared buffer) the switch sends its
// upstream neighbour a pause frame; what arrives until the pause takes
// effect goes to the port's headroom, reserved out of the shared buffer.
// The port resumes its sender once the headroom is empty and its bytes are
// below XonBytes or XonOffsetBytes below the threshold. A paused sender
// (switch port or host NIC) finishes the frame on the wire and sends
// nothing more until resumed, so pauses spread hop by hop to the hosts.
// It needs Buffer.SharedBytes.
type PFC struct {
	Enabled bool `json:"enabled"`
	// HeadroomBytes is each ingress port's headroom; 0 sizes it as the
	// fork does: two full packets, 3860 B and twice the link's
	// bandwidth-delay product.
	HeadroomBytes  int64 `json:"headroom_bytes"`
	XonBytes       int64 `json:"xon_bytes"`        // resume below this many ingress bytes, 1248 (the fork's)
	XonOffsetBytes int64 `json:"xon_offset_bytes"` // or this far below the threshold, 2496 (the fork's)
}

// DCTCP holds the parameters of DCTCP as run by the papers' ns-3 fork
// (REFERENCE.md, "Units and constants").
type DCTCP struct {
	G           float64 `json:"g"`             // alpha EWMA gain, 1/16
	InitAlpha   float64 `json:"init_alpha"`    // 1
	WindowBytes int64   `json:"window_bytes"`  // window cap, 18000 (10 Gbps x 14.4 us)
	AIRateBps   int64   `json:"ai_rate_bps"`   // additive increase per RTT, 615 Mbps
	MinRateBps  int64   `json:"min_rate_bps"`  // 1 Gbps
	InitWindow  int64   `json:"init_window"`   // window-based mode: initial window in packets, 10
	MinRTONanos int64   `json:"min_rto_nanos"` // window-based mode: minimum RTO, 1 ms
	// VarWin scales the rate-based mode's window with its rate:
	// WindowBytes x rate / line rate, as the fork's VAR_WIN 1, which its
	// own DCTCP experiments ran (HAS_WIN 1, VAR_WIN 1). False keeps the
	// window at WindowBytes whatever the rate (VAR_WIN 0).
	VarWin bool `json:"var_win"`
}

// DCQCN holds the parameters of DCQCN (Zhu et al., SIGCOMM'15): RED-style
// ECN marking at every switch port between KminBytes and KmaxBytes with
// probability up to Pmax, congestion notification packets (CNPs) from the
// receiver at most once per CNPIntervalNanos per flow, and the sender's
// reaction point. The defaults are the paper's (its Table 1 and §5),
// except R_HAI, which the paper leaves open: 100 Mbps as in the HPCC ns-3
// fork's configuration. m3's Table 4 varies (Kmin, Kmax) over (20-50 KB,
// 50-100 KB).
//
// DecreaseGrid and TimerOnly, off by default, run the reaction and
// notification points as the HPCC ns-3 fork (the Parsimon and m3 papers'
// ground truth) does where its Mellanox-style DCQCN departs from the
// paper.
type DCQCN struct {
	KminBytes         int64   `json:"kmin_bytes"`          // marking starts above this queue, 5 KB
	KmaxBytes         int64   `json:"kmax_bytes"`          // every packet is marked above this queue, 200 KB
	Pmax              float64 `json:"pmax"`                // marking probability at Kmax, 0.01
	G                 float64 `json:"g"`                   // alpha EWMA gain, 1/256
	CNPIntervalNanos  int64   `json:"cnp_interval_nanos"`  // receiver: at most one CNP per flow per interval, 50 us
	AlphaTimerNanos   int64   `json:"alpha_timer_nanos"`   // alpha decays once per interval without a CNP, 55 us
	RateTimerNanos    int64   `json:"rate_timer_nanos"`    // rate increase timer T, 55 us
	ByteCounterBytes  int64   `json:"byte_counter_bytes"`  // rate increase byte counter B, 10 MB
	FastRecoverySteps int64   `json:"fast_recovery_steps"` // F, 5
	AIRateBps         int64   `json:"ai_rate_bps"`         // additive increase R_AI, 40 Mbps
	HAIRateBps        int64   `json:"hai_rate_bps"`        // hyper increase R_HAI, 100 Mbps
	MinRateBps        int64   `json:"min_rate_bps"`        // rate floor, 100 Mbps
	// WindowBytes caps the bytes in flight; 0 (the paper's DCQCN, purely
	// rate-based) means no cap. m3's Table 4 varies it over 5-30 KB.
	WindowBytes int64 `json:"window_bytes"`
	// DecreaseGrid moves the CNP interval from the receiver to the
	// sender: the receiver echoes every mark, and the sender cuts its
	// rate at most once per CNPIntervalNanos, on a grid started by its
	// first CNP, at each tick where a CNP came since the last (the
	// fork's RATE_DECREASE_INTERVAL). The first CNP starts the grid and
	// the alpha timer and does not count for alpha; the cut it asks for
	// comes at the first tick, one interval later.
	DecreaseGrid bool `json:"decrease_grid,omitempty"`
	// TimerOnly counts increase events by the rate timer alone (no byte
	// counter): F fast-recovery events, one additive increase, then
	// R_HAI per event (not i R_HAI), as the fork.
	TimerOnly bool `json:"timer_only,omitempty"`
}

// ReceiverCNPGapNanos is the least time between two CNPs the receiver
// echoes for one flow: CNPIntervalNanos, or 0 (every mark) when the
// sender paces its cuts instead (DecreaseGrid).
func (d DCQCN) ReceiverCNPGapNanos() int64 {
	if d.DecreaseGrid {
		return 0
	}
	return d.CNPIntervalNanos
}

// TIMELY holds the parameters of TIMELY (Mittal et al., SIGCOMM'15): one
// RTT sample per completion event of SegmentBytes, an EWMA of RTT
// differences normalised by MinRTTNanos as the gradient, additive
// increase below TLowNanos or at a non-positive gradient (HAISteps
// increases in a row switch to N times the step), and multiplicative
// decrease by Beta above THighNanos or at a positive gradient. The
// defaults are the paper's; m3's Table 4 varies (Tlow, Thigh) over
// (40-60 us, 100-150 us). PerRTT, off by default, runs the HPCC ns-3
// fork's update rule (the Parsimon and m3 papers' ground truth), which
// departs from the paper's.
type TIMELY struct {
	TLowNanos    int64   `json:"tlow_nanos"`    // 50 us
	THighNanos   int64   `json:"thigh_nanos"`   // 500 us
	MinRTTNanos  int64   `json:"min_rtt_nanos"` // gradient normaliser, 20 us
	Alpha        float64 `json:"alpha"`         // EWMA weight of a new RTT difference, 0.875
	Beta         float64 `json:"beta"`          // multiplicative decrease factor, 0.8
	AIRateBps    int64   `json:"ai_rate_bps"`   // additive increase delta, 10 Mbps
	HAISteps     int64   `json:"hai_steps"`     // N: increases in a row before hyperactive increase N*delta, 5
	SegmentBytes int64   `json:"segment_bytes"` // bytes per completion event (one RTT sample), 16 KB
	MinRateBps   int64   `json:"min_rate_bps"`  // rate floor, 100 Mbps
	WindowBytes  int64   `json:"window_bytes"`  // cap on bytes in flight; 0 (the paper) means none
	// PerRTT takes one RTT sample per round trip, at the first ACK beyond
	// the data sent at the last sample, instead of one per SegmentBytes,
	// and counts every increase, below TLow too, towards hyperactive
	// increase, which then adds N delta from the (N+1)-th increase in a
	// row on: the HPCC ns-3 fork's TIMELY.
	PerRTT bool `json:"per_rtt,omitempty"`
}

// HPCC holds the parameters of HPCC (Li et al., SIGCOMM'19): every switch
// port stamps each data packet with an INT record (queue length, bytes
// sent, time, link rate), the receiver echoes it in the ACK, and the
// sender estimates each hop's normalised inflight bytes, aims at
// utilisation Eta, and adds W_AI = AIRateBps x T, multiplicatively
// correcting at most every MaxStage additive steps. T is the flow's base
// RTT. The defaults are the paper's eta and maxStage and the HPCC ns-3
// fork's configured rate AI (RATE_AI 50 Mb/s); m3's Table 4 varies (eta,
// rate AI) over (0.70-0.95, 500-1000 Mbps).
//
// BaseRTTNanos and QueueOverWindow, off by default, run HPCC as the HPCC
// ns-3 fork (the Parsimon and m3 papers' ground truth) does where it
// departs from the paper: one T for every flow, which the fork takes as
// twice the largest host-to-host propagation delay of the network, and
// queues normalised by the window instead of B x T.
type HPCC struct {
	Eta        float64 `json:"eta"`          // target utilisation, 0.95
	MaxStage   int64   `json:"max_stage"`    // additive steps before a multiplicative one, 5
	AIRateBps  int64   `json:"ai_rate_bps"`  // W_AI as a rate, 50 Mbps
	MinRateBps int64   `json:"min_rate_bps"` // rate floor, 100 Mbps
	// WindowBytes is the window at line rate; the window scales with the
	// rate, W = WindowBytes x R / line rate. 0 (the paper) means one
	// bandwidth-delay product: line rate x base RTT. m3's Table 4 varies
	// it over 5-30 KB.
	WindowBytes int64 `json:"window_bytes"`
	// BaseRTTNanos, if positive, is T for every flow (the smoothing of U
	// and, with WindowBytes 0, the window B T) instead of each flow's
	// own base RTT. NetworkBaseRTT (-1) asks for the fork's T, twice the
	// largest host-to-host propagation delay of the network, which
	// Resolve computes where the network is known.
	BaseRTTNanos int64 `json:"base_rtt_nanos,omitempty"`
	// QueueOverWindow normalises a hop's queue by the window at line rate
	// scaled to the hop's rate, qlen x line rate / (B x W), instead of by
	// the hop's bandwidth-delay product B x T: the same when W = line
	// rate x T, the fork's when T is set apart from the window.
	QueueOverWindow bool `json:"queue_over_window,omitempty"`
}

// Default returns the constants of Parsimon's and m3's evaluations.
func Default() Config {
	return Config{
		PayloadBytes:  1000,
		HeaderBytes:   48,
		AckBytes:      60,
		CC:            "dctcp",
		KBytesPerGbps: 3000,
		ECNMark:       "dequeue",
		DCTCP: DCTCP{
			G:           1.0 / 16,
			InitAlpha:   1,
			WindowBytes: 18000,
			AIRateBps:   615_000_000,
			MinRateBps:  1_000_000_000,
			InitWindow:  10,
			MinRTONanos: 1_000_000,
			VarWin:      true,
		},
		Buffer: Buffer{Alpha: 1},
		PFC:    PFC{XonBytes: 1248, XonOffsetBytes: 2496},
		DCQCN: DCQCN{
			KminBytes:         5_000,
			KmaxBytes:         200_000,
			Pmax:              0.01,
			G:                 1.0 / 256,
			CNPIntervalNanos:  50_000,
			AlphaTimerNanos:   55_000,
			RateTimerNanos:    55_000,
			ByteCounterBytes:  10_000_000,
			FastRecoverySteps: 5,
			AIRateBps:         40_000_000,
			HAIRateBps:        100_000_000,
			MinRateBps:        100_000_000,
		},
		TIMELY: TIMELY{
			TLowNanos:    50_000,
			THighNanos:   500_000,
			MinRTTNanos:  20_000,
			Alpha:        0.875,
			Beta:         0.8,
			AIRateBps:    10_000_000,
			HAISteps:     5,
			SegmentBytes: 16_000,
			MinRateBps:   100_000_000,
		},
		HPCC: HPCC{
			Eta:        0.95,
			MaxStage:   5,
			AIRateBps:  50_000_000,
			MinRateBps: 100_000_000,
		},
	}
}

// NetworkBaseRTT, as HPCC's BaseRTTNanos, stands for the HPCC ns-3
// fork's T: twice the largest propagation delay of a route between two
// hosts of the network a run is on (the fork's maxRtt).
const NetworkBaseRTT = -1

// Resolve returns c with the values that stand for a property of the
// network made concrete: HPCC's NetworkBaseRTT becomes twice
// maxHostDelay(), the largest propagation delay (ns) of a route between
// two hosts, which is called only then. Scenarios resolve their network
// block when they build the network; so do simulators handed a whole
// network.
func (c Config) Resolve(maxHostDelay func() int64) Config {
	if c.HPCC.BaseRTTNanos == NetworkBaseRTT {
		c.HPCC.BaseRTTNanos = 2 * maxHostDelay()
	}
	return c
}

// CheckResolved reports a value of c.CC's block that stands for a
// property of the network (Resolve), for simulators that see only part
// of it.
func (c Config) CheckResolved() error {
	if c.CC == "hpcc" && c.HPCC.BaseRTTNanos == NetworkBaseRTT {
		return fmt.Errorf("netcfg: hpcc base_rtt_nanos %d (the network's, as the fork) must be resolved against the whole network first (Config.Resolve; scenarios do it when they build the network)", NetworkBaseRTT)
	}
	return nil
}

// KBytesFor returns the ECN marking threshold of a port of the given rate.
func (c Config) KBytesFor(bandwidthBps int64) int64 {
	if c.KBytes > 0 {
		return c.KBytes
	}
	return int64(c.KBytesPerGbps * float64(bandwidthBps) / 1e9)
}

// Packets returns the number of data packets of a flow of size bytes.
func (c Config) Packets(size int64) int64 {
	return (size + c.PayloadBytes - 1) / c.PayloadBytes
}

// WireBytes returns the bytes a flow of size bytes puts on each link it
// crosses, headers included (ACKs excluded).
func (c Config) WireBytes(size int64) int64 {
	return size + c.Packets(size)*c.HeaderBytes
}

// WindowCapBytes is the most payload a flow of c.CC may have unacknowledged
// at line rate, the window its block sets, or 0 where none caps it:
// window-based DCTCP grows its window without a bound, DCQCN and TIMELY
// without a window send at their rate alone, and HPCC's 0 is one
// bandwidth-delay product, which never holds a flow below line rate. A
// flow can send at most this much per round trip.
func (c Config) WindowCapBytes() int64 {
	switch c.CC {
	case "dctcp":
		return c.DCTCP.WindowBytes
	case "dcqcn":
		return c.DCQCN.WindowBytes
	case "timely":
		return c.TIMELY.WindowBytes
	case "hpcc":
		return c.HPCC.WindowBytes
	}
	return 0
}

// CCs lists the congestion controls packetsim knows.
var CCs = []string{"dctcp", "dctcp-window", "dcqcn", "timely", "hpcc"}

// ECNMarks lists the marking points Config.ECNMark may name.
var ECNMarks = []string{"dequeue", "enqueue"}

// MarkAtDequeue reports whether ports mark ECN at dequeue.
func (c Config) MarkAtDequeue() bool { return c.ECNMark == "dequeue" }

// Validate reports the first impossible setting.
func (c Config) Validate() error {
	switch {
	case c.PayloadBytes <= 0:
		return fmt.Errorf("netcfg: payload_bytes must be positive, got %d", c.PayloadBytes)
	case c.HeaderBytes < 0 || c.AckBytes <= 0:
		return fmt.Errorf("netcfg: header_bytes must be >= 0 and ack_bytes > 0, got %d and %d", c.HeaderBytes, c.AckBytes)
	case c.KBytes <= 0 && c.KBytesPerGbps <= 0:
		return fmt.Errorf("netcfg: set k_bytes or k_bytes_per_gbps to a positive value")
	case c.BufferBytes < 0:
		return fmt.Errorf("netcfg: buffer_bytes must be >= 0 (0 = infinite), got %d", c.BufferBytes)
	case c.DCTCP.G <= 0 || c.DCTCP.G > 1:
		return fmt.Errorf("netcfg: dctcp g must be in (0,1], got %g", c.DCTCP.G)
	case c.ECNMark != "dequeue" && c.ECNMark != "enqueue":
		return fmt.Errorf("netcfg: unknown ecn_mark %q (known: %s)", c.ECNMark, strings.Join(ECNMarks, ", "))
	case c.HostNIC != "" && c.HostNIC != HostNICRoundRobin && c.HostNIC != HostNICFIFO:
		return fmt.Errorf("netcfg: unknown host_nic %q (known: %s)", c.HostNIC, strings.Join(HostNICs, ", "))
	}
	if err := c.validateBuffers(); err != nil {
		return err
	}
	switch c.CC {
	case "dctcp", "dctcp-window":
		return nil
	case "dcqcn":
		return c.DCQCN.validate()
	case "timely":
		return c.TIMELY.validate()
	case "hpcc":
		return c.HPCC.validate()
	}
	return fmt.Errorf("netcfg: unknown congestion control %q (known: %s)", c.CC, strings.Join(CCs, ", "))
}

// SharedBuffer reports whether switches have a finite shared buffer.
func (c Config) SharedBuffer() bool { return c.Buffer.SharedBytes > 0 }

// BufferKind names c's switch buffers: "infinite", "per-port"
// (BufferBytes), "shared", or "shared+pfc" (lossless).
func (c Config) BufferKind() string {
	switch {
	case c.BufferBytes > 0:
		return "per-port"
	case c.SharedBuffer() && c.PFC.Enabled:
		return "shared+pfc"
	case c.SharedBuffer():
		return "shared"
	}
	return "infinite"
}

// Lossy reports whether switches drop packets when their buffer is full:
// a per-port buffer, or a shared one without PFC.
func (c Config) Lossy() bool { return c.BufferBytes > 0 || c.SharedBuffer() && !c.PFC.Enabled }

// HeadroomFor returns the PFC headroom of an ingress port of the given
// rate and propagation delay: PFC.HeadroomBytes if set, else the fork's
// size, 2 full packets + 3860 B + 2 x bandwidth x delay.
func (c Config) HeadroomFor(bandwidthBps, delayNanos int64) int64 {
	if c.PFC.HeadroomBytes > 0 {
		return c.PFC.HeadroomBytes
	}
	return 2*(c.PayloadBytes+c.HeaderBytes) + 3860 + 2*bandwidthBps*delayNanos/8e9
}

func (c Config) validateBuffers() error {
	b, p := c.Buffer, c.PFC
	switch {
	case b.SharedBytes < 0:
		return fmt.Errorf("netcfg: buffer shared_bytes must be >= 0 (0 = infinite), got %d", b.SharedBytes)
	case b.SharedBytes > 0 && c.BufferBytes > 0:
		return fmt.Errorf("netcfg: buffer_bytes (a buffer per port) and buffer shared_bytes (one per switch) are exclusive, got %d and %d", c.BufferBytes, b.SharedBytes)
	case b.SharedBytes > 0 && !(b.Alpha > 0):
		return fmt.Errorf("netcfg: buffer alpha must be positive, got %g", b.Alpha)
	case p.Enabled && b.SharedBytes == 0:
		return fmt.Errorf("netcfg: pfc needs a finite switch buffer: set buffer shared_bytes")
	case p.HeadroomBytes < 0 || p.XonBytes < 0 || p.XonOffsetBytes < 0:
		return fmt.Errorf("netcfg: pfc headroom_bytes, xon_bytes and xon_offset_bytes must be >= 0, got %d, %d and %d", p.HeadroomBytes, p.XonBytes, p.XonOffsetBytes)
	}
	return nil
}

// positive reports the first of the named values that is not positive.
func positive(algo string, vals ...any) error {
	for i := 0; i < len(vals); i += 2 {
		ok := true
		switch v := vals[i+1].(type) {
		case int64:
			ok = v > 0
		case float64:
			ok = v > 0
		}
		if !ok {
			return fmt.Errorf("netcfg: %s %s must be positive, got %v", algo, vals[i], vals[i+1])
		}
	}
	return nil
}

func (d DCQCN) validate() error {
	if err := positive("dcqcn", "kmax_bytes", d.KmaxBytes, "g", d.G, "cnp_interval_nanos", d.CNPIntervalNanos,
		"alpha_timer_nanos", d.AlphaTimerNanos, "rate_timer_nanos", d.RateTimerNanos, "byte_counter_bytes", d.ByteCounterBytes,
		"ai_rate_bps", d.AIRateBps, "hai_rate_bps", d.HAIRateBps, "min_rate_bps", d.MinRateBps); err != nil {
		return err
	}
	switch {
	case d.KminBytes < 0 || d.KminBytes > d.KmaxBytes:
		return fmt.Errorf("netcfg: dcqcn kmin_bytes must be in [0, kmax_bytes = %d], got %d", d.KmaxBytes, d.KminBytes)
	case d.Pmax <= 0 || d.Pmax > 1:
		return fmt.Errorf("netcfg: dcqcn pmax must be in (0,1], got %g", d.Pmax)
	case d.G > 1:
		return fmt.Errorf("netcfg: dcqcn g must be in (0,1], got %g", d.G)
	case d.FastRecoverySteps < 0:
		return fmt.Errorf("netcfg: dcqcn fast_recovery_steps must be >= 0, got %d", d.FastRecoverySteps)
	case d.WindowBytes < 0:
		return fmt.Errorf("netcfg: dcqcn window_bytes must be >= 0 (0 = no window), got %d", d.WindowBytes)
	}
	return nil
}

func (t TIMELY) validate() error {
	if err := positive("timely", "tlow_nanos", t.TLowNanos, "min_rtt_nanos", t.MinRTTNanos, "alpha", t.Alpha, "beta", t.Beta,
		"ai_rate_bps", t.AIRateBps, "hai_steps", t.HAISteps, "segment_bytes", t.SegmentBytes, "min_rate_bps", t.MinRateBps); err != nil {
		return err
	}
	switch {
	case t.THighNanos <= t.TLowNanos:
		return fmt.Errorf("netcfg: timely thigh_nanos must exceed tlow_nanos = %d, got %d", t.TLowNanos, t.THighNanos)
	case t.Alpha > 1:
		return fmt.Errorf("netcfg: timely alpha must be in (0,1], got %g", t.Alpha)
	case t.Beta > 1:
		return fmt.Errorf("netcfg: timely beta must be in (0,1], got %g", t.Beta)
	case t.WindowBytes < 0:
		return fmt.Errorf("netcfg: timely window_bytes must be >= 0 (0 = no window), got %d", t.WindowBytes)
	}
	return nil
}

func (h HPCC) validate() error {
	if err := positive("hpcc", "ai_rate_bps", h.AIRateBps, "min_rate_bps", h.MinRateBps); err != nil {
		return err
	}
	switch {
	case h.Eta <= 0 || h.Eta > 1:
		return fmt.Errorf("netcfg: hpcc eta must be in (0,1], got %g", h.Eta)
	case h.MaxStage < 0:
		return fmt.Errorf("netcfg: hpcc max_stage must be >= 0, got %d", h.MaxStage)
	case h.WindowBytes < 0:
		return fmt.Errorf("netcfg: hpcc window_bytes must be >= 0 (0 = one bandwidth-delay product), got %d", h.WindowBytes)
	case h.BaseRTTNanos < NetworkBaseRTT:
		return fmt.Errorf("netcfg: hpcc base_rtt_nanos must be >= 0 (0 = each flow's base RTT) or %d (the network's, as the fork), got %d", NetworkBaseRTT, h.BaseRTTNanos)
	}
	return nil
}
