// tailscope-ns3: runs one tailscope scenario in ns-3 (3.37, Debian's
// libns3-dev) and writes every flow's completion time.
//
//   tailscope-ns3 TOPOLOGY CONFIG FLOWS OUT
//
// The file formats are documented in lib/ns3/doc.go. In short: the topology
// lists nodes and links (rate, delay, ECN threshold K per link), the config
// holds the TCP and queue settings, and every flow carries the channels of
// its path, which a routing protocol of our own (PinnedRouting) follows
// packet by packet: ns-3.37 has no per-flow-hash ECMP, and pinning the path
// the Go side chose makes the comparison with the other estimators like for
// like and lets any sub-topology run.
//
// Links are point-to-point devices with a one-packet device queue under a
// RED queue disc configured as a DCTCP step marker; senders and receivers
// are ns-3's TcpDctcp.

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

using namespace ns3;

namespace
{

// The port every receiver listens on; senders use ns-3's ephemeral ports,
// so a flow's 4-tuple is unique among live connections.
const uint16_t kPort = 5000;

[[noreturn]] void
Fail(const std::string& msg)
{
    std::fprintf(stderr, "tailscope-ns3: %s\n", msg.c_str());
    std::exit(2);
}

struct LinkSpec
{
    uint32_t a, b;
    uint64_t bps;
    int64_t delayNs;
    uint64_t kBytes[2]; // ECN threshold of the a->b and b->a ports
};

// Chan is one direction of a link as ns-3 sees it.
struct Chan
{
    uint32_t src, dst;   // node ids
    Ptr<Ipv4Route> route; // cached: out of src's device toward dst
    Ptr<QueueDisc> qdisc; // the RED queue disc on src's device
};

struct Flow
{
    int64_t id;
    uint32_t src, dst;
    uint64_t size;
    int64_t start;
    std::vector<uint32_t> fwd, rev; // channels, data and ACK direction
    Ipv4Address srcAddr, dstAddr;
    // Outcome.
    int64_t firstByte = -1, end = -1;
    uint64_t queued = 0, rx = 0;
    bool failed = false;
    // Sender's loss recoveries between its first and last byte: timeouts
    // and fast retransmits.
    uint32_t timeouts = 0, fastRecoveries = 0;
};

struct Settings
{
    uint32_t payload = 1000;
    uint64_t bufferBytes = 0; // 0: effectively infinite
    double dctcpG = 1.0 / 16;
    double dctcpInitAlpha = 1;
    uint32_t initWindow = 10;
    int64_t minRtoNs = 1000000;
    int64_t stopNs = 0; // 0: run until every flow completes
};

std::vector<bool> g_isHost;
std::vector<Chan> g_chans;
std::vector<Flow> g_flows;
uint32_t g_done = 0, g_failed = 0;
uint64_t g_unrouted = 0;
int64_t g_connecting = -1; // the flow whose socket is connecting right now
int64_t g_stopNs = 0;

// FlowKey is a TCP 4-tuple; the table maps it to flow index*2 + direction
// (0 data, 1 ACK).
struct FlowKey
{
    uint64_t addrs, ports;
    bool operator==(const FlowKey& o) const
    {
        return addrs == o.addrs && ports == o.ports;
    }
};

struct FlowKeyHash
{
    size_t operator()(const FlowKey& k) const
    {
        uint64_t x = k.addrs * 0x9E3779B97F4A7C15ULL ^ k.ports;
        x ^= x >> 31;
        return x * 0xBF58476D1CE4E5B9ULL;
    }
};

std::unordered_map<FlowKey, uint32_t, FlowKeyHash> g_table;

FlowKey
MakeKey(Ipv4Address src, Ipv4Address dst, uint16_t sport, uint16_t dport)
{
    return FlowKey{uint64_t(src.Get()) << 32 | dst.Get(), uint64_t(sport) << 16 | dport};
}

// PinnedRouting forwards every packet of a flow along the channels the
// flow file gave it, looked up by the packet's 4-tuple.
class PinnedRouting : public Ipv4RoutingProtocol
{
  public:
    explicit PinnedRouting(uint32_t node)
        : m_node(node)
    {
    }

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override
    {
        int64_t ch = -1;
        if (!p)
        {
            // A connecting socket asks for its source address; the packet
            // (and so the port) does not exist yet.
            if (g_connecting >= 0 && g_flows[g_connecting].src == m_node)
            {
                ch = g_flows[g_connecting].fwd.front();
            }
        }
        else
        {
            ch = Lookup(p, header);
        }
        if (ch < 0)
        {
            g_unrouted++;
            sockerr = Socket::ERROR_NOROUTETOHOST;
            return nullptr;
        }
        sockerr = Socket::ERROR_NOTERROR;
        return g_chans[ch].route;
    }

    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    UnicastForwardCallback ucb,
                    MulticastForwardCallback mcb,
                    LocalDeliverCallback lcb,
                    ErrorCallback ecb) override
    {
        // Hosts never forward and switches never terminate a flow, so only
        // hosts pay for the address check (a scan of all interfaces).
        if (g_isHost[m_node])
        {
            uint32_t iif = m_ipv4->GetInterfaceForDevice(idev);
            if (m_ipv4->IsDestinationAddress(header.GetDestination(), iif))
            {
                lcb(p, header, iif);
                return true;
            }
            g_unrouted++;
            return false;
        }
        int64_t ch = Lookup(p, header);
        if (ch < 0)
        {
            g_unrouted++;
            return false;
        }
        ucb(g_chans[ch].route, p, header);
        return true;
    }

    void NotifyInterfaceUp(uint32_t) override
    {
    }

    void NotifyInterfaceDown(uint32_t) override
    {
    }

    void NotifyAddAddress(uint32_t, Ipv4InterfaceAddress) override
    {
    }

    void NotifyRemoveAddress(uint32_t, Ipv4InterfaceAddress) override
    {
    }

    void SetIpv4(Ptr<Ipv4> ipv4) override
    {
        m_ipv4 = ipv4;
    }

    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit) const override
    {
        *stream->GetStream() << "PinnedRouting: per-flow paths from the flow file\n";
    }

  private:
    // Lookup returns the channel that leaves this node on the path of the
    // packet's flow, or -1.
    int64_t Lookup(Ptr<const Packet> p, const Ipv4Header& header) const
    {
        if (header.GetProtocol() != TcpL4Protocol::PROT_NUMBER || p->GetSize() < 4)
        {
            return -1;
        }
        uint8_t b[4];
        p->CopyData(b, 4);
        uint16_t sport = uint16_t(b[0]) << 8 | b[1];
        uint16_t dport = uint16_t(b[2]) << 8 | b[3];
        auto it = g_table.find(MakeKey(header.GetSource(), header.GetDestination(), sport, dport));
        if (it == g_table.end())
        {
            return -1;
        }
        const Flow& f = g_flows[it->second >> 1];
        for (uint32_t c : (it->second & 1) ? f.rev : f.fwd)
        {
            if (g_chans[c].src == m_node)
            {
                return c;
            }
        }
        return -1;
    }

    uint32_t m_node;
    Ptr<Ipv4> m_ipv4;
};

class PinnedRoutingHelper : public Ipv4RoutingHelper
{
  public:
    PinnedRoutingHelper* Copy() const override
    {
        return new PinnedRoutingHelper(*this);
    }

    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override
    {
        return ns3::Create<PinnedRouting>(node->GetId());
    }
};

// Reading the input files.

// Lines returns the non-empty, non-comment lines of a file with their
// line numbers.
std::vector<std::pair<int, std::string>>
Lines(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        Fail("cannot open " + path);
    }
    std::vector<std::pair<int, std::string>> out;
    std::string line;
    for (int n = 1; std::getline(in, line); n++)
    {
        size_t i = line.find_first_not_of(" \t\r");
        if (i == std::string::npos || line[i] == '#')
        {
            continue;
        }
        out.emplace_back(n, line);
    }
    return out;
}

[[noreturn]] void
BadLine(const std::string& path, int n, const std::string& why)
{
    Fail(path + ":" + std::to_string(n) + ": " + why);
}

void
ReadTopology(const std::string& path, std::vector<LinkSpec>& links)
{
    std::map<uint32_t, bool> nodes;
    for (auto& [n, line] : Lines(path))
    {
        std::istringstream w(line);
        std::string kw;
        w >> kw;
        if (kw == "node")
        {
            uint32_t id;
            std::string kind;
            if (!(w >> id >> kind) || (kind != "host" && kind != "switch"))
            {
                BadLine(path, n, "want: node <id> host|switch");
            }
            if (nodes.count(id))
            {
                BadLine(path, n, "duplicate node " + std::to_string(id));
            }
            nodes[id] = kind == "host";
        }
        else if (kw == "link")
        {
            uint32_t id;
            LinkSpec l;
            if (!(w >> id >> l.a >> l.b >> l.bps >> l.delayNs >> l.kBytes[0] >> l.kBytes[1]))
            {
                BadLine(path, n, "want: link <id> <a> <b> <bps> <delay_ns> <k_ab_bytes> <k_ba_bytes>");
            }
            if (id != links.size())
            {
                BadLine(path, n, "link ids must be 0, 1, 2, ... in order");
            }
            if (l.bps == 0 || l.delayNs < 0 || l.a == l.b)
            {
                BadLine(path, n, "link needs a positive rate, a delay >= 0 and two distinct nodes");
            }
            links.push_back(l);
        }
        else
        {
            BadLine(path, n, "unknown keyword " + kw + " (want node or link)");
        }
    }
    g_isHost.assign(nodes.size(), false);
    for (auto& [id, host] : nodes)
    {
        if (id >= nodes.size())
        {
            Fail(path + ": node ids must be 0.." + std::to_string(nodes.size() - 1));
        }
        g_isHost[id] = host;
    }
    for (size_t i = 0; i < links.size(); i++)
    {
        if (links[i].a >= nodes.size() || links[i].b >= nodes.size())
        {
            Fail(path + ": link " + std::to_string(i) + " names a node that does not exist");
        }
    }
}

Settings
ReadConfig(const std::string& path)
{
    Settings c;
    for (auto& [n, line] : Lines(path))
    {
        std::istringstream w(line);
        std::string key;
        double v;
        if (!(w >> key >> v))
        {
            BadLine(path, n, "want: <key> <number>");
        }
        if (key == "payload_bytes" && v >= 1)
            c.payload = uint32_t(v);
        else if (key == "buffer_bytes" && v >= 0)
            c.bufferBytes = uint64_t(v);
        else if (key == "dctcp_g" && v > 0 && v <= 1)
            c.dctcpG = v;
        else if (key == "dctcp_init_alpha" && v >= 0 && v <= 1)
            c.dctcpInitAlpha = v;
        else if (key == "init_window" && v >= 1)
            c.initWindow = uint32_t(v);
        else if (key == "min_rto_ns" && v > 0)
            c.minRtoNs = int64_t(v);
        else if (key == "stop_ns" && v >= 0)
            c.stopNs = int64_t(v);
        else
            BadLine(path, n, "unknown key or value out of range: " + line);
    }
    return c;
}

void
ReadFlows(const std::string& path)
{
    int64_t last = 0;
    for (auto& [n, line] : Lines(path))
    {
        std::istringstream w(line);
        std::string kw;
        Flow f;
        uint32_t hops;
        if (!(w >> kw >> f.id >> f.src >> f.dst >> f.size >> f.start >> hops) || kw != "flow")
        {
            BadLine(path, n, "want: flow <id> <src> <dst> <size> <start_ns> <hops> <channel>...");
        }
        if (f.size == 0 || f.start < last || hops == 0)
        {
            BadLine(path, n, "flows need a positive size, a path, and starts in order");
        }
        last = f.start;
        uint32_t at = f.src;
        for (uint32_t i = 0; i < hops; i++)
        {
            uint32_t c;
            if (!(w >> c) || c >= g_chans.size() || g_chans[c].src != at)
            {
                BadLine(path, n, "path is not a chain of channels from src to dst");
            }
            f.fwd.push_back(c);
            at = g_chans[c].dst;
        }
        if (at != f.dst || !g_isHost[f.src] || !g_isHost[f.dst])
        {
            BadLine(path, n, "path must lead from host src to host dst");
        }
        for (auto it = f.fwd.rbegin(); it != f.fwd.rend(); ++it)
        {
            f.rev.push_back(*it ^ 1);
        }
        g_flows.push_back(std::move(f));
    }
}

// Running the flows.

void Push(uint32_t i, Ptr<Socket> s, uint32_t);

void
Connected(uint32_t i, Ptr<Socket> s)
{
    // FCTs run from the first data byte, which leaves now: the handshake is
    // reported separately (start to first byte).
    g_flows[i].firstByte = Simulator::Now().GetNanoSeconds();
    s->SetSendCallback(MakeBoundCallback(&Push, i));
    Push(i, s, 0);
}

void
Push(uint32_t i, Ptr<Socket> s, uint32_t)
{
    Flow& f = g_flows[i];
    while (f.queued < f.size)
    {
        uint64_t n = std::min<uint64_t>(f.size - f.queued, s->GetTxAvailable());
        if (n == 0 || s->Send(Create<Packet>(n)) < 0)
        {
            return;
        }
        f.queued += n;
    }
    s->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
    s->Close();
}

// CheckAllEnded stops the run once every flow finished or failed, unless
// there is a stop time: then the run goes on to it, so that closing
// handshakes drain.
void
CheckAllEnded()
{
    if (g_done + g_failed == g_flows.size() && g_stopNs == 0)
    {
        Simulator::Stop();
    }
}

void
Failed(uint32_t i, Ptr<Socket>)
{
    if (!g_flows[i].failed && g_flows[i].end < 0)
    {
        g_flows[i].failed = true;
        g_failed++;
        std::fprintf(stderr, "tailscope-ns3: flow %" PRId64 " failed (connection error)\n", g_flows[i].id);
        CheckAllEnded();
    }
}

void
Received(uint32_t i, Ptr<Socket> s)
{
    Flow& f = g_flows[i];
    while (Ptr<Packet> p = s->Recv())
    {
        f.rx += p->GetSize();
    }
    if (f.end < 0 && f.rx >= f.size)
    {
        f.end = Simulator::Now().GetNanoSeconds();
        s->Close();
        g_done++;
        CheckAllEnded();
    }
}

void
Accepted(Ptr<Socket> s, const Address& from)
{
    Address local;
    s->GetSockName(local);
    InetSocketAddress peer = InetSocketAddress::ConvertFrom(from);
    auto it = g_table.find(MakeKey(peer.GetIpv4(),
                                   InetSocketAddress::ConvertFrom(local).GetIpv4(),
                                   peer.GetPort(),
                                   kPort));
    if (it == g_table.end() || (it->second & 1))
    {
        Fail("accepted a connection that belongs to no flow");
    }
    s->SetRecvCallback(MakeBoundCallback(&Received, it->second >> 1));
}

std::vector<Ptr<Socket>> g_listeners;

void
Listen(Ptr<Node> node)
{
    Ptr<Socket> l = Socket::CreateSocket(node, TcpSocketFactory::GetTypeId());
    if (l->Bind(InetSocketAddress(Ipv4Address::GetAny(), kPort)) < 0 || l->Listen() < 0)
    {
        Fail("cannot listen on node " + std::to_string(node->GetId()));
    }
    l->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                         MakeCallback(&Accepted));
    g_listeners.push_back(l);
}

// CongState counts a flow's entries into loss recovery while it runs.
void
CongState(uint32_t i, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    Flow& f = g_flows[i];
    if (f.firstByte < 0 || f.end >= 0)
    {
        return;
    }
    if (now == TcpSocketState::CA_LOSS)
    {
        f.timeouts++;
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        f.fastRecoveries++;
    }
}

void
Start(uint32_t i)
{
    Flow& f = g_flows[i];
    Ptr<Socket> s = Socket::CreateSocket(NodeList::GetNode(f.src), TcpSocketFactory::GetTypeId());
    Address local;
    if (s->Bind(InetSocketAddress(f.srcAddr, 0)) < 0 || s->GetSockName(local) < 0)
    {
        Fail("cannot bind flow " + std::to_string(f.id) + " (out of ports?)");
    }
    uint16_t sport = InetSocketAddress::ConvertFrom(local).GetPort();
    // The port is reused only after the previous connection on it closed,
    // so overwriting a stale entry is safe.
    g_table[MakeKey(f.srcAddr, f.dstAddr, sport, kPort)] = 2 * i;
    g_table[MakeKey(f.dstAddr, f.srcAddr, kPort, sport)] = 2 * i + 1;
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&CongState, i));
    s->SetConnectCallback(MakeBoundCallback(&Connected, i), MakeBoundCallback(&Failed, i));
    s->SetCloseCallbacks(MakeNullCallback<void, Ptr<Socket>>(), MakeBoundCallback(&Failed, i));
    g_connecting = i;
    int rc = s->Connect(InetSocketAddress(f.dstAddr, kPort));
    g_connecting = -1;
    if (rc < 0)
    {
        Fail("flow " + std::to_string(f.id) + ": connect failed");
    }
    if (i + 1 < g_flows.size())
    {
        Simulator::Schedule(NanoSeconds(g_flows[i + 1].start) - Simulator::Now(), &Start, i + 1);
    }
}

std::chrono::steady_clock::time_point g_wall0, g_lastReport;

double
WallSeconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - g_wall0).count();
}

// Progress prints a line to stderr about once a wall-clock second.
void
Progress()
{
    auto now = std::chrono::steady_clock::now();
    if (now - g_lastReport >= std::chrono::seconds(1))
    {
        g_lastReport = now;
        std::fprintf(stderr,
                     "progress sim_ns=%" PRId64 " done=%u/%zu events=%" PRIu64 " wall_s=%.1f\n",
                     Simulator::Now().GetNanoSeconds(),
                     g_done,
                     g_flows.size(),
                     Simulator::GetEventCount(),
                     WallSeconds());
    }
    Simulator::Schedule(MicroSeconds(100), &Progress);
}

void
SetDefaults(const Settings& c)
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpDctcp::GetTypeId()));
    Config::SetDefault("ns3::TcpDctcp::DctcpShiftG", DoubleValue(c.dctcpG));
    Config::SetDefault("ns3::TcpDctcp::DctcpAlphaOnInit", DoubleValue(c.dctcpInitAlpha));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(c.payload));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(c.initWindow));
    // Every segment is ACKed at once, as in the papers' ns-3.
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MicroSeconds(50)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(4 << 20));
    // ns-3's defaults (1 s RTO, 3 s SYN timeout, 6 tries) suit the Internet,
    // not a data center; a flow must not give up under heavy load.
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(NanoSeconds(c.minRtoNs)));
    Config::SetDefault("ns3::TcpSocket::ConnCount", UintegerValue(1000));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(NanoSeconds(c.minRtoNs)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MicroSeconds(1)));
    Config::SetDefault("ns3::RttEstimator::InitialEstimation", TimeValue(NanoSeconds(c.minRtoNs)));
    // TIME_WAIT lasts 2 MSL (240 s by default) and every live connection
    // slows down packet demultiplexing.
    Config::SetDefault("ns3::TcpSocketBase::MaxSegLifetime", DoubleValue(0.001));
}

} // namespace

int
main(int argc, char* argv[])
{
    if (argc != 5)
    {
        Fail("usage: tailscope-ns3 TOPOLOGY CONFIG FLOWS OUT");
    }
    std::vector<LinkSpec> links;
    ReadTopology(argv[1], links);
    Settings cfg = ReadConfig(argv[2]);
    SetDefaults(cfg);

    NodeContainer nodes;
    nodes.Create(g_isHost.size());
    InternetStackHelper stack;
    stack.SetIpv6StackInstall(false);
    stack.SetRoutingHelper(PinnedRoutingHelper());
    stack.Install(nodes);

    PointToPointHelper p2p;
    // A one-packet device queue leaves the queueing (and ECN marking) to
    // the queue disc; a longer one would hide up to 100 packets from RED.
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(std::max<uint32_t>(1500, cfg.payload + 100)));
    uint64_t buffer = cfg.bufferBytes > 0 ? cfg.bufferBytes : 1000000000;
    g_chans.resize(2 * links.size());
    for (size_t l = 0; l < links.size(); l++)
    {
        const LinkSpec& ls = links[l];
        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(ls.bps)));
        p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(ls.delayNs)));
        NetDeviceContainer devs = p2p.Install(nodes.Get(ls.a), nodes.Get(ls.b));

        // DCTCP step marking: RED with an instantaneous queue (QW=1) that
        // marks every packet arriving above K bytes and never drops early.
        // Queue discs go on before addresses, or ns-3 installs FqCoDel.
        Ptr<QueueDisc> qd[2];
        for (int e = 0; e < 2; e++)
        {
            TrafficControlHelper tch;
            tch.SetRootQueueDisc("ns3::RedQueueDisc",
                                 "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, buffer)),
                                 "MinTh", DoubleValue(ls.kBytes[e]),
                                 "MaxTh", DoubleValue(ls.kBytes[e]),
                                 "QW", DoubleValue(1),
                                 "UseEcn", BooleanValue(true),
                                 "UseHardDrop", BooleanValue(false),
                                 "Gentle", BooleanValue(false),
                                 "MeanPktSize", UintegerValue(cfg.payload + 54),
                                 "LinkBandwidth", DataRateValue(DataRate(ls.bps)),
                                 "LinkDelay", TimeValue(NanoSeconds(ls.delayNs)));
            qd[e] = tch.Install(devs.Get(e)).Get(0);
        }

        // One /30 per link: 10.0.0.0 + 4l, A gets .1, B .2.
        uint32_t base = (10u << 24) + 4 * uint32_t(l);
        Ipv4Address addr[2] = {Ipv4Address(base + 1), Ipv4Address(base + 2)};
        uint32_t ends[2] = {ls.a, ls.b};
        uint32_t ifs[2];
        for (int e = 0; e < 2; e++)
        {
            Ptr<Ipv4> ip = nodes.Get(ends[e])->GetObject<Ipv4>();
            ifs[e] = ip->AddInterface(devs.Get(e));
            ip->AddAddress(ifs[e], Ipv4InterfaceAddress(addr[e], Ipv4Mask("255.255.255.252")));
            ip->SetUp(ifs[e]);
        }
        for (int e = 0; e < 2; e++)
        {
            Chan& c = g_chans[2 * l + e];
            c.src = ends[e];
            c.dst = ends[1 - e];
            c.qdisc = qd[e];
            c.route = Create<Ipv4Route>();
            c.route->SetSource(addr[e]);
            c.route->SetDestination(addr[1 - e]);
            c.route->SetGateway(addr[1 - e]);
            c.route->SetOutputDevice(devs.Get(e));
        }
    }

    ReadFlows(argv[3]);
    std::vector<bool> listening(g_isHost.size(), false);
    for (Flow& f : g_flows)
    {
        uint32_t first = f.fwd.front(), last = f.fwd.back();
        f.srcAddr = g_chans[first ^ 1].route->GetDestination();
        f.dstAddr = g_chans[last].route->GetDestination();
        if (!listening[f.dst])
        {
            listening[f.dst] = true;
            Listen(nodes.Get(f.dst));
        }
    }

    g_wall0 = g_lastReport = std::chrono::steady_clock::now();
    if (!g_flows.empty())
    {
        Simulator::Schedule(NanoSeconds(g_flows[0].start), &Start, 0);
        Simulator::Schedule(MicroSeconds(100), &Progress);
        g_stopNs = cfg.stopNs;
        if (cfg.stopNs > 0)
        {
            Simulator::Stop(NanoSeconds(cfg.stopNs));
        }
        Simulator::Run();
    }

    FILE* out = std::fopen(argv[4], "w");
    if (!out)
    {
        Fail(std::string("cannot write ") + argv[4]);
    }
    std::fprintf(out, "# tailscope-ns3 v1\n");
    std::fprintf(out, "# flow id fct_ns start_ns first_byte_ns end_ns bytes_received\n");
    for (const Flow& f : g_flows)
    {
        int64_t fct = f.end >= 0 ? f.end - f.firstByte : -1;
        std::fprintf(out,
                     "flow %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRIu64 "\n",
                     f.id, fct, f.start, f.firstByte, f.end, f.rx);
    }
    std::fprintf(out, "# loss id timeouts fast_recoveries (flows that had any)\n");
    for (const Flow& f : g_flows)
    {
        if (f.timeouts + f.fastRecoveries > 0)
        {
            std::fprintf(out, "loss %" PRId64 " %u %u\n", f.id, f.timeouts, f.fastRecoveries);
        }
    }
    std::fprintf(out, "# channel id packets bytes drops marks (IP packets through its queue disc)\n");
    for (size_t c = 0; c < g_chans.size(); c++)
    {
        const QueueDisc::Stats& st = g_chans[c].qdisc->GetStats();
        std::fprintf(out,
                     "channel %zu %u %" PRIu64 " %u %u\n",
                     c,
                     st.nTotalReceivedPackets,
                     st.nTotalReceivedBytes,
                     st.nTotalDroppedPackets,
                     st.nTotalMarkedPackets);
    }
    std::fprintf(out,
                 "end events=%" PRIu64 " sim_ns=%" PRId64 " wall_s=%.3f completed=%u failed=%u unrouted=%" PRIu64 "\n",
                 Simulator::GetEventCount(),
                 Simulator::Now().GetNanoSeconds(),
                 WallSeconds(),
                 g_done,
                 g_failed,
                 g_unrouted);
    if (std::fclose(out) != 0)
    {
        Fail(std::string("cannot write ") + argv[4]);
    }
    Simulator::Destroy();
    return 0;
}
