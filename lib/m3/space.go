package m3

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
)

// Space is the part of the network-configuration space a model was
// trained on: the settings its training data never varied, so that the
// model has seen nothing else. The parameters it did vary (ECN threshold,
// window) enter the spec vector and are read, not checked.
type Space struct {
	CCs           []string `json:"ccs"`            // congestion controls of the training data
	FiniteBuffers bool     `json:"finite_buffers"` // finite per-port switch buffers in it (else infinite only)
	// SharedBuffers says whether it had finite shared switch buffers
	// (netcfg.Buffer), PFC the pfc.enabled settings of those tasks.
	SharedBuffers bool     `json:"shared_buffers,omitempty"`
	PFC           []bool   `json:"pfc,omitempty"`
	ECNMarks      []string `json:"ecn_marks"` // ECN marking points in it
	// DCTCPVarWin lists the dctcp.var_win settings of its DCTCP tasks.
	DCTCPVarWin []bool `json:"dctcp_var_win"`
	// ForkRules lists the netcfg.Config.ForkRules settings of its tasks
	// whose CC the fork has rules for (netcfg.HasForkRules); nil for a
	// model trained before they existed, that is without them.
	ForkRules []bool `json:"fork_rules,omitempty"`
}

// DCTCPSpace is the space RandomTask draws from and every model trained
// before models recorded their space was trained on: the papers'
// rate-based DCTCP marked at dequeue, with its window scaled with its rate
// (netcfg.Default), over infinite buffers.
func DCTCPSpace() Space {
	d := netcfg.Default()
	return Space{CCs: []string{d.CC}, ECNMarks: []string{d.ECNMark}, DCTCPVarWin: []bool{d.DCTCP.VarWin}}
}

// Space is the configuration space the model was trained on: its
// ModelInfo's, or DCTCPSpace for a model that records none.
func (m *Model) Space() Space {
	if m.Info.Space != nil {
		return *m.Info.Space
	}
	return DCTCPSpace()
}

// Covers returns nil if cfg lies in the space s, else an error naming the
// first setting the training data never had: the model's answer there
// would be an extrapolation nobody checked.
func (s Space) Covers(cfg netcfg.Config) error {
	outside := func(what, got string, trained []string) error {
		return fmt.Errorf("m3: the model was not trained on %s %s (its training data: %s); train one that was (tailscope m3 gendata, m3 train) or use model \"none\" for flowSim alone",
			what, got, strings.Join(trained, ", "))
	}
	switch {
	case cfg.HostFIFO():
		return outside("host NICs", fmt.Sprintf("host_nic %q", cfg.HostNIC), []string{"round-robin host NICs"})
	case !slices.Contains(s.CCs, cfg.CC):
		return outside("congestion control", cfg.CC, s.CCs)
	case cfg.SharedBuffer() && !s.SharedBuffers:
		return outside("shared switch buffers,", fmt.Sprintf("shared_bytes %d", cfg.Buffer.SharedBytes), []string{"no shared buffers"})
	case cfg.SharedBuffer() && !slices.Contains(s.PFC, cfg.PFC.Enabled):
		var trained []string
		for _, v := range s.PFC {
			trained = append(trained, fmt.Sprintf("pfc enabled %v", v))
		}
		return outside("shared buffers with", fmt.Sprintf("pfc enabled %v", cfg.PFC.Enabled), trained)
	case cfg.BufferBytes > 0 && !s.FiniteBuffers:
		return outside("finite buffers,", fmt.Sprintf("buffer_bytes %d", cfg.BufferBytes), []string{"infinite buffers only"})
	case !slices.Contains(s.ECNMarks, cfg.ECNMark):
		return outside("ecn_mark", cfg.ECNMark, s.ECNMarks)
	case netcfg.HasForkRules(cfg.CC) && !slices.Contains(s.forkRules(), cfg.ForkRules()):
		var trained []string
		for _, v := range s.forkRules() {
			trained = append(trained, fmt.Sprintf("fork rules %v", v))
		}
		return outside("the HPCC ns-3 fork's rules (dcqcn.decrease_grid, dcqcn.timer_only, timely.per_rtt, hpcc.base_rtt_nanos, hpcc.queue_over_window):",
			fmt.Sprintf("fork rules %v", cfg.ForkRules()), trained)
	case cfg.CC == "dctcp" && !slices.Contains(s.DCTCPVarWin, cfg.DCTCP.VarWin):
		var trained []string
		for _, v := range s.DCTCPVarWin {
			trained = append(trained, fmt.Sprintf("var_win %v", v))
		}
		return outside("dctcp", fmt.Sprintf("var_win %v", cfg.DCTCP.VarWin), trained)
	}
	return nil
}

// forkRules is ForkRules, without the fork's rules where it is nil.
func (s Space) forkRules() []bool {
	if s.ForkRules == nil {
		return []bool{false}
	}
	return s.ForkRules
}

// spanned is the space the samples' configurations span.
func spanned(samples []*Sample) Space {
	var s Space
	for _, x := range samples {
		c := x.Network
		if !slices.Contains(s.CCs, c.CC) {
			s.CCs = append(s.CCs, c.CC)
		}
		s.FiniteBuffers = s.FiniteBuffers || c.BufferBytes > 0
		if c.SharedBuffer() {
			s.SharedBuffers = true
			if !slices.Contains(s.PFC, c.PFC.Enabled) {
				s.PFC = append(s.PFC, c.PFC.Enabled)
			}
		}
		if !slices.Contains(s.ECNMarks, c.ECNMark) {
			s.ECNMarks = append(s.ECNMarks, c.ECNMark)
		}
		if c.CC == "dctcp" && !slices.Contains(s.DCTCPVarWin, c.DCTCP.VarWin) {
			s.DCTCPVarWin = append(s.DCTCPVarWin, c.DCTCP.VarWin)
		}
		if netcfg.HasForkRules(c.CC) && !slices.Contains(s.ForkRules, c.ForkRules()) {
			s.ForkRules = append(s.ForkRules, c.ForkRules())
		}
	}
	slices.Sort(s.CCs)
	slices.Sort(s.ECNMarks)
	for _, bs := range [][]bool{s.PFC, s.ForkRules} {
		slices.SortFunc(bs, func(a, b bool) int { return boolInt(a) - boolInt(b) })
	}
	return s
}

// boolInt is 1 for true, 0 for false.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Extrapolation is a network-spec entry that lies outside a model's
// training range on some of a network's routes (Model.Extrapolations).
type Extrapolation struct {
	// Entry names the spec entry (SpecNames), Parameter the setting of a
	// scenario's network block or topology it comes from.
	Entry, Parameter string
	// Low and High are the smallest and largest value on the routes
	// outside the range, TrainedLow and TrainedHigh the training range.
	Low, High, TrainedLow, TrainedHigh float64
	// Routes counts the routes checked on which the entry lies outside,
	// Checked the routes checked.
	Routes, Checked int
}

// String says it in a line: the entry, the parameter, the values and
// the range.
func (e Extrapolation) String() string {
	v := fmt.Sprintf("%.3g", e.Low)
	if e.High != e.Low {
		v = fmt.Sprintf("%.3g..%.3g", e.Low, e.High)
	}
	return fmt.Sprintf("%s = %s (from %s) on %d of %d routes, trained on %.3g..%.3g",
		e.Entry, v, e.Parameter, e.Routes, e.Checked, e.TrainedLow, e.TrainedHigh)
}

// specParameters names the setting each network-spec entry comes from.
var specParameters = map[string]string{
	"hops/6":             "the topology's hop count",
	"bdp/100KB":          "the topology's bandwidths and delays",
	"infinite_buffer":    "buffer_bytes or buffer",
	"buffer/bdp":         "buffer_bytes or buffer.shared_bytes",
	"window/bdp":         "dctcp.window_bytes",
	"k_first/bdp":        "k_bytes_per_gbps or k_bytes",
	"k_max/bdp":          "k_bytes_per_gbps or k_bytes",
	"ecn_k_first/bdp":    "k_bytes_per_gbps or k_bytes",
	"ecn_k_max/bdp":      "k_bytes_per_gbps or k_bytes",
	"dctcp_g":            "dctcp.g",
	"ai_rate/1Gbps":      "dctcp.ai_rate_bps",
	"min_rate/10Gbps":    "dctcp.min_rate_bps",
	"init_window/bdp":    "the congestion control's window (window_bytes, or dctcp.init_window)",
	"dcqcn_kmin/bdp":     "dcqcn.kmin_bytes",
	"dcqcn_kmax/bdp":     "dcqcn.kmax_bytes",
	"hpcc_eta":           "hpcc.eta",
	"hpcc_ai_rate/1Gbps": "hpcc.ai_rate_bps",
	"timely_tlow/100us":  "timely.tlow_nanos",
	"timely_thigh/100us": "timely.thigh_nanos",
	"pfc":                "pfc.enabled",
	"shared_buffer":      "buffer",
	"buffer_alpha":       "buffer.alpha",
}

// Extrapolations checks the network-spec vector (SpecVector) of each
// route (channels of net) under cfg against the model's training
// ranges, as Outside does for a simulated path, and returns the entries
// outside on any route, in the model's entry order; nil when all lie
// inside or the model records no ranges. The foreground share is left
// out: it is the workload's, known only once paths are simulated. Run
// answers outside the ranges (and counts the paths); a caller that
// would rather refuse checks this first, before any simulation.
func (m *Model) Extrapolations(net *topo.Network, routes [][]int, cfg netcfg.Config) []Extrapolation {
	names := m.Info.specNames()
	ranges := m.ranges(cfg.CC)
	if ranges == nil {
		return nil
	}
	found := map[int]*Extrapolation{}
	spec := make([]float64, len(SpecNames))
	var bws, delays []int64
	checked := 0
	for _, route := range routes {
		bws, delays = bws[:0], delays[:0]
		for _, c := range route {
			bws, delays = append(bws, net.Channels[c].Bandwidth), append(delays, net.Channels[c].Delay)
		}
		if len(bws) == 0 {
			continue
		}
		checked++
		copy(spec, SpecVector(bws, delays, cfg))
		for _, i := range m.outside(spec, cfg.CC) {
			if names[i] == "log10_fg_share" {
				continue
			}
			v := spec[m.spec[i]]
			e, ok := found[i]
			if !ok {
				e = &Extrapolation{Entry: names[i], Parameter: specParameters[names[i]], Low: v, High: v, TrainedLow: ranges[i][0], TrainedHigh: ranges[i][1]}
				found[i] = e
			}
			e.Low, e.High = min(e.Low, v), max(e.High, v)
			e.Routes++
		}
	}
	var out []Extrapolation
	for i := range names {
		if e, ok := found[i]; ok {
			e.Checked = checked
			out = append(out, *e)
		}
	}
	return out
}
