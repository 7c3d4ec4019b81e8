package m3

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/netcfg"
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

// BufferKind names cfg's switch buffers as the held-out ablation groups
// them: "infinite", "per-port" (buffer_bytes), "shared" or "shared+pfc".
func BufferKind(cfg netcfg.Config) string {
	switch {
	case cfg.BufferBytes > 0:
		return "per-port"
	case cfg.SharedBuffer() && cfg.PFC.Enabled:
		return "shared+pfc"
	case cfg.SharedBuffer():
		return "shared"
	}
	return "infinite"
}
