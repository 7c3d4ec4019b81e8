package ns3

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Name is the estimator name of ns-3 results.
const Name = "ns3"

// Options control a run. The zero value runs in a temporary directory with
// no time limit, no progress output and the default program. The JSON
// fields are the ns3 estimator's options (lib/estimator), in the order of
// their canonical JSON; the others are for callers in Go only.
type Options struct {
	// StopAtNanos runs the simulation to this simulated time, also when
	// every flow finished earlier (closing handshakes then drain); flows not
	// finished by then are left out of the records. 0 runs until the last
	// flow is done.
	StopAtNanos int64 `json:"stop_at_ns,omitempty"`
	// TimeLimitSeconds bounds the wall time of the simulation; 0 means
	// none.
	TimeLimitSeconds float64 `json:"time_limit_s,omitempty"`
	// WorkDir receives the input and output files and is kept; "" means a
	// temporary directory, removed afterwards.
	WorkDir string `json:"work_dir,omitempty"`
	// Program is the scenario program to run as it is; "" means
	// DefaultProgram(), built or rebuilt when needed.
	Program string `json:"program,omitempty"`
	// Progress receives the program's progress reports (flows done of
	// all); nil discards them.
	Progress progress.Reporter `json:"-"`
	// KBytes overrides the ECN marking threshold of single ports, as in
	// packetsim: channel id -> K in bytes (Parsimon's link-level
	// simulations set the target port's).
	KBytes map[int]int64 `json:"-"`
}

// timeLimit is TimeLimitSeconds as a duration.
func (o Options) timeLimit() time.Duration {
	return time.Duration(o.TimeLimitSeconds * float64(time.Second))
}

// FlowOutcome is one flow as the program reported it. FirstByte and End
// are -1, and FCT is -1, for a flow that did not finish.
type FlowOutcome struct {
	ID            int
	FCT           int64 // ns, End - FirstByte
	Start         int64 // ns, the requested start (connect)
	FirstByte     int64 // ns, handshake done, first data byte sent
	End           int64 // ns, last byte received
	BytesReceived int64
	// The sender's entries into loss recovery between its first and last
	// byte: by a retransmission timeout (repeated timeouts of one loss
	// count once) and by fast retransmit.
	Timeouts, FastRecoveries int
}

// ChannelStats counts the IP packets that arrived at a channel's queue disc
// (bytes without the 2 B PPP header), the drops and the ECN marks there.
type ChannelStats struct {
	Packets, Bytes, Drops, Marks int64
}

// Result is everything a run reports.
type Result struct {
	// Records holds the finished flows in input order.
	Records []metrics.Record
	// Flows holds every flow's outcome in input order.
	Flows []FlowOutcome
	// Unfinished lists the ids of flows that did not finish.
	Unfinished []int
	// Channels is indexed by channel id.
	Channels    []ChannelStats
	Events      int64   // ns-3 events executed
	SimNanos    int64   // simulated time at the end
	WallSeconds float64 // the program's wall time for the simulation
	Failed      int     // flows whose connection failed
	Unrouted    int64   // packets the pinned routing could not place
}

// Run simulates flows on net in ns-3 and returns their records. Every flow
// must finish unless opts.StopAtNanos is set, in which case unfinished flows
// are left out.
func Run(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, opts Options) ([]metrics.Record, error) {
	res, err := Simulate(ctx, net, flows, cfg, opts)
	if err != nil {
		return nil, err
	}
	if opts.StopAtNanos == 0 {
		if err := res.Incomplete(); err != nil {
			return nil, err
		}
	}
	return res.Records, nil
}

// Incomplete reports flows that did not finish, nil if all did.
func (r *Result) Incomplete() error {
	if len(r.Unfinished) == 0 {
		return nil
	}
	return fmt.Errorf("ns3: %d of %d flows did not finish (first: flow %d; %d connections failed)",
		len(r.Unfinished), len(r.Flows), r.Unfinished[0], r.Failed)
}

// Simulate is Run with the program's full report.
func Simulate(ctx context.Context, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, opts Options) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := supported(cfg); err != nil {
		return nil, err
	}
	if err := workload.Check(net, flows); err != nil {
		return nil, err
	}
	if opts.StopAtNanos < 0 || !(opts.TimeLimitSeconds >= 0) || math.IsInf(opts.TimeLimitSeconds, 1) {
		return nil, fmt.Errorf("ns3: stop time %d ns and time limit %g s must not be negative (or NaN, or infinite)", opts.StopAtNanos, opts.TimeLimitSeconds)
	}
	for c, k := range opts.KBytes {
		if c < 0 || c >= len(net.Channels) || k < 0 {
			return nil, fmt.Errorf("ns3: K override %d bytes for channel %d: want a channel 0..%d and K >= 0", k, c, len(net.Channels)-1)
		}
	}
	prog, err := program(opts.Program)
	if err != nil {
		return nil, err
	}
	dir := opts.WorkDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "tailscope-ns3-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	paths, args, err := writeInputs(dir, net, flows, cfg, opts)
	if err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "fct.txt")
	// A kept work dir may hold an earlier run's output.
	if err := os.Remove(out); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := execute(ctx, prog, append(args, out), opts); err != nil {
		return nil, err
	}
	fh, err := os.Open(out)
	if err != nil {
		return nil, fmt.Errorf("ns3: the program wrote no output: %w", err)
	}
	defer fh.Close()
	res, err := parseOutput(fh, out, flows, len(net.Channels))
	if err != nil {
		return nil, err
	}
	for i, o := range res.Flows {
		if o.FCT < 0 {
			res.Unfinished = append(res.Unfinished, o.ID)
			continue
		}
		f := flows[i]
		ideal := metrics.IdealFCT(net, paths[i], f.Size, cfg)
		res.Records = append(res.Records, metrics.Record{
			FlowID: f.ID, Src: f.Src, Dst: f.Dst, Size: f.Size, Start: f.Start,
			FCT: o.FCT, Ideal: ideal, Slowdown: float64(o.FCT) / float64(ideal), Class: f.Class,
		})
	}
	return res, nil
}

// WriteInputs writes the program's inputs for flows on net under cfg to
// dir (topology.txt, config.txt, flows.txt with every flow's pinned
// path): what Simulate runs, for running the ns-3 scenario program
// (lib/ns3/scenario) by hand, on stock ns-3 3.37.
func WriteInputs(dir string, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, opts Options) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := workload.Check(net, flows); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	_, _, err := writeInputs(dir, net, flows, cfg, opts)
	return err
}

// writeInputs writes the program's input files to dir and returns the
// flows' paths and the files' paths in the program's argument order.
func writeInputs(dir string, net *topo.Network, flows []workload.Flow, cfg netcfg.Config, opts Options) ([][]int, []string, error) {
	var err error
	paths := make([][]int, len(flows))
	for i, f := range flows {
		if paths[i], err = net.Path(f.ID, f.Src, f.Dst); err != nil {
			return nil, nil, err
		}
	}
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"topology.txt", func(w io.Writer) error { return WriteTopology(w, net, cfg, opts.KBytes) }},
		{"config.txt", func(w io.Writer) error { return writeConfig(w, cfg, opts.StopAtNanos) }},
		{"flows.txt", func(w io.Writer) error { return writeFlows(w, flows, paths) }},
	}
	args := make([]string, 0, 4)
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := writeFile(p, f.write); err != nil {
			return nil, nil, err
		}
		args = append(args, p)
	}
	return paths, args, nil
}

func writeFile(path string, write func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(fh)
	if err := write(w); err != nil {
		fh.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// WriteTopology writes net in the program's topology format, with every
// port's ECN threshold from kBytes (channel id -> bytes) or else from cfg.
func WriteTopology(w io.Writer, net *topo.Network, cfg netcfg.Config, kBytes map[int]int64) error {
	k := func(c int) int64 {
		if v, ok := kBytes[c]; ok {
			return v
		}
		return cfg.KBytesFor(net.Channels[c].Bandwidth)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# tailscope topology %s\n", net.Name)
	for _, n := range net.Nodes {
		fmt.Fprintf(bw, "node %d %s\n", n.ID, strings.ToLower(n.Kind.String()))
	}
	for _, l := range net.Links {
		fmt.Fprintf(bw, "link %d %d %d %d %d %d %d\n", l.ID, l.A, l.B, l.Bandwidth, l.Delay, k(2*l.ID), k(2*l.ID+1))
	}
	return bw.Flush()
}

// wireHeaderBytes is what ns-3 adds to a segment's payload on the wire: 20 B
// IPv4, 32 B TCP with the timestamp option and 2 B PPP.
const wireHeaderBytes = 54

// supported refuses what stock ns-3 3.37 cannot run like the other
// estimators: a shared switch buffer and PFC, and a per-port buffer too
// small to hold the packet in the device queue and one more.
func supported(cfg netcfg.Config) error {
	if cfg.SharedBuffer() || cfg.PFC.Enabled {
		return errors.New("ns3: stock ns-3 has no shared switch buffer or PFC: use buffer_bytes (a buffer per port) or none")
	}
	if b, pkt := cfg.BufferBytes, cfg.PayloadBytes+wireHeaderBytes; b > 0 && b < 2*pkt {
		return fmt.Errorf("ns3: buffer_bytes %d is below two packets of %d B on the wire", b, pkt)
	}
	return nil
}

// queueDiscBytes is the queue disc limit that makes a port hold what
// packetsim's port of cfg.BufferBytes holds: the device queue keeps one
// packet outside the queue disc while the port is busy, so the disc gets
// the buffer less one full data packet (0: unlimited).
func queueDiscBytes(cfg netcfg.Config) int64 {
	if cfg.BufferBytes == 0 {
		return 0
	}
	return cfg.BufferBytes - (cfg.PayloadBytes + wireHeaderBytes)
}

func writeConfig(w io.Writer, cfg netcfg.Config, stopNs int64) error {
	_, err := fmt.Fprintf(w, "payload_bytes %d\nbuffer_bytes %d\ndctcp_g %g\ndctcp_init_alpha %g\ninit_window %d\nmin_rto_ns %d\nstop_ns %d\n",
		cfg.PayloadBytes, queueDiscBytes(cfg), cfg.DCTCP.G, cfg.DCTCP.InitAlpha, max(cfg.DCTCP.InitWindow, 1), cfg.DCTCP.MinRTONanos, stopNs)
	return err
}

func writeFlows(w io.Writer, flows []workload.Flow, paths [][]int) error {
	var line []byte
	for i, f := range flows {
		line = fmt.Appendf(line[:0], "flow %d %d %d %d %d %d", f.ID, f.Src, f.Dst, f.Size, f.Start, len(paths[i]))
		for _, c := range paths[i] {
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(c), 10)
		}
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return nil
}

// execute runs the program, passing progress lines on and keeping the
// rest of its stderr for error messages.
func execute(ctx context.Context, prog string, args []string, opts Options) error {
	if opts.TimeLimitSeconds > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.timeLimit())
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, prog, args...)
	if lib := tcmalloc(); lib != "" {
		// ns-3 allocates per packet and event: tcmalloc saves about a
		// quarter of the run time, with identical results.
		cmd.Env = append(os.Environ(), "LD_PRELOAD="+lib)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("ns3: cannot start %s: %w", prog, err)
	}
	var msgs bytes.Buffer
	var last string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "progress ") {
			last = line
			reportLine(opts.Progress, line)
		} else if msgs.Len() < 64<<10 {
			msgs.WriteString(line)
			msgs.WriteByte('\n')
		}
	}
	err = cmd.Wait()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return fmt.Errorf("ns3: the simulation exceeded its time limit of %v (last report: %s)", opts.timeLimit(), orNone(last))
	case ctx.Err() != nil:
		return fmt.Errorf("ns3: the simulation was stopped: %w", ctx.Err())
	case err != nil:
		return fmt.Errorf("ns3: %s failed: %w\n%s", filepath.Base(prog), err, strings.TrimSpace(msgs.String()))
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// parseOutput reads the program's output for flows (in input order) on a
// network of nch channels.
func parseOutput(r io.Reader, name string, flows []workload.Flow, nch int) (*Result, error) {
	index := make(map[int]int, len(flows))
	for i, f := range flows {
		index[f.ID] = i
	}
	res := &Result{Flows: make([]FlowOutcome, len(flows)), Channels: make([]ChannelStats, nch)}
	seen := make([]bool, len(flows))
	nseen, ended := 0, false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		bad := func(why string) error {
			return fmt.Errorf("ns3: %s:%d: %s: %q", name, n, why, line)
		}
		if ended {
			return nil, bad("text after the end line")
		}
		fields := strings.Fields(line)
		switch fields[0] {
		case "flow":
			v, err := ints(fields[1:], 6)
			if err != nil {
				return nil, bad(err.Error())
			}
			i, ok := index[int(v[0])]
			switch {
			case !ok:
				return nil, bad("unknown flow id")
			case seen[i]:
				return nil, bad("flow reported twice")
			case v[5] < 0 || v[5] > flows[i].Size:
				return nil, bad(fmt.Sprintf("bytes received out of range 0..%d", flows[i].Size))
			case v[1] >= 0 && (v[5] != flows[i].Size || v[1] != v[4]-v[3] || v[3] < flows[i].Start):
				return nil, bad("inconsistent finished flow (want all bytes, fct = end - first byte, first byte after start)")
			}
			seen[i] = true
			nseen++
			res.Flows[i] = FlowOutcome{ID: int(v[0]), FCT: v[1], Start: v[2], FirstByte: v[3], End: v[4], BytesReceived: v[5]}
		case "loss":
			v, err := ints(fields[1:], 3)
			if err != nil {
				return nil, bad(err.Error())
			}
			i, ok := index[int(v[0])]
			switch {
			case !ok:
				return nil, bad("unknown flow id")
			case !seen[i]:
				return nil, bad("loss record before its flow record")
			case v[1] < 0 || v[2] < 0:
				return nil, bad("negative count")
			}
			res.Flows[i].Timeouts, res.Flows[i].FastRecoveries = int(v[1]), int(v[2])
		case "channel":
			v, err := ints(fields[1:], 5)
			if err != nil {
				return nil, bad(err.Error())
			}
			if v[0] < 0 || v[0] >= int64(nch) {
				return nil, bad(fmt.Sprintf("channel id out of range 0..%d", nch-1))
			}
			res.Channels[v[0]] = ChannelStats{Packets: v[1], Bytes: v[2], Drops: v[3], Marks: v[4]}
		case "end":
			if err := parseEnd(fields[1:], res); err != nil {
				return nil, bad(err.Error())
			}
			ended = true
		default:
			return nil, bad("unknown record (want flow, loss, channel or end)")
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ns3: reading %s: %w", name, err)
	}
	if !ended {
		return nil, fmt.Errorf("ns3: %s is truncated: no end line", name)
	}
	if nseen != len(flows) {
		for i := range seen {
			if !seen[i] {
				return nil, fmt.Errorf("ns3: %s reports %d of %d flows; flow %d is missing", name, nseen, len(flows), flows[i].ID)
			}
		}
	}
	return res, nil
}

func ints(fields []string, n int) ([]int64, error) {
	if len(fields) != n {
		return nil, fmt.Errorf("want %d numbers, got %d", n, len(fields))
	}
	v := make([]int64, n)
	for i, s := range fields {
		var err error
		if v[i], err = strconv.ParseInt(s, 10, 64); err != nil {
			return nil, fmt.Errorf("field %d is not an integer", i+2)
		}
	}
	return v, nil
}

func parseEnd(fields []string, res *Result) error {
	for _, kv := range fields {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return errors.New("want key=value pairs")
		}
		var err error
		switch k {
		case "events":
			res.Events, err = strconv.ParseInt(v, 10, 64)
		case "sim_ns":
			res.SimNanos, err = strconv.ParseInt(v, 10, 64)
		case "wall_s":
			res.WallSeconds, err = strconv.ParseFloat(v, 64)
		case "failed":
			res.Failed, err = strconv.Atoi(v)
		case "unrouted":
			res.Unrouted, err = strconv.ParseInt(v, 10, 64)
		}
		if err != nil {
			return fmt.Errorf("bad %s value", k)
		}
	}
	return nil
}

// reportLine passes a progress line of the scenario program ("progress
// sim_ns=<t> done=<n>/<N> events=<n> wall_s=<s>") to p: flows done of all,
// and the rest of the line.
func reportLine(p progress.Reporter, line string) {
	var done, total int
	var what []string
	for _, f := range strings.Fields(strings.TrimPrefix(line, "progress ")) {
		if d, ok := strings.CutPrefix(f, "done="); ok {
			fmt.Sscanf(d, "%d/%d", &done, &total)
			continue
		}
		what = append(what, f)
	}
	progress.Report(p, done, total, strings.Join(what, " "))
}
