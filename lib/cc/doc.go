// Package cc holds the congestion control of tailscope's packet-level and
// link-level simulators (lib/packetsim, lib/linksim): the CC interface a
// simulator drives for every flow, the controllers behind it (rate- and
// window-based DCTCP, DCQCN, TIMELY, HPCC), and what the network adds for
// them at switch ports: DCQCN's RED-style ECN marking (RED) and HPCC's
// in-band telemetry records (INTHop).
//
// A controller knows nothing of the simulator that drives it. Before
// every data packet the simulator asks it for a pacing rate and a window;
// it tells it about every ACK (Ack) and retransmission timeout. Optional
// interfaces add what some algorithms need: BaseRTTSetter (HPCC's T),
// Clocked (DCQCN's timers, evaluated lazily at the next send or ACK) and
// INTReader (HPCC's INT records, echoed by the receiver). ByName maps the
// names of netcfg.CCs to constructors; a simulator's options accept any
// other NewCC, so a user can drive the same simulators with a controller
// of their own.
//
// Times are integer picoseconds, sequence numbers payload bytes and rates
// bits per second, as in the simulators.
package cc
