package packetsim

import "github.com/tailscope/tailscope/lib/frame"

// Column names of ChannelsTable beyond frame.ColChannelID.
const (
	ColPackets     = "packets"
	ColWireBytes   = "wire_bytes"
	ColQueueNs     = "queue_ns"
	ColDrops       = "drops"
	ColPauseFrames = "pause_frames"
	ColPausedNs    = "paused_ns"
)

// ChannelsTable returns the run's per-channel counts as a frame, one row
// per channel: channel_id, packets and wire bytes put on it, the summed
// wait of those packets at its port (ns), packets dropped there, PFC
// pause frames sent to its transmitter and the time it spent paused (ns).
// It joins frame.ChannelsTable (the topology) on channel_id.
func (r *Result) ChannelsTable(meta frame.Meta) *frame.Table {
	n := len(r.ChannelBytes)
	id := make([]int64, n)
	for c := range id {
		id[c] = int64(c)
	}
	return &frame.Table{Meta: meta, Columns: []frame.Column{
		frame.Int64Column(frame.ColChannelID, id),
		frame.Int64Column(ColPackets, r.ChannelPackets),
		frame.Int64Column(ColWireBytes, r.ChannelBytes),
		frame.Float64Column(ColQueueNs, r.ChannelQueueNanos),
		frame.Int64Column(ColDrops, r.ChannelDrops),
		frame.Int64Column(ColPauseFrames, r.ChannelPauses),
		frame.Int64Column(ColPausedNs, r.ChannelPausedNanos),
	}}
}
