package parsimon

import (
	"context"
	"fmt"

	"github.com/tailscope/tailscope/lib/linksim"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/ns3"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Backends names the link-level backends BackendByName knows, the default
// first.
var Backends = []string{"linksim", "packetsim", "ns3"}

// BackendByName returns the backend named in Backends.
func BackendByName(name string) (Backend, error) {
	switch name {
	case "linksim":
		return LinkSim, nil
	case "packetsim":
		return Packetsim, nil
	case "ns3":
		return NS3, nil
	}
	return nil, fmt.Errorf("parsimon: unknown link-level backend %q (known: %v)", name, Backends)
}

// LinkSim is the default link-level backend: lib/linksim, the dedicated
// link-level simulator of Parsimon §4.1, which simulates the target
// channel's queue and the sources' first hops and takes the downstream
// hops and ACKs as fixed delays. It runs every congestion control of
// netcfg (DCQCN's RED marking drawing from a stream seeded with the
// target channel) and stops once ctx is done.
func LinkSim(ctx context.Context, t *Task) ([]metrics.Record, error) {
	l, flows, err := t.link()
	if err != nil {
		return nil, err
	}
	res, err := linksim.Run(ctx, l, flows, t.Config, linksim.Options{Seed: uint64(t.Channel)})
	if err != nil {
		return nil, err
	}
	recs := make([]metrics.Record, len(flows))
	for i, f := range t.Flows {
		recs[i] = metrics.Record{FlowID: f.ID, FCT: res.FCT[i]}
	}
	return recs, nil
}

// Packetsim is the general link-level backend: lib/packetsim run to
// completion on the task's topology (Task.Network) with the target port's
// ECN threshold, its random draws (DCQCN's RED marking) seeded with the
// target channel as LinkSim's are.
func Packetsim(ctx context.Context, t *Task) ([]metrics.Record, error) {
	net, err := t.Network(false)
	if err != nil {
		return nil, err
	}
	res, err := packetsim.Run(ctx, net, t.Flows, t.Config, packetsim.Options{KBytes: map[int]int64{0: t.KBytes}, Seed: uint64(t.Channel)})
	if err != nil {
		return nil, err
	}
	return res.Records, nil
}

// NS3 is the ns-3 link-level backend (Parsimon/ns-3): lib/ns3 run to
// completion on the task's topology with the target port's ECN threshold.
func NS3(ctx context.Context, t *Task) ([]metrics.Record, error) {
	net, err := t.Network(false)
	if err != nil {
		return nil, err
	}
	return ns3.Run(ctx, net, t.Flows, t.Config, ns3.Options{KBytes: map[int]int64{0: t.KBytes}})
}

// link is the task as a linksim link: link 0 (node 0 to node 1) is the
// target, links into node 0 the sources' first hops, links out of node 1
// the destinations' hops; flows' endpoints become indices among those.
func (t *Task) link() (linksim.Link, []workload.Flow, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("parsimon: task of channel %d: %s", t.Channel, fmt.Sprintf(format, a...))
	}
	if len(t.Links) == 0 || t.Links[0].A != 0 || t.Links[0].B != 1 {
		return linksim.Link{}, nil, bad("link 0 must be the target, node 0 to node 1")
	}
	hop := func(l TaskLink) linksim.Hop { return linksim.Hop{Bandwidth: l.Bandwidth, Delay: l.Delay} }
	l := linksim.Link{Target: hop(t.Links[0]), KBytes: t.KBytes}
	src, dst := map[int]int{}, map[int]int{}
	for _, tl := range t.Links[1:] {
		switch {
		case tl.B == 0 && tl.A > 1:
			src[tl.A] = len(l.Sources)
			l.Sources = append(l.Sources, hop(tl))
		case tl.A == 1 && tl.B > 1:
			dst[tl.B] = len(l.Dests)
			l.Dests = append(l.Dests, hop(tl))
		default:
			return linksim.Link{}, nil, bad("link %d-%d neither feeds node 0 nor leaves node 1", tl.A, tl.B)
		}
	}
	flows := make([]workload.Flow, len(t.Flows))
	for i, f := range t.Flows {
		s, okS := src[f.Src]
		d, okD := dst[f.Dst]
		if len(l.Sources) == 0 {
			s, okS = 0, f.Src == 0
		}
		if len(l.Dests) == 0 {
			d, okD = 0, f.Dst == 1
		}
		if !okS || !okD {
			return linksim.Link{}, nil, bad("flow %d from node %d to node %d does not cross the target from a source to a destination", f.ID, f.Src, f.Dst)
		}
		f.Src, f.Dst = s, d
		flows[i] = f
	}
	return l, flows, nil
}

// Models returns nil if the named link-level backend models cfg, else an
// error saying what it cannot run. linksim answers for itself (a run on
// a link without flows goes through the same checks as every link
// simulation); packetsim runs every configuration a link-level topology
// can hold (no shared buffers or PFC); ns3 only stock ns-3's
// (ns3.Models).
func Models(backend string, cfg netcfg.Config) error {
	switch backend {
	case "linksim":
		probe := linksim.Link{Target: linksim.Hop{Bandwidth: 10 * topo.Gbps, Delay: topo.Microsecond}, KBytes: cfg.KBytesFor(10 * topo.Gbps)}
		_, err := linksim.Run(context.Background(), probe, nil, cfg, linksim.Options{})
		return err
	case "packetsim":
		return linkLevel(cfg)
	case "ns3":
		return ns3.Models(cfg)
	}
	_, err := BackendByName(backend)
	return err
}
