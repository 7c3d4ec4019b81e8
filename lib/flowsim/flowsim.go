// Package flowsim is a max-min fair flow-level simulator: m3's flowSim
// (App. A, Alg. 1), made incremental. Every active flow sends at its
// max-min fair rate, recomputed by water-filling whenever a flow arrives or
// completes, subject to the capacities of the channels it crosses and to
// its host's rate; a flow carries its size plus one header per packet.
// There are no queues, no congestion control and no packets: flowSim is the
// cheap reference the m3 estimator corrects, and on whole networks the
// "flowSim only" estimator.
//
// Unlike the original, which recomputes every rate at every event and scans
// for the next completion, flows with the same path share one
// water-filling variable, a re-allocation re-solves only the routes whose
// rates can change (those reached from the changed links through saturated
// ones), and completions come off an event heap. Networks with at most 64
// routes over at most 64 links, such as parking lots, take a dense path
// instead: every rate recomputed over small arrays and bit sets at each
// instant, the next completion found by a scan of the routes. The result
// is the max-min
// fair allocation a full recomputation gives (rounding may over-commit a
// link by at most a 1e-9 fraction), checked against a recompute-everything
// implementation in the tests.
//
// Time is float64 nanoseconds and rates bits per nanosecond; over runs of
// less than about a day of simulated time the rounding of a finish time
// stays far below a nanosecond, and records are rounded to nanoseconds.
// Completions at the same instant are applied in order of flow id, all
// events of one instant before one re-allocation; a run is a deterministic
// function of its inputs.
//
// Run simulates flows on a topo.Network, routed like every estimator with
// Network.Path; Simulate is the core on bare link capacities, for callers
// that build their own paths or carry partly sent flows into a run (pfs's
// temporal chunks).
package flowsim

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Name is the estimator name flowsim records carry.
const Name = "flowsim"

// Options tune a run beyond the shared network model.
type Options struct {
	// HostRateBps, when positive, caps every flow at this rate instead of
	// its source NIC's bandwidth. On a full network the NIC cap never
	// binds on its own (the NIC channel is on the path); a lower host rate
	// does, and then even a lone flow is slower than its ideal FCT.
	HostRateBps int64 `json:"host_rate_bps,omitempty"`
	// WindowCap caps every flow, besides its host rate, at the window of
	// the configuration's CC (netcfg.Config.WindowCapBytes) per base
	// round trip of its path: a window under the bandwidth-delay product
	// holds even a lone flow below line rate, which the plain fluid model
	// does not see. The base round trip is a full data packet's along the
	// path and its ACK's back, over empty queues, as packetsim's; the
	// window counts payload, so the cap on the wire is window x
	// (payload + header) / payload per round trip. Congestion control
	// itself stays unmodelled.
	WindowCap bool `json:"window_cap,omitempty"`
	// Meter, when set, is filled with the bits its channels carried per
	// time bin (Meter.Links are channel ids). It is an output of one run,
	// not an option a spec or sweep can set.
	Meter *Meter `json:"-"`
	// Emit, when set, receives every record in flow order, and Run
	// returns none: a run of millions of flows then holds, beyond the
	// flows, a few numbers per flow rather than a record each.
	Emit func(metrics.Record) error `json:"-"`
}

// NetworkModel says what of the network configuration a run with options
// o models: the packet and header sizes, and with WindowCap the CC's
// window, nothing else. Its answer is otherwise the same for every
// congestion control, ECN setting, buffer and PFC setting; estimators
// built on it record this in their frames (extra network_model), as the
// CC-free reference rather than a model of the configuration asked.
func (o Options) NetworkModel() string {
	if o.WindowCap {
		return "max-min fair fluid, each flow capped at its cc's window per base RTT: packet sizes and windows only; no congestion control, ECN, buffers or PFC"
	}
	return "max-min fair fluid: packet sizes only; no congestion control, ECN, buffers or PFC (the same for every cc)"
}

// Run simulates flows on net under max-min fair sharing and returns one
// record per flow, in the order of flows (or hands them to opts.Emit).
//
// Flow f is routed with net.Path(f.ID, f.Src, f.Dst), puts
// cfg.WireBytes(f.Size) bytes on every channel of its path, and sends at
// most at its source NIC's bandwidth (or opts.HostRateBps). Its FCT is the
// ideal FCT (metrics.IdealFCT: propagation, the first packet's
// store-and-forward, the rest at the path's slowest channel) plus the
// extra time its transmission took at its max-min rates over the time a
// transmission alone at the slowest channel's rate takes:
//
//	FCT = Ideal + round(finish - start - wire*8/minBandwidth)
//
// so a lone flow's FCT equals its ideal FCT to the nanosecond, and sharing
// only ever adds time. Slowdown is FCT/Ideal.
//
// Flows must pass workload.Check (sorted by start, positive sizes,
// distinct host endpoints, unique ids) and be routable; otherwise Run
// returns an error naming the flow. Run stops with ctx's error soon after
// ctx is cancelled.
func Run(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, opts Options) ([]metrics.Record, error) {
	if net == nil {
		return nil, fmt.Errorf("flowsim: nil network")
	}
	if cfg.PayloadBytes <= 0 || cfg.HeaderBytes < 0 {
		return nil, fmt.Errorf("flowsim: payload_bytes must be positive and header_bytes >= 0, got %d and %d", cfg.PayloadBytes, cfg.HeaderBytes)
	}
	if opts.HostRateBps < 0 {
		return nil, fmt.Errorf("flowsim: negative host rate %d bps", opts.HostRateBps)
	}
	if err := workload.Check(net, flows); err != nil {
		return nil, fmt.Errorf("flowsim: %w", err)
	}
	if len(flows) > math.MaxInt32 {
		return nil, fmt.Errorf("flowsim: %d flows; at most %d are supported", len(flows), math.MaxInt32)
	}
	capBps := make([]int64, len(net.Channels))
	for i, ch := range net.Channels {
		capBps[i] = ch.Bandwidth
	}
	if opts.Meter != nil {
		if err := opts.Meter.prepare(len(capBps)); err != nil {
			return nil, err
		}
	}
	e := newEngine(capBps, len(flows))
	e.meter = opts.Meter
	ideal, minBw := make([]int64, len(flows)), make([]int64, len(flows))
	// Host pairs with a fixed path (no ECMP choice) are routed once: on a
	// parking lot that is every pair, and routing was a tenth of a run.
	fixed := make(map[[2]int]routed)
	var buf []int
	for i, f := range flows {
		p, ok := fixed[[2]int{f.Src, f.Dst}]
		if !ok {
			path, isFixed, err := net.AppendFixedPath(buf[:0], f.ID, f.Src, f.Dst)
			if err != nil {
				return nil, fmt.Errorf("flowsim: %w", err)
			}
			host := opts.HostRateBps
			if host == 0 {
				host = net.Channels[path[0]].Bandwidth
			}
			if opts.WindowCap {
				host = min(host, windowRate(net, path, cfg))
			}
			p = routed{path: path, route: e.intern(path, host), minBw: net.Channels[path[0]].Bandwidth}
			for _, c := range path {
				p.minBw = min(p.minBw, net.Channels[c].Bandwidth)
			}
			if isFixed {
				p.path = slices.Clone(path)
				fixed[[2]int{f.Src, f.Dst}] = p
			} else {
				buf = path
			}
		}
		e.add(f.ID, p.route, cfg.WireBytes(f.Size), f.Start)
		minBw[i], ideal[i] = p.minBw, metrics.IdealFCT(net, p.path, f.Size, cfg)
	}
	if err := e.run(ctx); err != nil {
		return nil, err
	}
	var recs []metrics.Record
	emit := opts.Emit
	if emit == nil {
		recs = make([]metrics.Record, 0, len(flows))
		emit = func(r metrics.Record) error {
			recs = append(recs, r)
			return nil
		}
	}
	for i, f := range flows {
		r := metrics.Record{FlowID: f.ID, Src: f.Src, Dst: f.Dst, Size: f.Size, Start: f.Start, Class: f.Class, Ideal: ideal[i]}
		Complete(&r, e.finish[i], cfg.WireBytes(f.Size), minBw[i])
		if err := emit(r); err != nil {
			return nil, err
		}
	}
	return recs, nil
}

// windowRate is the most a flow on path sends, in bps, under cfg's
// window (Options.WindowCap); math.MaxInt64 if no window caps it.
func windowRate(net *topo.Network, path []int, cfg netcfg.Config) int64 {
	w := cfg.WindowCapBytes()
	if w == 0 {
		return math.MaxInt64
	}
	data := float64(cfg.PayloadBytes + cfg.HeaderBytes)
	var rttNs float64
	for _, c := range path {
		rttNs += float64(2*net.Channels[c].Delay) +
			data*8e9/float64(net.Channels[c].Bandwidth) +
			float64(cfg.AckBytes)*8e9/float64(net.Channels[net.Reverse(c)].Bandwidth)
	}
	wire := float64(w) * data / float64(cfg.PayloadBytes)
	return max(1, int64(wire*8e9/rttNs))
}

// routed is a flow's path with what Run derives from it.
type routed struct {
	path  []int
	route int32 // the engine's route
	minBw int64 // the smallest bandwidth on the path, bps
}

// Complete fills a record's FCT and slowdown from the finish time (ns) of
// its transmission of wireBytes, given the smallest bandwidth on its path
// and its Ideal FCT: the ideal plus whatever the transmission took beyond
// its time alone at that bandwidth (see Run). Callers of Simulate use it
// to turn finish times into records like Run's.
func Complete(r *metrics.Record, finish float64, wireBytes, minBandwidthBps int64) {
	alone := float64(wireBytes) * 8 / (float64(minBandwidthBps) / 1e9)
	extra := math.Round(finish - float64(r.Start) - alone)
	r.FCT = r.Ideal + max(0, int64(extra))
	r.Slowdown = float64(r.FCT) / float64(r.Ideal)
}
