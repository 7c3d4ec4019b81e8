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
	// papers' ns-3 fork) or "dctcp-window" (window-based, as ns-3's TcpDctcp).
	CC    string `json:"cc"`
	DCTCP DCTCP  `json:"dctcp"`

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
	// BufferBytes is the per-port buffer; 0 means infinite.
	BufferBytes int64 `json:"buffer_bytes,omitempty"`
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
	}
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

// CCs lists the congestion controls packetsim knows.
var CCs = []string{"dctcp", "dctcp-window"}

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
	}
	for _, k := range CCs {
		if c.CC == k {
			return nil
		}
	}
	return fmt.Errorf("netcfg: unknown congestion control %q (known: %s)", c.CC, strings.Join(CCs, ", "))
}
