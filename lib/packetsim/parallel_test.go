package packetsim

import (
	"context"
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unsafe"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// dumbbellFlows is n flows between random senders and receivers of a
// dumbbell of the given size, sizes from one packet to 300 KB, starting
// within 200 us: the bottleneck is overloaded for a while, so queues,
// marks and pauses build up.
func dumbbellFlows(t testing.TB, senders, receivers, n int) (*topo.Network, []workload.Flow) {
	t.Helper()
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: senders, Receivers: receivers})
	must(t, net, err)
	r := rand.New(rand.NewPCG(7, 11))
	flows := make([]workload.Flow, n)
	var at int64
	for i := range flows {
		at += r.Int64N(400_000 / int64(n))
		flows[i] = workload.Flow{ID: i, Src: r.IntN(senders), Dst: senders + r.IntN(receivers), Size: 1 + r.Int64N(300_000), Start: at}
	}
	return net, flows
}

// preset is a netcfg preset, changed by f when f is not nil.
func preset(t testing.TB, name string, f func(*netcfg.Config)) netcfg.Config {
	t.Helper()
	cfg, err := netcfg.Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	if f != nil {
		f(&cfg)
	}
	return cfg
}

// The parallel engine gives the sequential engine's records, bit for
// bit, and the same counts of events, packet-hops, marks, PFC frames,
// drops and loss recoveries and the same per-channel bytes, at 2 and 4
// workers, on a dumbbell and on the 256-host fabric, intact and with
// failed links, for every congestion control, both ECN marking points,
// the FIFO host NIC, a shared buffer with PFC, and per-port and shared
// buffers that lose packets (go-back-N, stock TCP's recovery, HPCC).
func TestParallelSameRecords(t *testing.T) {
	pfc := func(c *netcfg.Config) {
		c.Buffer.SharedBytes = 100_000
		c.PFC.Enabled = true
	}
	dumbNet, dumbFlows := dumbbellFlows(t, 6, 3, 300)
	n := 3000
	if testing.Short() {
		n = 1000
	}
	// Matrix B's hot racks at 80% of the most loaded link's capacity,
	// in bursts: queues, marks and pauses build up.
	fabNet := fabric(t, "meta32-2:1")
	fabFlows, err := workload.Generate(fabNet, workload.Spec{
		Flows: n,
		Components: []workload.Component{{
			Matrix:  "B",
			Sizes:   workload.SizeSpec{Dist: "webserver"},
			Arrival: workload.Arrival{Process: "lognormal", Sigma: 2},
			MaxLoad: 0.8,
		}},
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	type netFlows struct {
		name  string
		net   *topo.Network
		flows []workload.Flow
	}
	// The same flows with two links failed (a ToR's uplink and a
	// fabric switch's uplink to a spine): routes go around them.
	failed := fabric(t, "meta32-2:1")
	for _, l := range []int{256, len(failed.Links) - 1} {
		if err := failed.FailLink(l); err != nil {
			t.Fatal(err)
		}
	}
	nets := []netFlows{{"dumbbell", dumbNet, dumbFlows}, {"meta32", fabNet, fabFlows}, {"meta32-failed", failed, fabFlows}}
	cases := []struct {
		name string
		cfg  netcfg.Config
	}{
		{"dctcp", preset(t, "dctcp", nil)},
		{"dctcp-enqueue", preset(t, "dctcp", func(c *netcfg.Config) { c.ECNMark = "enqueue" })},
		{"dcqcn", preset(t, "dcqcn", nil)},
		{"fork-dcqcn", preset(t, "fork-dcqcn", nil)},
		{"timely", preset(t, "timely", nil)},
		{"hpcc", preset(t, "hpcc", nil)},
		{"fork-hpcc", preset(t, "fork-hpcc", nil)},
		{"ns3-fifo-nic", preset(t, "ns3", nil)},
		{"dcqcn-pfc", preset(t, "dcqcn", pfc)},
		{"hpcc-pfc", preset(t, "hpcc", pfc)},
		{"dctcp-pfc-fifo-nic", preset(t, "dctcp", func(c *netcfg.Config) { pfc(c); c.HostNIC = netcfg.HostNICFIFO })},
		// Losses: go-back-N and the timeout under a per-port and a
		// shared buffer, stock TCP's recovery with FIFO host NICs.
		{"dctcp-port-buffer", preset(t, "dctcp", func(c *netcfg.Config) { c.BufferBytes = 30_000; c.DCTCP.MinRTONanos = 100_000 })},
		{"dcqcn-shared-buffer", preset(t, "dcqcn", func(c *netcfg.Config) { c.Buffer.SharedBytes = 100_000; c.DCTCP.MinRTONanos = 100_000 })},
		{"ns3-port-buffer", preset(t, "ns3", func(c *netcfg.Config) { c.BufferBytes = 30_000; c.DCTCP.MinRTONanos = 200_000 })},
		{"timely-shared-buffer", preset(t, "timely", func(c *netcfg.Config) { c.Buffer.SharedBytes = 100_000; c.DCTCP.MinRTONanos = 100_000 })},
		// HPCC's INT records kept per transmission when packets are resent.
		{"hpcc-port-buffer", preset(t, "hpcc", func(c *netcfg.Config) { c.BufferBytes = 5_000; c.DCTCP.MinRTONanos = 100_000 })},
		{"fork-hpcc-shared-buffer", preset(t, "fork-hpcc", func(c *netcfg.Config) {
			c.Buffer.SharedBytes, c.PFC.Enabled, c.DCTCP.MinRTONanos = 30_000, false, 100_000
		})},
	}
	for _, nf := range nets {
		for _, c := range cases {
			t.Run(nf.name+"/"+c.name, func(t *testing.T) {
				one, err := Run(context.Background(), nf.net, nf.flows, c.cfg, Options{Seed: 3})
				if err != nil {
					t.Fatal(err)
				}
				if len(one.Records) != len(nf.flows) {
					t.Fatalf("%d records of %d flows", len(one.Records), len(nf.flows))
				}
				for _, w := range []int{2, 4} {
					par, err := Run(context.Background(), nf.net, nf.flows, c.cfg, Options{Seed: 3, Workers: w})
					if err != nil {
						t.Fatal(err)
					}
					if par.Parallel == nil || par.Parallel.Partitions < 2 {
						t.Fatalf("workers %d: ran %+v, want at least 2 partitions", w, par.Parallel)
					}
					for i := range one.Records {
						if one.Records[i] != par.Records[i] {
							t.Fatalf("workers %d: record %d is %+v, one worker's %+v", w, i, par.Records[i], one.Records[i])
						}
					}
					if len(par.Records) != len(one.Records) {
						t.Fatalf("workers %d: %d records, one worker %d", w, len(par.Records), len(one.Records))
					}
					type counts struct{ Events, Hops, Marks, Pauses, Resumes, Paused, Delivered, Drops, Timeouts, FastRecoveries, Retransmits int64 }
					a := counts{one.Events, one.PacketHops, one.Marks, one.PauseFrames, one.ResumeFrames, one.PausedNanos, one.DeliveredBytes, one.Drops, one.Timeouts, one.FastRecoveries, one.Retransmits}
					b := counts{par.Events, par.PacketHops, par.Marks, par.PauseFrames, par.ResumeFrames, par.PausedNanos, par.DeliveredBytes, par.Drops, par.Timeouts, par.FastRecoveries, par.Retransmits}
					if a != b {
						t.Errorf("workers %d: counts %+v, one worker %+v", w, b, a)
					}
					if !reflect.DeepEqual(one.ChannelBytes, par.ChannelBytes) || !reflect.DeepEqual(one.ChannelQueueNanos, par.ChannelQueueNanos) {
						t.Errorf("workers %d: per-channel bytes or queueing differ from one worker's", w)
					}
					if one.EndNanos != par.EndNanos {
						t.Errorf("workers %d: ends at %d ns, one worker at %d", w, par.EndNanos, one.EndNanos)
					}
				}
				t.Logf("%d events, %d marks, %d pause frames, %d drops, %d timeouts", one.Events, one.Marks, one.PauseFrames, one.Drops, one.Timeouts)
			})
		}
	}
}

// A run stopped early leaves the same flows unfinished, with the same
// progress, at any number of workers.
func TestParallelStopAt(t *testing.T) {
	net, flows := dumbbellFlows(t, 6, 3, 300)
	cfg := preset(t, "dcqcn", nil)
	full, err := Run(context.Background(), net, flows, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	stop := full.EndNanos / 2
	one, err := Run(context.Background(), net, flows, cfg, Options{StopAtNanos: stop})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Unfinished) == 0 || len(one.Records) == 0 {
		t.Fatalf("%d records, %d unfinished: the stop should fall mid-run", len(one.Records), len(one.Unfinished))
	}
	two, err := Run(context.Background(), net, flows, cfg, Options{StopAtNanos: stop, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one.Records, two.Records) || !reflect.DeepEqual(one.Unfinished, two.Unfinished) || one.EndNanos != two.EndNanos {
		t.Errorf("two workers: %d records, %d unfinished, end %d; one worker: %d, %d, %d",
			len(two.Records), len(two.Unfinished), two.EndNanos, len(one.Records), len(one.Unfinished), one.EndNanos)
	}
}

// Port sampling and a negative worker count are refused before any
// work, with an error naming them.
func TestParallelRefuses(t *testing.T) {
	net, flows := dumbbellFlows(t, 2, 2, 10)
	cases := []struct {
		name string
		cfg  netcfg.Config
		opts Options
		want string
	}{
		{"sampling", preset(t, "dctcp", nil), Options{Workers: 4, SampleEveryNanos: 1000}, "port sampling"},
		{"negative", preset(t, "dctcp", nil), Options{Workers: -1}, "workers must be >= 0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			emitted := 0
			_, err := Stream(context.Background(), net, workload.SliceSource(flows), c.cfg, c.opts, func(r metrics.Record) error {
				emitted++
				return nil
			})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
			if emitted > 0 {
				t.Errorf("%d records emitted before the refusal", emitted)
			}
		})
	}
}

// Partitions keeps whole pods together when the workers divide the pods,
// splits pods by racks otherwise, and gives every partition the same
// number of hosts on the fabrics; host-to-ToR links never cross.
func TestPartitions(t *testing.T) {
	for _, c := range []struct {
		preset  string
		workers int
	}{{"meta32-2:1", 2}, {"meta32-2:1", 4}, {"meta384-2:1", 2}, {"meta384-2:1", 8}, {"meta384-2:1", 16}} {
		t.Run(c.preset, func(t *testing.T) {
			net := fabric(t, c.preset)
			part, n := Partitions(net, c.workers)
			if n != c.workers {
				t.Fatalf("%d partitions, want %d", n, c.workers)
			}
			hosts := make([]int, n)
			for _, h := range net.Hosts() {
				hosts[part[h]]++
			}
			for i := range hosts {
				if hosts[i] != hosts[0] {
					t.Errorf("hosts per partition %v, want equal", hosts)
					break
				}
			}
			pods := map[int]int{}
			for _, nd := range net.Nodes {
				if nd.Pod >= 0 {
					pods[nd.Pod]++
				}
			}
			for _, ch := range net.Channels {
				a, b := net.Nodes[ch.Src], net.Nodes[ch.Dst]
				if (net.IsHost(a.ID) || net.IsHost(b.ID)) && part[a.ID] != part[b.ID] {
					t.Fatalf("channel %d from node %d to %d crosses partitions", ch.ID, a.ID, b.ID)
				}
				if n <= len(pods) && a.Pod >= 0 && b.Pod >= 0 && part[a.ID] != part[b.ID] {
					t.Fatalf("channel %d inside pod %d crosses partitions with %d workers", ch.ID, a.Pod, n)
				}
			}
		})
	}
}

// An interrupt stops a parallel run between windows with the context's
// error, and no record is emitted after it.
func TestParallelInterrupt(t *testing.T) {
	net, flows := dumbbellFlows(t, 6, 3, 300)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	emitted := 0
	_, err := Stream(ctx, net, workload.SliceSource(flows), netcfg.Default(), Options{Workers: 2}, func(r metrics.Record) error {
		emitted++
		if emitted == 10 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if emitted != 10 {
		t.Errorf("%d records emitted, want the 10 before the interrupt", emitted)
	}
}

// The coordinator and a worker write the command and the report, and
// each sender its outboxes' headers, once a window or more: each must
// fill whole cache lines of its own, and the partition's size must keep
// the allocator placing it on a line boundary.
func TestPartitionLayout(t *testing.T) {
	var p partition
	for _, c := range []struct {
		name       string
		size, want uintptr
	}{
		{"command", unsafe.Sizeof(command{}), 64},
		{"report", unsafe.Sizeof(report{}), 64},
		{"outbox", unsafe.Sizeof(outbox{}), 64},
		{"partition's command offset mod 64", unsafe.Offsetof(p.cmd) % 64, 0},
		{"partition's report offset mod 64", unsafe.Offsetof(p.rep) % 64, 0},
		{"partition mod 64", unsafe.Sizeof(p) % 64, 0},
	} {
		if c.size != c.want {
			t.Errorf("%s: %d bytes, want %d", c.name, c.size, c.want)
		}
	}
}
