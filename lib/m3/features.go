package m3

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
)

// NumPercentiles is the number of percentiles per size bucket in feature
// maps and predictions: 1, 2, ..., 100.
const NumPercentiles = 100

// FeatureMap returns, for every bin of bins, the percentiles 1..100 of the
// slowdowns of the flows whose size falls in it (m3 §3.4, Fig. 3): a
// bins.Len() x 100 map. A bin without flows reads 1 throughout, the
// slowdown of a network without contention.
func FeatureMap(sizes []int64, slowdowns []float64, bins metrics.Bins) [][]float64 {
	by := make([][]float64, bins.Len())
	for i, s := range sizes {
		b := bins.Index(s)
		by[b] = append(by[b], slowdowns[i])
	}
	ps := make([]float64, NumPercentiles)
	for i := range ps {
		ps[i] = float64(i + 1)
	}
	m := make([][]float64, bins.Len())
	for b, xs := range by {
		if len(xs) == 0 {
			m[b] = make([]float64, NumPercentiles)
			for i := range m[b] {
				m[b][i] = 1
			}
			continue
		}
		m[b] = metrics.Percentiles(xs, ps)
	}
	return m
}

// NetworkSpecNames names the entries of the network-spec vector
// SpecVector returns, in order: LegacySpecNames, then the rest of the
// configuration m3's Table 4 varies: the other congestion controls'
// one-hot entries, the initial window of the CC in use, DCQCN's marking
// thresholds, HPCC's eta and rate AI, TIMELY's thresholds, the PFC flag,
// and whether the buffer is shared by a switch's ports with its dynamic
// threshold's alpha; last the ECN threshold again where the CC reads it
// (DCTCP and window DCTCP; 0 under DCQCN, which marks by RED, and TIMELY
// and HPCC, which read no marks): a model that reads these two instead of
// k_first/bdp and k_max/bdp cannot answer differently for a threshold the
// network ignores.
var NetworkSpecNames = []string{
	"hops/6", "bdp/100KB", "infinite_buffer", "buffer/bdp", "window/bdp",
	"k_first/bdp", "k_max/bdp", "cc_dctcp", "cc_dctcp_window", "dctcp_g",
	"ai_rate/1Gbps", "min_rate/10Gbps",
	"cc_dcqcn", "cc_timely", "cc_hpcc", "init_window/bdp",
	"dcqcn_kmin/bdp", "dcqcn_kmax/bdp", "hpcc_eta", "hpcc_ai_rate/1Gbps",
	"timely_tlow/100us", "timely_thigh/100us", "pfc",
	"shared_buffer", "buffer_alpha", "ecn_k_first/bdp", "ecn_k_max/bdp",
}

// SpecNames names the entries of a sample's spec vector (Sample.Spec):
// NetworkSpecNames, then the path's own, "log10_fg_share", the decimal
// logarithm of its foreground share (FGShare, at least MinFGShare). A
// model reads the entries its ModelInfo.SpecNames names.
var SpecNames = append(slices.Clone(NetworkSpecNames), "log10_fg_share")

// LegacySpecNames is the spec layout of models that record none (trained
// on DCTCP alone): the first twelve SpecNames.
var LegacySpecNames = NetworkSpecNames[:12:12]

// MinFGShare is the smallest foreground share a spec vector carries: a
// fabric path's is often smaller (6e-5 on the 6,144-host fabric at 30%),
// but below it a foreground no longer queues behind itself measurably,
// and the model is not asked to extrapolate beyond its training tasks'.
const MinFGShare = 1e-4

// FGShare is the foreground's share of the flows crossing the path's
// busiest hop (the one with the most bytes per unit of bandwidth). It
// tells the model how much of its bottleneck's traffic is the foreground
// itself: a training task's foreground is a fifth to a half of its
// flows, a fabric path's a ten-thousandth. A thinned sample (Sample.Thin)
// keeps its whole task's share. A path without foreground flows has
// share 0.
func FGShare(sim *PathSim) float64 {
	busiest := sim.BusiestHop()
	fg, flows := 0, 0
	for i := range sim.Flows {
		if sim.First[i] <= busiest && busiest <= sim.Last[i] {
			flows++
		}
		if sim.Foreground[i] {
			fg++
		}
	}
	if fg == 0 {
		return 0
	}
	return float64(fg) / float64(flows)
}

// SpecVector is the network-spec vector of a path of hops with the given
// bandwidths (bps) and delays (ns) under cfg (m3 §3.4), entries as
// NetworkSpecNames: hop count, bandwidth-delay product, buffer, windows and ECN
// thresholds relative to it, the congestion control one-hot and its
// parameters, scaled to about unit size. The buffer is the per-port
// buffer or, when switches share one (netcfg.Buffer), each switch's, with
// shared_buffer 1 and the threshold's alpha beside it (0 otherwise). The BDP is the slowest hop's rate
// times the base round trip (propagation both ways plus one full packet
// and one ACK per hop).
func SpecVector(bandwidths, delays []int64, cfg netcfg.Config) []float64 {
	var rtt float64 // ns
	minBw, maxBw := int64(math.MaxInt64), int64(0)
	for i, bw := range bandwidths {
		rtt += 2*float64(delays[i]) + float64((cfg.PayloadBytes+cfg.HeaderBytes+cfg.AckBytes)*8)*1e9/float64(bw)
		minBw, maxBw = min(minBw, bw), max(maxBw, bw)
	}
	bdp := float64(minBw) * rtt / 8e9 // bytes
	inf, buf, shared, alpha := 1.0, 0.0, 0.0, 0.0
	switch {
	case cfg.BufferBytes > 0:
		inf, buf = 0, float64(cfg.BufferBytes)/bdp
	case cfg.SharedBuffer():
		inf, buf, shared, alpha = 0, float64(cfg.Buffer.SharedBytes)/bdp, 1, cfg.Buffer.Alpha
	}
	oneHot := func(name string) float64 {
		if cfg.CC == name {
			return 1
		}
		return 0
	}
	// The window a flow starts with, as each CC's block sets it.
	var window float64
	switch cfg.CC {
	case "dctcp":
		window = float64(cfg.DCTCP.WindowBytes)
	case "dctcp-window":
		window = float64(cfg.DCTCP.InitWindow * cfg.PayloadBytes)
	case "dcqcn":
		window = float64(cfg.DCQCN.WindowBytes) // 0: no window
	case "timely":
		window = float64(cfg.TIMELY.WindowBytes) // 0: no window
	case "hpcc":
		if window = float64(cfg.HPCC.WindowBytes); window == 0 {
			window = bdp
		}
	}
	kFirst, kMax := float64(cfg.KBytesFor(bandwidths[0]))/bdp, float64(cfg.KBytesFor(maxBw))/bdp
	ecnFirst, ecnMax := 0.0, 0.0
	if cfg.CC == "dctcp" || cfg.CC == "dctcp-window" {
		ecnFirst, ecnMax = kFirst, kMax
	}
	return []float64{
		float64(len(bandwidths)) / 6, bdp / 1e5, inf, buf,
		float64(cfg.DCTCP.WindowBytes) / bdp,
		kFirst, kMax,
		oneHot("dctcp"), oneHot("dctcp-window"),
		cfg.DCTCP.G, float64(cfg.DCTCP.AIRateBps) / 1e9, float64(cfg.DCTCP.MinRateBps) / 1e10,
		oneHot("dcqcn"), oneHot("timely"), oneHot("hpcc"), window / bdp,
		float64(cfg.DCQCN.KminBytes) / bdp, float64(cfg.DCQCN.KmaxBytes) / bdp,
		cfg.HPCC.Eta, float64(cfg.HPCC.AIRateBps) / 1e9,
		float64(cfg.TIMELY.TLowNanos) / 1e5, float64(cfg.TIMELY.THighNanos) / 1e5,
		float64(boolInt(cfg.PFC.Enabled)), shared, alpha, ecnFirst, ecnMax,
	}
}

// Sample is what the model sees of one path simulation, and with Target
// what it is trained on.
type Sample struct {
	Hops int
	// FG is the foreground flows' flowSim map (M3Bins x 100), BG one map
	// per hop of the background flows crossing that hop.
	FG [][]float64
	BG [][][]float64
	// Spec is the spec vector (SpecNames): the network's (SpecVector)
	// and the path's foreground share; Network the configuration it
	// describes.
	Spec    []float64
	Network netcfg.Config
	// Base holds flowSim's foreground slowdown percentiles per output
	// bucket (M3OutputBins x 100), Count the foreground flows per output
	// bucket. The model predicts a correction of Base. WindowCap says
	// whether flowSim capped flows at their window
	// (flowsim.Options.WindowCap): a model corrects one base only.
	Base      [][]float64
	Count     []int
	WindowCap bool
	// Target holds packet-level foreground percentiles per output bucket,
	// when known, and TargetCount the flows behind each bucket's row.
	Target      [][]float64
	TargetCount []int
	// TargetFlows, when set, holds the packet-level slowdowns of the
	// foreground flows themselves per output bucket (NetworkSamples): a
	// path of a network carries too few flows for percentiles, so the
	// model learns its percentiles from such samples by quantile
	// (pinball) loss instead.
	TargetFlows [][]float64

	// the foreground flows' sizes and flowSim slowdowns, for Thin
	fgSize []int64
	fgFlow []float64
}

// NewSample builds a sample from a path simulation's flowSim slowdowns
// (one per flow of sim) and, when packetSlowdowns is not nil, the
// packet-level targets.
func NewSample(sim *PathSim, cfg netcfg.Config, flowSlowdowns, packetSlowdowns []float64) *Sample {
	bandwidths, delays := sim.chain()
	in, out := metrics.M3Bins(), metrics.M3OutputBins()
	h := sim.Hops()
	var fgSize []int64
	var fgFlow, fgPkt []float64
	bgSize := make([][]int64, h)
	bgFlow := make([][]float64, h)
	for i, f := range sim.Flows {
		if sim.Foreground[i] {
			fgSize = append(fgSize, f.Size)
			fgFlow = append(fgFlow, flowSlowdowns[i])
			if packetSlowdowns != nil {
				fgPkt = append(fgPkt, packetSlowdowns[i])
			}
			continue
		}
		for k := sim.First[i]; k <= sim.Last[i]; k++ {
			bgSize[k] = append(bgSize[k], f.Size)
			bgFlow[k] = append(bgFlow[k], flowSlowdowns[i])
		}
	}
	s := &Sample{
		Hops:    h,
		FG:      FeatureMap(fgSize, fgFlow, in),
		Spec:    append(SpecVector(bandwidths, delays, cfg), math.Log10(max(FGShare(sim), MinFGShare))),
		Network: cfg,
		Base:    FeatureMap(fgSize, fgFlow, out),
		Count:   make([]int, out.Len()),
	}
	for k := range h {
		s.BG = append(s.BG, FeatureMap(bgSize[k], bgFlow[k], in))
	}
	for _, sz := range fgSize {
		s.Count[out.Index(sz)]++
	}
	s.fgSize, s.fgFlow = fgSize, fgFlow
	if packetSlowdowns != nil {
		s.Target = FeatureMap(fgSize, fgPkt, out)
		s.TargetCount = append([]int(nil), s.Count...)
	}
	return s
}

// Thin returns a copy of s whose foreground features (FG, Base, Count)
// come from k foreground flows drawn without replacement, while its
// background maps and targets stay those of all flows. A network's paths
// mostly carry a handful of foreground flows each; thinned samples teach
// the model to predict a path's distribution from such sparse evidence
// and its background.
func (s *Sample) Thin(k int, r *rand.Rand) *Sample {
	n := len(s.fgSize)
	if k >= n {
		return s
	}
	perm := r.Perm(n)[:k]
	size, sd := make([]int64, k), make([]float64, k)
	for i, j := range perm {
		size[i], sd[i] = s.fgSize[j], s.fgFlow[j]
	}
	out := metrics.M3OutputBins()
	t := *s
	t.FG = FeatureMap(size, sd, metrics.M3Bins())
	t.Base = FeatureMap(size, sd, out)
	t.Count = make([]int, out.Len())
	for _, sz := range size {
		t.Count[out.Index(sz)]++
	}
	t.fgSize, t.fgFlow = size, sd
	return &t
}
