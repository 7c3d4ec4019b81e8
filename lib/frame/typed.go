package frame

import (
	"fmt"
	"sort"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Column names of the typed frames (snake_case, units in the name).
const (
	ColScenarioID = "scenario_id"
	ColEstimator  = "estimator"
	ColFlowID     = "flow_id"
	ColSrc        = "src"
	ColDst        = "dst"
	ColSizeBytes  = "size_bytes"
	ColStartNs    = "start_ns"
	ColFCTNs      = "fct_ns"
	ColIdealFCTNs = "ideal_fct_ns"
	ColSlowdown   = "slowdown"
	ColClass      = "class"
	ColNodeID     = "node_id"
	ColKind       = "kind"
	ColRack       = "rack"
	ColPod        = "pod"
	ColChannelID  = "channel_id"
	ColLinkID     = "link_id"
	ColBandwidth  = "bandwidth_bps"
	ColDelayNs    = "delay_ns"
)

// ints widens an int field of n rows to an int64 column slice.
func ints(n int, get func(i int) int) []int64 {
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(get(i))
	}
	return v
}

// repeat returns n copies of s.
func repeat(s string, n int) []string {
	v := make([]string, n)
	for i := range v {
		v[i] = s
	}
	return v
}

// columns fetches typed columns from a table read from path and keeps the
// first missing or mistyped column as an error naming the file, so that a
// typed reader can fetch all its columns before checking once.
type columns struct {
	t    *Table
	path string
	err  error
}

// get returns column name if it has type typ, else an empty column.
func (c *columns) get(name, typ string) *Column {
	col, err := c.t.typed(name, typ)
	if err != nil {
		if c.err == nil {
			c.err = fmt.Errorf("frame: %s: %w", c.path, err)
		}
		return &Column{}
	}
	return col
}

func (c *columns) int64s(name string) []int64     { return c.get(name, "int64").Int64 }
func (c *columns) float64s(name string) []float64 { return c.get(name, "float64").Float64 }
func (c *columns) strings(name string) []string   { return c.get(name, "string").String }

// RecordsTable returns the FCT records as a table with the columns of
// ARCHITECTURE.md's record shape; scenario_id and estimator repeat
// meta.ScenarioID and meta.Estimator on every row.
func RecordsTable(recs []metrics.Record, meta Meta) *Table {
	n := len(recs)
	size, start, fct, ideal := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	slow := make([]float64, n)
	for i, r := range recs {
		size[i], start[i], fct[i], ideal[i], slow[i] = r.Size, r.Start, r.FCT, r.Ideal, r.Slowdown
	}
	return &Table{Meta: meta, Columns: []Column{
		StringColumn(ColScenarioID, repeat(meta.ScenarioID, n)),
		StringColumn(ColEstimator, repeat(meta.Estimator, n)),
		Int64Column(ColFlowID, ints(n, func(i int) int { return recs[i].FlowID })),
		Int64Column(ColSrc, ints(n, func(i int) int { return recs[i].Src })),
		Int64Column(ColDst, ints(n, func(i int) int { return recs[i].Dst })),
		Int64Column(ColSizeBytes, size),
		Int64Column(ColStartNs, start),
		Int64Column(ColFCTNs, fct),
		Int64Column(ColIdealFCTNs, ideal),
		Float64Column(ColSlowdown, slow),
		Int64Column(ColClass, ints(n, func(i int) int { return recs[i].Class })),
	}}
}

// WriteRecords writes FCT records to path (.parquet or .arrow) with meta as
// provenance.
func WriteRecords(path string, recs []metrics.Record, meta Meta) error {
	return WriteTable(path, RecordsTable(recs, meta))
}

// ReadRecords reads a records frame. Every row's scenario_id and estimator
// must agree with the metadata (or, if the metadata leaves them empty, with
// each other, and then fill it in): a frame mixing scenarios or estimators
// is read with ReadTable instead.
func ReadRecords(path string) ([]metrics.Record, Meta, error) {
	t, err := ReadTable(path)
	if err != nil {
		return nil, Meta{}, err
	}
	c := &columns{t: t, path: path}
	scen, est := c.strings(ColScenarioID), c.strings(ColEstimator)
	id, src, dst := c.int64s(ColFlowID), c.int64s(ColSrc), c.int64s(ColDst)
	size, start, fct, ideal := c.int64s(ColSizeBytes), c.int64s(ColStartNs), c.int64s(ColFCTNs), c.int64s(ColIdealFCTNs)
	slow, class := c.float64s(ColSlowdown), c.int64s(ColClass)
	if c.err != nil {
		return nil, Meta{}, c.err
	}
	meta := t.Meta
	for _, u := range []struct {
		col  string
		vals []string
		meta *string
	}{{ColScenarioID, scen, &meta.ScenarioID}, {ColEstimator, est, &meta.Estimator}} {
		if *u.meta == "" && len(u.vals) > 0 {
			*u.meta = u.vals[0]
		}
		for i, v := range u.vals {
			if v != *u.meta {
				return nil, Meta{}, fmt.Errorf("frame: %s: row %d has %s %q but the frame is for %q; read frames that mix them with ReadTable",
					path, i, u.col, v, *u.meta)
			}
		}
	}
	recs := make([]metrics.Record, t.Len())
	for i := range recs {
		recs[i] = metrics.Record{
			FlowID: int(id[i]), Src: int(src[i]), Dst: int(dst[i]),
			Size: size[i], Start: start[i], FCT: fct[i], Ideal: ideal[i],
			Slowdown: slow[i], Class: int(class[i]),
		}
	}
	return recs, meta, nil
}

// FlowsTable returns flows as a table: flow_id, src, dst, size_bytes,
// start_ns, class.
func FlowsTable(flows []workload.Flow, meta Meta) *Table {
	n := len(flows)
	size, start := make([]int64, n), make([]int64, n)
	for i, f := range flows {
		size[i], start[i] = f.Size, f.Start
	}
	return &Table{Meta: meta, Columns: []Column{
		Int64Column(ColFlowID, ints(n, func(i int) int { return flows[i].ID })),
		Int64Column(ColSrc, ints(n, func(i int) int { return flows[i].Src })),
		Int64Column(ColDst, ints(n, func(i int) int { return flows[i].Dst })),
		Int64Column(ColSizeBytes, size),
		Int64Column(ColStartNs, start),
		Int64Column(ColClass, ints(n, func(i int) int { return flows[i].Class })),
	}}
}

// WriteFlows writes a workload's flows to path (.parquet or .arrow).
func WriteFlows(path string, flows []workload.Flow, meta Meta) error {
	return WriteTable(path, FlowsTable(flows, meta))
}

// ReadFlows reads a flows frame.
func ReadFlows(path string) ([]workload.Flow, Meta, error) {
	t, err := ReadTable(path)
	if err != nil {
		return nil, Meta{}, err
	}
	c := &columns{t: t, path: path}
	id, src, dst := c.int64s(ColFlowID), c.int64s(ColSrc), c.int64s(ColDst)
	size, start, class := c.int64s(ColSizeBytes), c.int64s(ColStartNs), c.int64s(ColClass)
	if c.err != nil {
		return nil, Meta{}, c.err
	}
	flows := make([]workload.Flow, t.Len())
	for i := range flows {
		flows[i] = workload.Flow{ID: int(id[i]), Src: int(src[i]), Dst: int(dst[i]),
			Size: size[i], Start: start[i], Class: int(class[i])}
	}
	return flows, t.Meta, nil
}

// NodesTable returns a network's nodes as a table: node_id, kind ("Host" or
// "Switch"), rack, pod.
func NodesTable(net *topo.Network, meta Meta) *Table {
	nd := net.Nodes
	kind := make([]string, len(nd))
	for i := range nd {
		kind[i] = nd[i].Kind.String()
	}
	return &Table{Meta: meta, Columns: []Column{
		Int64Column(ColNodeID, ints(len(nd), func(i int) int { return nd[i].ID })),
		StringColumn(ColKind, kind),
		Int64Column(ColRack, ints(len(nd), func(i int) int { return nd[i].Rack })),
		Int64Column(ColPod, ints(len(nd), func(i int) int { return nd[i].Pod })),
	}}
}

// ChannelsTable returns a network's directed channels as a table:
// channel_id, link_id, src, dst, bandwidth_bps, delay_ns. Per-channel
// results (link loads) join it on channel_id.
func ChannelsTable(net *topo.Network, meta Meta) *Table {
	ch := net.Channels
	n := len(ch)
	bw, delay := make([]int64, n), make([]int64, n)
	for i, c := range ch {
		bw[i], delay[i] = c.Bandwidth, c.Delay
	}
	return &Table{Meta: meta, Columns: []Column{
		Int64Column(ColChannelID, ints(n, func(i int) int { return ch[i].ID })),
		Int64Column(ColLinkID, ints(n, func(i int) int { return ch[i].Link })),
		Int64Column(ColSrc, ints(n, func(i int) int { return ch[i].Src })),
		Int64Column(ColDst, ints(n, func(i int) int { return ch[i].Dst })),
		Int64Column(ColBandwidth, bw),
		Int64Column(ColDelayNs, delay),
	}}
}

// Column names of ChannelStatsTable beyond ColChannelID.
const (
	ColPackets     = "packets"
	ColWireBytes   = "wire_bytes"
	ColQueueNs     = "queue_ns"
	ColDrops       = "drops"
	ColPauseFrames = "pause_frames"
	ColPausedNs    = "paused_ns"
)

// ChannelStats is a packet simulator's per-channel counts (packetsim's
// Result fields of the same names), each indexed by channel id: packets
// and wire bytes put on the channel, the summed wait of those packets at
// its port (ns), packets dropped there, PFC pause frames sent to its
// transmitter and the time the transmitter spent paused (ns).
type ChannelStats struct {
	Packets, WireBytes    []int64
	QueueNs               []float64
	Drops                 []int64
	PauseFrames, PausedNs []int64
}

// ChannelStatsTable returns s as a table, one row per channel: channel_id,
// packets, wire_bytes, queue_ns, drops, pause_frames, paused_ns. It joins
// ChannelsTable (the topology) on channel_id. The slices must have one
// length; a nil slice (a run without drops or PFC) is a column of zeros.
func ChannelStatsTable(s ChannelStats, meta Meta) (*Table, error) {
	n := len(s.Packets)
	ints := [][]int64{s.WireBytes, s.Drops, s.PauseFrames, s.PausedNs}
	for i, c := range ints {
		if c == nil {
			ints[i] = make([]int64, n)
		} else if len(c) != n {
			return nil, fmt.Errorf("frame: channel stats of %d and %d channels", n, len(c))
		}
	}
	queue := s.QueueNs
	if queue == nil {
		queue = make([]float64, n)
	} else if len(queue) != n {
		return nil, fmt.Errorf("frame: channel stats of %d and %d channels", n, len(queue))
	}
	id := make([]int64, n)
	for c := range id {
		id[c] = int64(c)
	}
	return &Table{Meta: meta, Columns: []Column{
		Int64Column(ColChannelID, id),
		Int64Column(ColPackets, s.Packets),
		Int64Column(ColWireBytes, ints[0]),
		Float64Column(ColQueueNs, queue),
		Int64Column(ColDrops, ints[1]),
		Int64Column(ColPauseFrames, ints[2]),
		Int64Column(ColPausedNs, ints[3]),
	}}, nil
}

// WriteTopology writes net's nodes and channels to two files, with
// meta.Network set to the network's name. A topology frame describes links
// in service, so a network with failed links is refused rather than written
// as if they were up.
func WriteTopology(nodesPath, channelsPath string, net *topo.Network, meta Meta) error {
	for l := range net.Links {
		if net.Failed(l) {
			return fmt.Errorf("frame: network %s has failed link %d; restore it before writing the topology (record failures in the scenario spec)", net.Name, l)
		}
	}
	meta.Network = net.Name
	if err := WriteTable(nodesPath, NodesTable(net, meta)); err != nil {
		return err
	}
	return WriteTable(channelsPath, ChannelsTable(net, meta))
}

// ReadTopology rebuilds a routable network from a nodes and a channels frame
// (as written by WriteTopology): channels 2l and 2l+1 must be the two
// directions of link l. The network's name and the returned metadata come
// from the nodes frame.
func ReadTopology(nodesPath, channelsPath string) (*topo.Network, Meta, error) {
	nt, err := ReadTable(nodesPath)
	if err != nil {
		return nil, Meta{}, err
	}
	ct, err := ReadTable(channelsPath)
	if err != nil {
		return nil, Meta{}, err
	}
	if nt.Meta.Network != ct.Meta.Network {
		return nil, Meta{}, fmt.Errorf("frame: nodes frame %s is for network %q but channels frame %s is for %q",
			nodesPath, nt.Meta.Network, channelsPath, ct.Meta.Network)
	}
	c := &columns{t: nt, path: nodesPath}
	nodeID, kind, rack, pod := c.int64s(ColNodeID), c.strings(ColKind), c.int64s(ColRack), c.int64s(ColPod)
	if c.err != nil {
		return nil, Meta{}, c.err
	}
	nodes := make([]topo.Node, nt.Len())
	for i := range nodes {
		k, err := topo.ParseKind(kind[i])
		if err != nil {
			return nil, Meta{}, fmt.Errorf("frame: %s: row %d: %w", nodesPath, i, err)
		}
		nodes[i] = topo.Node{ID: int(nodeID[i]), Kind: k, Rack: int(rack[i]), Pod: int(pod[i])}
	}
	links, err := linksFrom(ct, channelsPath)
	if err != nil {
		return nil, Meta{}, err
	}
	net, err := topo.New(nt.Meta.Network, nodes, links)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("frame: %s, %s: %w", nodesPath, channelsPath, err)
	}
	return net, nt.Meta, nil
}

// linksFrom pairs the channels of a channels frame (in any row order) into
// links, checking that each pair is one link's two directions.
func linksFrom(t *Table, path string) ([]topo.Link, error) {
	c := &columns{t: t, path: path}
	id, link, src, dst := c.int64s(ColChannelID), c.int64s(ColLinkID), c.int64s(ColSrc), c.int64s(ColDst)
	bw, delay := c.int64s(ColBandwidth), c.int64s(ColDelayNs)
	if c.err != nil {
		return nil, c.err
	}
	n := t.Len()
	if n%2 != 0 {
		return nil, fmt.Errorf("frame: %s: %d channels; links have two each", path, n)
	}
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	sort.Slice(rows, func(a, b int) bool { return id[rows[a]] < id[rows[b]] })
	links := make([]topo.Link, n/2)
	for l := range links {
		a, b := rows[2*l], rows[2*l+1]
		switch {
		case id[a] != int64(2*l) || id[b] != int64(2*l+1):
			return nil, fmt.Errorf("frame: %s: channel ids must be 0..%d, each once; found %d and %d where %d and %d belong",
				path, n-1, id[a], id[b], 2*l, 2*l+1)
		case link[a] != int64(l) || link[b] != int64(l):
			return nil, fmt.Errorf("frame: %s: channels %d and %d must belong to link %d (have link_id %d and %d)",
				path, 2*l, 2*l+1, l, link[a], link[b])
		case src[a] != dst[b] || dst[a] != src[b]:
			return nil, fmt.Errorf("frame: %s: channel %d (%d->%d) is not the reverse of channel %d (%d->%d)",
				path, 2*l+1, src[b], dst[b], 2*l, src[a], dst[a])
		case bw[a] != bw[b] || delay[a] != delay[b]:
			return nil, fmt.Errorf("frame: %s: the two directions of link %d differ in bandwidth or delay (%d/%d bps, %d/%d ns)",
				path, l, bw[a], bw[b], delay[a], delay[b])
		}
		links[l] = topo.Link{ID: l, A: int(src[a]), B: int(dst[a]), Bandwidth: bw[a], Delay: delay[a]}
	}
	return links, nil
}
