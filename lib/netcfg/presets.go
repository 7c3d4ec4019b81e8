package netcfg

// NS3 is the network model of stock ns-3 (3.37) as tailscope's ns-3
// baseline runs it: Default with the header and ACK sizes ns-3's packets
// have on the wire (20 B IPv4, 32 B TCP with timestamps, 2 B PPP) and
// window-based DCTCP, as ns-3's TcpDctcp, marked at enqueue, as ns-3's
// RED queue disc marks.
func NS3() Config {
	cfg := Default()
	cfg.HeaderBytes, cfg.AckBytes, cfg.CC = 54, 54, "dctcp-window"
	cfg.ECNMark = "enqueue"
	return cfg
}
