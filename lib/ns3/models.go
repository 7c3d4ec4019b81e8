package ns3

import (
	"fmt"

	"github.com/tailscope/tailscope/lib/netcfg"
)

// Models returns nil if stock ns-3, as this package runs it, models cfg,
// else an error naming the setting it would ignore: its senders are
// always TcpDctcp (window-based, cc "dctcp-window"), its RED queue
// discs always mark at enqueue (ecn_mark "enqueue") and its host NICs are
// FIFO queues (host_nic "fifo"), as the network preset
// "ns3" (netcfg.NS3) says. The Run function itself runs whatever it is
// given (its benchmarks compare it with the papers' model on purpose);
// the estimators ns3 and parsimon-ns3 refuse what Models refuses.
func Models(cfg netcfg.Config) error {
	switch {
	case cfg.CC != "dctcp-window":
		return fmt.Errorf("ns3: stock ns-3 runs window-based DCTCP (TcpDctcp), not congestion control %q: set cc \"dctcp-window\" (network preset \"ns3\") or use packetsim", cfg.CC)
	case cfg.ECNMark != "enqueue":
		return fmt.Errorf("ns3: stock ns-3's RED queue disc marks ECN at enqueue, not at %s: set ecn_mark \"enqueue\" (network preset \"ns3\") or use packetsim", cfg.ECNMark)
	case !cfg.HostFIFO():
		return fmt.Errorf("ns3: stock ns-3's host NIC is a FIFO queue, not round-robin across flows: set host_nic %q (network preset \"ns3\") or use packetsim", netcfg.HostNICFIFO)
	}
	return supported(cfg)
}
