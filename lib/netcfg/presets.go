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
// have on the wire (20 B IPv4, 32 B TCP with timestamps, 2 B PPP) and
// window-based DCTCP, as ns-3's TcpDctcp, marked at enqueue, as ns-3's
// RED queue disc marks.
func NS3() Config {
	cfg := Default()
	cfg.HeaderBytes, cfg.AckBytes, cfg.CC = 54, 54, "dctcp-window"
	cfg.ECNMark = "enqueue"
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

// presets are the named network configurations people compare.
var presets = map[string]struct {
	doc string
	cfg func() Config
}{
	"ns3":    {"stock-TCP DCTCP as stock ns-3 runs it (NS3): window-based, marked at enqueue, 54 B headers", NS3},
	"dctcp":  {"the papers' rate-based DCTCP (Default), as their ns-3 fork runs it", Default},
	"dcqcn":  {"DCQCN at its defaults (Zhu et al.), the papers' packet sizes", withCC("dcqcn")},
	"timely": {"TIMELY at its defaults (Mittal et al.), the papers' packet sizes", withCC("timely")},
	"hpcc":   {"HPCC at its defaults (Li et al.), the papers' packet sizes", withCC("hpcc")},
}

// Presets lists the names Preset knows, sorted: "ns3" (stock ns-3's
// window-based DCTCP), "dctcp" (the papers' rate-based DCTCP, Default)
// and each other congestion control of m3's Table 4 at its defaults
// ("dcqcn", "timely", "hpcc").
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
	return nil
}
