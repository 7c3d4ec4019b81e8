package parsimon

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tailscope/tailscope/lib/internal/pool"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// DelayNet is the queryable delay network of Parsimon §3.4: the topology
// with, on every channel, the bucketed packet-normalized delays of its own
// link-level simulation or of its cluster representative's. End-to-end
// estimates convolve the channels of a path by Monte-Carlo sampling.
type DelayNet struct {
	Net *topo.Network
	Cfg netcfg.Config
	// Channel holds each channel's delay distribution; nil for a channel
	// without records, which adds no delay.
	Channel []*Buckets
	// Workers is the number of goroutines EstimateFlows and EmitFlows
	// draw on (<= 0: GOMAXPROCS); the records do not depend on it.
	Workers int
	// WindowOnce adds the delay the window adds to a lone flow on its
	// whole path once (LoneWindowDelay): the channels' delays are then
	// net of it (Options.WindowOnce).
	WindowOnce bool
}

// NewDelayNet returns a delay network over net with no delays yet; set
// Channel entries to fill it.
func NewDelayNet(net *topo.Network, cfg netcfg.Config) *DelayNet {
	return &DelayNet{Net: net, Cfg: cfg, Channel: make([]*Buckets, len(net.Channels))}
}

// sample is one Monte-Carlo draw of the FCT of a flow of size bytes on
// path: its ideal FCT plus its packet count times the sum, over the path's
// channels, of a packet-normalized delay drawn from each channel's bucket
// for that size.
func (d *DelayNet) sample(path []int, size int64, r *rand.Rand) (fct, ideal int64) {
	var sum float64
	for _, c := range path {
		if b := d.Channel[c]; b != nil {
			sum += b.Sample(size, r)
		}
	}
	ideal = metrics.IdealFCT(d.Net, path, size, d.Cfg)
	fct = ideal + int64(math.Round(float64(d.Cfg.Packets(size))*sum))
	if d.WindowOnce {
		fct += LoneWindowDelay(d.Net, path, size, d.Cfg)
	}
	return fct, ideal
}

// LoneWindowDelay is how much longer than its ideal FCT a flow of size
// bytes alone on path takes because its congestion control's window
// holds fewer bytes than the path's bandwidth-delay product. A packet
// leaves while fewer than the window's bytes are unacknowledged, and
// its ACK returns a round trip R later (a data packet and its ACK
// serialized and propagated over every hop), where at line rate the
// packets would leave tau apart (tau: a packet at the slowest channel's
// rate).
//
// A fixed window (netcfg.Config.WindowCapBytes) sends w = ceil(window /
// payload) packets per round trip: each of the flow's floor((packets -
// 1) / w) full windows waits R - w x tau, or nothing when that is not
// positive. Stock TCP's window (dctcp-window) starts at InitWindow
// packets and grows by a packet per ACK (slow start, nothing marks a
// lone flow) until it covers the round trip; its waits are counted
// packet by packet. Other congestion controls without a window get 0.
func LoneWindowDelay(net *topo.Network, path []int, size int64, cfg netcfg.Config) int64 {
	if len(path) == 0 {
		return 0
	}
	pkt := float64((cfg.PayloadBytes+cfg.HeaderBytes)*8) * 1e9
	ack := float64(cfg.AckBytes*8) * 1e9
	var rtt float64
	minBw := int64(-1)
	for _, c := range path {
		ch := net.Channels[c]
		rtt += (pkt+ack)/float64(ch.Bandwidth) + 2*float64(ch.Delay)
		if minBw < 0 || ch.Bandwidth < minBw {
			minBw = ch.Bandwidth
		}
	}
	tau := pkt / float64(minBw)
	packets := cfg.Packets(size)
	if cfg.CC == "dctcp-window" {
		return int64(math.Round(slowStartDelay(packets, max(cfg.DCTCP.InitWindow, 1), tau, rtt)))
	}
	w := cfg.WindowCapBytes()
	if w <= 0 {
		return 0
	}
	wp := (w + cfg.PayloadBytes - 1) / cfg.PayloadBytes
	gap := rtt - float64(wp)*tau
	if gap <= 0 {
		return 0
	}
	return int64(math.Round(float64((packets-1)/wp) * gap))
}

// slowStartDelay is the wait of a lone flow of n packets whose window
// starts at iw packets and grows by one per ACK, each ACK a round trip
// rtt after its packet left, packets leaving tau apart at best: the last
// packet's departure minus (n - 1) tau. Once the window covers the round
// trip no packet waits again, and the count stops there.
func slowStartDelay(n, iw int64, tau, rtt float64) float64 {
	send := make([]float64, 0, min(n, 1<<16))
	var acked int64 // ACKs returned by the time packet i leaves
	for i := int64(0); i < n; i++ {
		t := 0.0
		if i > 0 {
			t = send[i-1] + tau
		}
		for acked < i && send[acked]+rtt <= t {
			acked++
		}
		for i-acked >= iw+acked { // in flight >= window: wait for the next ACK
			t = max(t, send[acked]+rtt)
			acked++
		}
		send = append(send, t)
		if float64(iw+acked)*tau > rtt+tau {
			return t - float64(i)*tau // the window covers the round trip: no more waits
		}
	}
	return send[n-1] - float64(n-1)*tau
}

// Estimate draws one FCT estimate for a flow of size bytes from host src
// to host dst, on an ECMP path picked at random with r. The record's
// FlowID is -1.
func (d *DelayNet) Estimate(size int64, src, dst int, r *rand.Rand) (metrics.Record, error) {
	if size <= 0 {
		return metrics.Record{}, fmt.Errorf("parsimon: flow size %d bytes; it must be positive", size)
	}
	path, err := d.Net.Path(int(r.Uint64()>>2), src, dst)
	if err != nil {
		return metrics.Record{}, fmt.Errorf("parsimon: %w", err)
	}
	fct, ideal := d.sample(path, size, r)
	return metrics.Record{FlowID: -1, Src: src, Dst: dst, Size: size, FCT: fct, Ideal: ideal, Slowdown: float64(fct) / float64(ideal)}, nil
}

// EstimateFlows estimates every flow on its own ECMP path. Flow f's draws
// come from a PCG seeded with (seed, f.ID), so a flow's estimate does not
// depend on which other flows are queried with it, nor on d.Workers. It
// stops with an error wrapping ctx.Err() once ctx is done.
func (d *DelayNet) EstimateFlows(ctx context.Context, flows []workload.Flow, seed uint64) ([]metrics.Record, error) {
	return d.estimateFlows(ctx, flows, nil, seed)
}

// estimateFlows is EstimateFlows with the flows' paths taken from routes
// when it is not nil (the decomposition of these flows).
func (d *DelayNet) estimateFlows(ctx context.Context, flows []workload.Flow, routes *Decomposition, seed uint64) ([]metrics.Record, error) {
	recs := make([]metrics.Record, 0, len(flows))
	err := d.emitFlows(ctx, flows, routes, seed, func(r metrics.Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// EmitFlows is EstimateFlows handing each flow's record to emit, in flow
// order, as it is drawn, so that the records need not be held; an error
// from emit stops it with that error. Chunks of ctxEvery flows are drawn
// on d.Workers goroutines and emitted in order, one call at a time; the
// context is looked at before each chunk is emitted.
func (d *DelayNet) EmitFlows(ctx context.Context, flows []workload.Flow, seed uint64, emit func(metrics.Record) error) error {
	return d.emitFlows(ctx, flows, nil, seed, emit)
}

// emitFlows is EmitFlows with the flows' paths taken from routes when it
// is not nil (the decomposition of these flows): a run routes its flows
// once, which at millions of flows is seconds.
func (d *DelayNet) emitFlows(ctx context.Context, flows []workload.Flow, routes *Decomposition, seed uint64, emit func(metrics.Record) error) error {
	chunks := make([][]metrics.Record, (len(flows)+ctxEvery-1)/ctxEvery)
	inOrder := func(i int) (bool, error) {
		if err := interrupted(ctx); err != nil {
			return false, err
		}
		for _, r := range chunks[i] {
			if err := emit(r); err != nil {
				return false, err
			}
		}
		chunks[i] = nil
		return false, nil
	}
	err := pool.Run(ctx, len(chunks), pool.Options{Workers: d.Workers, InOrder: inOrder}, func(_ context.Context, i int) error {
		var err error
		chunks[i], err = d.drawChunk(flows, i*ctxEvery, min(len(flows), (i+1)*ctxEvery), routes, seed)
		return err
	})
	if err == context.Canceled || err == context.DeadlineExceeded {
		// The pool saw ctx done before a chunk was emitted.
		return fmt.Errorf("parsimon: interrupted: %w", err)
	}
	return err
}

// drawChunk draws the records of flows[lo:hi], on the paths of routes
// if it is not nil, else routed.
func (d *DelayNet) drawChunk(flows []workload.Flow, lo, hi int, routes *Decomposition, seed uint64) ([]metrics.Record, error) {
	recs := make([]metrics.Record, hi-lo)
	var path []int
	pcg := rand.NewPCG(0, 0)
	r := rand.New(pcg)
	for i, f := range flows[lo:hi] {
		if f.Size <= 0 {
			return nil, fmt.Errorf("parsimon: flow %d has size %d bytes; it must be positive", f.ID, f.Size)
		}
		if routes != nil {
			path = path[:0]
			for _, c := range routes.Path(lo + i) {
				path = append(path, int(c))
			}
		} else {
			var err error
			if path, err = d.Net.AppendPath(path[:0], f.ID, f.Src, f.Dst); err != nil {
				return nil, fmt.Errorf("parsimon: %w", err)
			}
		}
		pcg.Seed(seed, uint64(f.ID))
		fct, ideal := d.sample(path, f.Size, r)
		recs[i] = metrics.Record{
			FlowID: f.ID, Src: f.Src, Dst: f.Dst, Size: f.Size, Start: f.Start,
			FCT: fct, Ideal: ideal, Slowdown: float64(fct) / float64(ideal), Class: f.Class,
		}
	}
	return recs, nil
}

// EstimatePair estimates the flows from host src to host dst among flows:
// the source-destination query of Parsimon §3.4.
func (d *DelayNet) EstimatePair(ctx context.Context, flows []workload.Flow, src, dst int, seed uint64) ([]metrics.Record, error) {
	var sel []workload.Flow
	for _, f := range flows {
		if f.Src == src && f.Dst == dst {
			sel = append(sel, f)
		}
	}
	return d.EstimateFlows(ctx, sel, seed)
}

// EstimateClass estimates the flows of one class (a component of a mixed
// workload, Parsimon App. A) among flows.
func (d *DelayNet) EstimateClass(ctx context.Context, flows []workload.Flow, class int, seed uint64) ([]metrics.Record, error) {
	var sel []workload.Flow
	for _, f := range flows {
		if f.Class == class {
			sel = append(sel, f)
		}
	}
	return d.EstimateFlows(ctx, sel, seed)
}
