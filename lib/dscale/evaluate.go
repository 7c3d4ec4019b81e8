package dscale

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// EvalOptions set up an evaluation.
type EvalOptions struct {
	// Alphas lists the DSCALEs replicas to run (DSCALEd always runs).
	Alphas []float64
	Detect DetectOptions
	// SampleEveryNanos is the queue sampling period (0: the span of
	// starts / 4000). The original samples its MaxSampled most loaded
	// channels (by offered load, default 64), replicas their kept ones.
	SampleEveryNanos int64
	MaxSampled       int
	Seed             uint64
	// Progress, when not nil, gets every simulation: the original, then
	// one per replica.
	Progress progress.Reporter
}

// System is the original network or one replica, run.
type System struct {
	Name    string   // "original", "DSCALEd", "DSCALEs a=0.5"
	Replica *Replica // nil for the original
	Result  *packetsim.Result
	// Records are in the original's terms, for the flows of the kept
	// groups (the original's own records of those flows for the
	// original).
	Records []metrics.Record
	// Queues holds queue-length samples (bytes) per congested original
	// channel, at the channel or its replica.
	Queues map[int][]float64
	// Flows and Links are what the simulation ran: flows, and links of
	// the original network present (all, or the kept ones).
	Flows, Links              int
	WallSeconds, BuildSeconds float64
}

// Evaluation is an original run, its congested links and its replicas.
type Evaluation struct {
	Stats     []LinkStat
	Congested []int
	Systems   []*System // Systems[0] is the original
}

// Evaluate runs flows on net with packetsim, detects the congested links,
// builds and runs DSCALEd and a DSCALEs replica per alpha, and maps their
// records back. Evaluate stops with ctx's error soon after ctx is
// cancelled.
func Evaluate(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, o EvalOptions) (*Evaluation, error) {
	if len(flows) < 2 {
		return nil, fmt.Errorf("dscale: evaluation needs at least two flows")
	}
	if o.SampleEveryNanos == 0 {
		o.SampleEveryNanos = max(1, (flows[len(flows)-1].Start-flows[0].Start)/4000)
	}
	if o.MaxSampled == 0 {
		o.MaxSampled = 64
	}
	bytes, err := workload.ChannelBytes(net, flows)
	if err != nil {
		return nil, err
	}
	cand := make([]int, len(bytes))
	for c := range cand {
		cand[c] = c
	}
	load := func(c int) float64 { return float64(bytes[c]) / float64(net.Channels[c].Bandwidth) }
	sort.SliceStable(cand, func(a, b int) bool { return load(cand[a]) > load(cand[b]) })
	cand = cand[:min(o.MaxSampled, len(cand))]
	sort.Ints(cand)
	sims := 2 + len(o.Alphas) // the original, DSCALEd and one DSCALEs per alpha

	t0 := time.Now()
	res, err := packetsim.Run(ctx, net, flows, cfg, packetsim.Options{SampleEveryNanos: o.SampleEveryNanos, SampleChannels: cand})
	if err != nil {
		return nil, err
	}
	orig := &System{Name: "original", Result: res, WallSeconds: time.Since(t0).Seconds(), Flows: len(flows), Links: len(net.Links)}
	progress.Report(o.Progress, 1, sims, fmt.Sprintf("original: %d flows on %d links in %.2f s", orig.Flows, orig.Links, orig.WallSeconds))
	ev := &Evaluation{Systems: []*System{orig}}
	if ev.Stats, err = Detect(net, flows, cfg, res, o.Detect); err != nil {
		return nil, err
	}
	ev.Congested = Congested(ev.Stats)
	if len(ev.Congested) == 0 {
		return nil, fmt.Errorf("dscale: no congested link in the run")
	}
	lo, hi := flows[0].Start, flows[len(flows)-1].Start
	orig.Queues = queues(res, ev.Congested, lo, hi, func(c int) int { return c })

	opts := []Options{{Method: Delays, Seed: o.Seed}}
	for _, a := range o.Alphas {
		opts = append(opts, Options{Method: Sampling, Alpha: a, Seed: o.Seed})
	}
	for _, ro := range opts {
		rep, err := Build(net, flows, cfg, ev.Congested, ro)
		if err != nil {
			return nil, err
		}
		var sampled []int
		for _, c := range ev.Congested {
			sampled = append(sampled, rep.Channel[c])
		}
		sort.Ints(sampled)
		t0 := time.Now()
		rr, err := packetsim.Run(ctx, rep.Net, rep.Flows, rep.Config, packetsim.Options{KBytes: rep.KBytes, Paths: rep.Paths(), SampleEveryNanos: o.SampleEveryNanos, SampleChannels: sampled})
		if err != nil {
			return nil, fmt.Errorf("dscale: replica %s: %w", ro.Method, err)
		}
		s := &System{Name: "DSCALEd", Replica: rep, Result: rr, WallSeconds: time.Since(t0).Seconds(), BuildSeconds: rep.BuildSeconds,
			Flows: len(rep.Flows), Links: keptLinks(ev.Congested)}
		if ro.Method == Sampling {
			s.Name = "DSCALEs a=" + strconv.FormatFloat(ro.Alpha, 'g', 4, 64)
		}
		if s.Records, err = rep.Extrapolate(net, flows, cfg, rr); err != nil {
			return nil, err
		}
		s.Queues = queues(rr, ev.Congested, lo, hi, func(c int) int { return rep.Channel[c] })
		ev.Systems = append(ev.Systems, s)
		progress.Report(o.Progress, len(ev.Systems), sims, fmt.Sprintf("%s: %d flows on %d kept links (%d replica links) in %.2f s (+%.3f s to build)",
			s.Name, s.Flows, s.Links, len(rep.Net.Links), s.WallSeconds, s.BuildSeconds))
		if ro.Method == Delays {
			// The original's records of the same flows.
			pos := make(map[int]int, len(res.Records))
			for i, r := range res.Records {
				pos[r.FlowID] = i
			}
			for _, i := range rep.Orig {
				if k, ok := pos[flows[i].ID]; ok {
					orig.Records = append(orig.Records, res.Records[k])
				}
			}
		}
	}
	return ev, nil
}

// keptLinks counts the links holding the congested channels.
func keptLinks(congested []int) int {
	seen := map[int]bool{}
	for _, c := range congested {
		seen[c>>1] = true
	}
	return len(seen)
}

// queues collects the queue samples of each congested channel (at
// channel at(c) of the run) taken while flows arrive, [lo, hi]: a replica
// that runs slower drains for longer afterwards, and idle samples from the
// drain would dilute its distribution.
func queues(res *packetsim.Result, congested []int, lo, hi int64, at func(int) int) map[int][]float64 {
	want := map[int]int{}
	for _, c := range congested {
		want[at(c)] = c
	}
	q := map[int][]float64{}
	for _, s := range res.Samples {
		if s.TimeNanos < lo || s.TimeNanos > hi {
			continue
		}
		if c, ok := want[s.Channel]; ok {
			q[c] = append(q[c], float64(s.QueueBytes))
		}
	}
	return q
}

// Comparison is a replica set against the original.
type Comparison struct {
	System string
	// Speedup is the original's simulation time over the replica's
	// simulation plus building.
	Speedup float64
	// FlowShare and LinkShare are the shares of the original's flows and
	// links the replica simulates; HopShare is the share of its
	// packet-hops, the simulation work, independent of machine load.
	FlowShare, LinkShare, HopShare float64
	// FCTHSM compares the FCT histograms (log bins) of the kept groups'
	// flows; QueueHSM averages the queue-length histograms' HSM over the
	// congested channels sampled in both.
	FCTHSM, QueueHSM float64
	// Slowdown percentiles of the kept groups' flows against the
	// original's.
	P50, P99 metrics.Comparison
	// MeanQueue is the mean queue (bytes) over the congested channels in
	// the replica and the original.
	MeanQueue, BaseMeanQueue float64
}

// Compare sets every replica against the original, with bins for the FCT
// percentiles.
func (ev *Evaluation) Compare(bins metrics.Bins) []Comparison {
	base := ev.Systems[0]
	var out []Comparison
	for _, s := range ev.Systems[1:] {
		c := Comparison{System: s.Name, Speedup: base.WallSeconds / (s.WallSeconds + s.BuildSeconds),
			FlowShare: float64(s.Flows) / float64(base.Flows), LinkShare: float64(s.Links) / float64(base.Links),
			HopShare: float64(s.Result.PacketHops) / float64(base.Result.PacketHops)}
		fct := func(rs []metrics.Record) []float64 {
			v := make([]float64, len(rs))
			for i, r := range rs {
				v[i] = float64(r.FCT)
			}
			return v
		}
		c.FCTHSM = HSM(fct(s.Records), fct(base.Records), 40, true)
		var hsm, n, q, bq float64
		for _, ch := range ev.Congested {
			a, b := s.Queues[ch], base.Queues[ch]
			if len(a) == 0 || len(b) == 0 {
				continue
			}
			hsm += HSM(a, b, 20, false)
			q += mean(a)
			bq += mean(b)
			n++
		}
		if n > 0 {
			c.QueueHSM, c.MeanQueue, c.BaseMeanQueue = hsm/n, q/n, bq/n
		}
		c.P50 = metrics.Compare(s.Records, base.Records, bins, 50)
		c.P99 = metrics.Compare(s.Records, base.Records, bins, 99)
		out = append(out, c)
	}
	return out
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// ComparisonTable is the frame of Compare's rows, with the original's
// simulation time.
func (ev *Evaluation) ComparisonTable(name string, bins metrics.Bins, meta frame.Meta) *frame.Table {
	rows := ev.Compare(bins)
	n := len(rows)
	col := func(f func(Comparison) float64) []float64 {
		v := make([]float64, n)
		for i, r := range rows {
			v[i] = f(r)
		}
		return v
	}
	names, scen := make([]string, n), make([]string, n)
	flows, wall := make([]int64, n), make([]float64, n)
	for i, r := range rows {
		names[i], scen[i] = r.System, name
		flows[i] = int64(ev.Systems[i+1].Flows)
		wall[i] = ev.Systems[i+1].WallSeconds + ev.Systems[i+1].BuildSeconds
	}
	base := make([]float64, n)
	for i := range base {
		base[i] = ev.Systems[0].WallSeconds
	}
	return &frame.Table{Meta: meta, Columns: []frame.Column{
		frame.StringColumn("scenario", scen),
		frame.StringColumn("system", names),
		frame.Int64Column("flows", flows),
		frame.Float64Column("flow_share", col(func(c Comparison) float64 { return c.FlowShare })),
		frame.Float64Column("link_share", col(func(c Comparison) float64 { return c.LinkShare })),
		frame.Float64Column("hop_share", col(func(c Comparison) float64 { return c.HopShare })),
		frame.Float64Column("wall_s", wall),
		frame.Float64Column("original_wall_s", base),
		frame.Float64Column("speedup", col(func(c Comparison) float64 { return c.Speedup })),
		frame.Float64Column("fct_hsm", col(func(c Comparison) float64 { return c.FCTHSM })),
		frame.Float64Column("queue_hsm", col(func(c Comparison) float64 { return c.QueueHSM })),
		frame.Float64Column("mean_queue_bytes", col(func(c Comparison) float64 { return c.MeanQueue })),
		frame.Float64Column("original_mean_queue_bytes", col(func(c Comparison) float64 { return c.BaseMeanQueue })),
		frame.Float64Column("p50_err", col(func(c Comparison) float64 { return c.P50.ErrorAll })),
		frame.Float64Column("p99_err", col(func(c Comparison) float64 { return c.P99.ErrorAll })),
	}}
}

// QueueTable is the frame of every queue sample: system, original channel
// and queue bytes, one row per sample.
func (ev *Evaluation) QueueTable(meta frame.Meta) *frame.Table {
	var sys []string
	var ch, q []int64
	for _, s := range ev.Systems {
		for _, c := range ev.Congested {
			for _, x := range s.Queues[c] {
				sys, ch, q = append(sys, s.Name), append(ch, int64(c)), append(q, int64(x))
			}
		}
	}
	return &frame.Table{Meta: meta, Columns: []frame.Column{
		frame.StringColumn("system", sys), frame.Int64Column("channel", ch), frame.Int64Column("queue_bytes", q)}}
}

// LinkTable is the frame of the detection: one row per channel that
// carried packets.
func (ev *Evaluation) LinkTable(net *topo.Network, meta frame.Meta) *frame.Table {
	n := len(ev.Stats)
	ch, src, dst, bw, pk, dr, cong := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	util, q, pq := make([]float64, n), make([]float64, n), make([]float64, n)
	reason := make([]string, n)
	for i, s := range ev.Stats {
		c := net.Channels[s.Channel]
		ch[i], src[i], dst[i], bw[i] = int64(s.Channel), int64(c.Src), int64(c.Dst), c.Bandwidth
		pk[i], dr[i] = s.Packets, s.Drops
		util[i], q[i], pq[i], reason[i] = s.Utilisation, s.MeanQueueNs, s.PathQueueNs, s.Reason
		if s.Congested {
			cong[i] = 1
		}
	}
	return &frame.Table{Meta: meta, Columns: []frame.Column{
		frame.Int64Column("channel", ch), frame.Int64Column("src", src), frame.Int64Column("dst", dst),
		frame.Int64Column("bandwidth_bps", bw), frame.Float64Column("utilisation", util),
		frame.Int64Column("packets", pk), frame.Float64Column("mean_queue_ns", q), frame.Int64Column("drops", dr),
		frame.Float64Column("min_path_queue_ns", pq), frame.Int64Column("congested", cong), frame.StringColumn("reason", reason)}}
}
