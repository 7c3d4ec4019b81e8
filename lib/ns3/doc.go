// Package ns3 runs tailscope scenarios in real ns-3 (3.37, Debian's
// libns3-dev) as a packet-level baseline, estimator name "ns3".
//
// The simulation is a C++ program of our own (scenario/scenario.cc, embedded
// in this package) compiled with g++ against the installed libns3 through
// pkg-config. Run writes the scenario's inputs, builds the program when it is
// missing or its source changed, runs it with progress reports and a time
// limit, and reads the flows' completion times back as metrics records.
// `make ns3` installs the Debian packages and builds the program. When
// Debian's libtcmalloc-minimal4 is installed the program runs with it
// preloaded (about 1.3x faster here, identical results).
//
// # The model in ns-3
//
// Every link is a pair of point-to-point devices with the link's rate and
// delay, a one-packet device queue and a RED queue disc set up as a DCTCP
// step marker (instantaneous queue, every packet arriving above K bytes is
// CE-marked at enqueue whatever cfg.ECNMark says, none dropped early;
// K = cfg.KBytesFor(rate) unless Options.KBytes overrides a port's).
// Senders and receivers are ns-3's
// TcpDctcp (window-based, whatever cfg.CC says) with segment size
// cfg.PayloadBytes, an ACK for every segment, initial window
// cfg.DCTCP.InitWindow, gain cfg.DCTCP.G, initial alpha cfg.DCTCP.InitAlpha
// and minimum RTO cfg.DCTCP.MinRTONanos.
//
// Routing is like for like with the other estimators: every flow's path is
// topo.Network.Path (per-flow ECMP), written into the flow file, and a
// routing protocol of our own pins each flow's packets to it, matching them
// by their TCP 4-tuple (every sender uses its own ephemeral port); ACKs take
// the reverse channels. ns-3.37's own ECMP is per packet, which reorders.
// Because paths are explicit, any sub-topology (such as Parsimon's
// link-level ones) runs as it is.
//
// # Finite buffers
//
// cfg.BufferBytes (0: unlimited) is a buffer per port with tail drop, on
// every port, host NICs included, as in packetsim. packetsim counts a
// port's backlog in wire bytes, the untransmitted part of the packet on
// the wire included, and drops a packet that would take it over the
// buffer. In ns-3 a busy port holds the packet on the wire, one packet in
// the device queue and the queue disc's; the queue disc's limit (config
// key buffer_bytes) is therefore cfg.BufferBytes less one data packet on
// the wire (payload + 54 B), and it counts IP bytes (2 B less per packet
// than the wire) without the packet on the wire: an ns-3 port holds up to
// about one packet more than packetsim's. Stock ns-3 has no shared switch
// buffer and no PFC: Simulate refuses both.
//
// Losses are recovered alike, by stock TCP: ns-3's TcpSocketBase has
// SACK, fast retransmit after three duplicate ACKs with PRR and DCTCP's
// ssthresh, and a retransmission timer of srtt + 4 rttvar, at least
// cfg.DCTCP.MinRTONanos, doubled at each timeout; packetsim's window DCTCP
// runs the same recovery when buffers are finite (its package
// documentation and tcp.go say what it simplifies). One difference
// remains: in CWR after an ECN echo ns-3 lets PRR bring the window down,
// where packetsim cuts it at once.
//
// # Differences from the ideal model
//
// A data packet on the wire is payload + 20 B IPv4 + 32 B TCP (20 B and the
// 12 B timestamp option, ns-3's default) + 2 B PPP = payload + 54 B, against
// the 48 B of netcfg; an ACK is 54 B against 60 B. So a long flow alone on
// its path takes about 0.6% longer than metrics.IdealFCT.
//
// Stock ns-3 opens every connection with a SYN handshake, which the papers'
// ns-3 fork does not (its flows start at line rate). tailscope measures the
// FCT from the first data byte sent (when the handshake completes) to the
// last byte received, so Record.FCT and the unchanged metrics.IdealFCT are
// consistent and slowdowns compare with the other estimators; Record.Start
// stays the flow's requested start. The handshake time (start to first
// byte; one RTT unloaded, longer when the SYN queues) is in
// Result.Flows[i].FirstByte - Start. Under load, flows therefore begin up to
// one queueing-inflated RTT after their nominal start.
//
// # Files
//
// All files are text; '#' starts a comment line.
//
// topology.txt:
//
//	node <id> host|switch             ids 0..N-1
//	link <id> <a> <b> <bps> <delay_ns> <k_ab_bytes> <k_ba_bytes>
//
// Link ids are 0, 1, 2, ... in order. Channel 2l runs a->b on link l and
// 2l+1 b->a, as in package topo; k_ab and k_ba are the ECN thresholds of
// the two ports.
//
// config.txt, one "<key> <number>" per line, every key optional:
//
//	payload_bytes     TCP segment size (default 1000)
//	buffer_bytes      per-port queue disc limit in IP bytes, 0 = unlimited
//	                  (default 0)
//	dctcp_g           DCTCP gain (default 0.0625)
//	dctcp_init_alpha  initial alpha (default 1)
//	init_window       initial congestion window, segments (default 10)
//	min_rto_ns        minimum RTO and SYN timeout (default 1000000)
//	stop_ns           run until this simulated time (flows not done by then
//	                  are unfinished); 0 = until the last flow is done
//
// flows.txt, sorted by start:
//
//	flow <id> <src> <dst> <size_bytes> <start_ns> <hops> <channel>...
//
// Output (the program's fourth argument):
//
//	flow <id> <fct_ns> <start_ns> <first_byte_ns> <end_ns> <bytes_received>
//	loss <id> <timeouts> <fast_recoveries>
//	channel <id> <packets> <bytes> <drops> <marks>
//	end events=<n> sim_ns=<t> wall_s=<s> completed=<n> failed=<n> unrouted=<n>
//
// with fct_ns, first_byte_ns and end_ns -1 for a flow that did not finish.
// A loss line follows the flow lines for each flow whose sender entered
// loss recovery between its first and last byte (ns-3's CA_LOSS after a
// timeout, CA_RECOVERY after fast retransmit; repeated timeouts of one
// loss count once).
// Channel counts are IP packets (and their bytes, without the PPP header)
// that arrived at the channel's queue disc. The end line comes last; its
// absence means the output is truncated. While running, the program prints
// "progress sim_ns=<t> done=<n>/<N> events=<n> wall_s=<s>" to stderr about
// once a second.
//
// The program is tailscope-ns3 TOPOLOGY CONFIG FLOWS OUT.
package ns3
