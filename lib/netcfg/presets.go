package netcfg

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// NS3 is the network model of stock ns-3 (3.37) as tailscope's ns-3
// baseline runs it: Default with the header and ACK sizes ns-3's packets
// have on the wire (20 B IPv4, 32 B TCP with timestamps, 2 B PPP),
// window-based DCTCP, as ns-3's TcpDctcp, marked at enqueue, as ns-3's
// RED queue disc marks, and FIFO host NICs, as a stock TCP stack sends.
func NS3() Config {
	cfg := Default()
	cfg.HeaderBytes, cfg.AckBytes, cfg.CC = 54, 54, "dctcp-window"
	cfg.ECNMark = "enqueue"
	cfg.HostNIC = HostNICFIFO
	return cfg
}

// withCC is Default running the named congestion control at its defaults.
func withCC(cc string) func() Config {
	return func() Config {
		c := Default()
		c.CC = cc
		return c
	}
}

// forkINTBytes is the size of the HPCC ns-3 fork's INT header under each
// congestion control, which its data packets and ACKs carry: HPCC's 5
// hop records of 8 B and a 2 B hop count, TIMELY's 8 B timestamp,
// nothing under DCTCP and DCQCN.
var forkINTBytes = map[string]int64{"hpcc": 42, "timely": 8}

// forkAckBytes is a fork ACK's size before its padding to 60 B and
// without INT: 14 B of framing, 20 B IPv4 and a 12 B qbb header.
const forkAckBytes = 46

// ForkWire returns c with the header and ACK sizes the HPCC ns-3 fork
// (the Parsimon and m3 papers' ground truth) puts on the wire under
// c.CC: its INT header rides on every data packet and ACK (42 B under
// HPCC, 8 B under TIMELY), and its ACKs are padded to 60 B.
func (c Config) ForkWire() Config {
	c.HeaderBytes += forkINTBytes[c.CC]
	c.AckBytes = max(c.AckBytes, forkAckBytes+forkINTBytes[c.CC])
	return c
}

// fork is the HPCC ns-3 fork's model of congestion control cc, as
// tools/forkcmp compares it with packetsim: Default running cc under the
// fork's rules (WithForkRules) on the fork's wire (ForkWire), and HPCC's
// window the papers' FIXED_WIN of 18 KB, DCTCP's window. DCTCP is
// Default: the fork's DCTCP mode with VAR_WIN 1.
func fork(cc string) func() Config {
	return func() Config {
		c := Default()
		c.CC = cc
		if cc == "hpcc" {
			c.HPCC.WindowBytes = c.DCTCP.WindowBytes
		}
		return c.WithForkRules().ForkWire()
	}
}

// WithForkRules returns c with the HPCC ns-3 fork's departures from the
// algorithms' papers for c.CC: DCQCN's DecreaseGrid and TimerOnly,
// TIMELY's PerRTT, HPCC's network-wide T and QueueOverWindow. Other CCs
// have none (HasForkRules).
func (c Config) WithForkRules() Config {
	switch c.CC {
	case "dcqcn":
		c.DCQCN.DecreaseGrid, c.DCQCN.TimerOnly = true, true
	case "timely":
		c.TIMELY.PerRTT = true
	case "hpcc":
		c.HPCC.BaseRTTNanos, c.HPCC.QueueOverWindow = NetworkBaseRTT, true
	}
	return c
}

// HasForkRules reports whether the HPCC ns-3 fork runs congestion control
// cc under rules of its own (WithForkRules): DCQCN, TIMELY and HPCC.
func HasForkRules(cc string) bool {
	return cc == "dcqcn" || cc == "timely" || cc == "hpcc"
}

// ForkRules reports whether c runs its congestion control under any of
// the HPCC ns-3 fork's rules that depart from the algorithm's paper (the
// options the fork-* presets turn on): a model of the network trained
// without them has not seen such a network.
func (c Config) ForkRules() bool {
	return c.DCQCN.DecreaseGrid || c.DCQCN.TimerOnly || c.TIMELY.PerRTT ||
		c.HPCC.BaseRTTNanos != 0 || c.HPCC.QueueOverWindow
}

// presets are the named network configurations people compare.
var presets = map[string]struct {
	doc string
	cfg func() Config
}{
	"ns3":         {"stock-TCP DCTCP as stock ns-3 runs it (NS3): window-based, marked at enqueue, 54 B headers, FIFO host NICs", NS3},
	"dctcp":       {"the papers' rate-based DCTCP (Default), as their ns-3 fork runs it", Default},
	"dcqcn":       {"DCQCN at its defaults (Zhu et al.), the papers' packet sizes", withCC("dcqcn")},
	"timely":      {"TIMELY at its defaults (Mittal et al.), the papers' packet sizes", withCC("timely")},
	"hpcc":        {"HPCC at its defaults (Li et al.), the papers' packet sizes", withCC("hpcc")},
	"fork-dctcp":  {"the papers' ground truth, their ns-3 fork's DCTCP (VAR_WIN 1): the same as dctcp", fork("dctcp")},
	"fork-dcqcn":  {"the papers' ground truth, their ns-3 fork's DCQCN: cuts on a 50 us grid at the sender, increase by the timer alone", fork("dcqcn")},
	"fork-timely": {"the papers' ground truth, their ns-3 fork's TIMELY: an RTT sample per round trip, its 8 B INT on the wire", fork("timely")},
	"fork-hpcc":   {"the papers' ground truth, their ns-3 fork's HPCC: T from the network, queues over an 18 KB window, its 42 B INT on the wire", fork("hpcc")},
}

// Presets lists the names Preset knows, sorted: "ns3" (stock ns-3's
// window-based DCTCP), "dctcp" (the papers' rate-based DCTCP, Default),
// each other congestion control of m3's Table 4 at its defaults
// ("dcqcn", "timely", "hpcc"), and each of the four as the HPCC ns-3
// fork, the papers' ground truth, runs it ("fork-dctcp", "fork-dcqcn",
// "fork-timely", "fork-hpcc"; fork-hpcc's T is resolved on the
// scenario's network, Config.Resolve).
func Presets() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// PresetDoc says in a line what the named preset is ("" if unknown).
func PresetDoc(name string) string { return presets[name].doc }

// Preset returns the named network configuration (Presets). A scenario's
// "network" block names one as {"preset": "hpcc", ...}, the other fields
// then changing the preset's values (UnmarshalJSON).
func Preset(name string) (Config, error) {
	p, ok := presets[name]
	if !ok {
		return Config{}, fmt.Errorf("netcfg: unknown network preset %q (known: %s)", name, strings.Join(Presets(), ", "))
	}
	return p.cfg(), nil
}

// UnmarshalJSON reads a network block strictly (an unknown field is an
// error): a "preset" field, wherever it stands, replaces c with that
// preset first; the other fields then set their values over c's (so a
// block that names neither keeps c's values, Default's in a parsed
// scenario). The preset's name is not kept: c, its JSON and every ID that
// hashes it are the resolved configuration, the same as the fields
// spelled out.
func (c *Config) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return fmt.Errorf("netcfg: network block: %w", err)
	}
	if raw, ok := fields["preset"]; ok {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return fmt.Errorf("netcfg: preset must be a name, got %s", raw)
		}
		p, err := Preset(name)
		if err != nil {
			return err
		}
		*c = p
		delete(fields, "preset")
		if data, err = json.Marshal(fields); err != nil {
			return err
		}
	}
	type plain Config // without this method
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode((*plain)(c)); err != nil {
		return fmt.Errorf("netcfg: network block: %w", err)
	}
	if c.HostNIC == HostNICRoundRobin {
		c.HostNIC = "" // the default, which the JSON and IDs leave out
	}
	return nil
}
