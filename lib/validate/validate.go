// Package validate checks tailscope's packet-level simulator against real
// ns-3 on the same scenarios: the suite behind "tailscope validate ns3".
//
// Each case (a dumbbell, a 4-hop parking lot and the 32-rack 2:1 Meta
// fabric, each at several loads, and on request the 384-rack, 6,144-host
// 2:1 fabric) runs three ways, as tasks of an experiment sweep (so a run
// is resumable and can go to Slurm):
//
//   - ns3: Debian's ns-3 3.37 with TcpDctcp (window-based, package ns3);
//   - packetsim-window: packetsim on the same network model, the network
//     preset "ns3" as it is: window-based DCTCP ("dctcp-window") with FIFO
//     host NICs (host_nic "fifo");
//   - packetsim-rate: packetsim's default, the rate-based DCTCP of the
//     papers' ns-3 fork with round-robin NICs, to show how far the papers'
//     model is from stock TCP.
//
// All three see the same flows, the same per-flow ECMP paths and the
// packet sizes ns-3 puts on the wire (netcfg.NS3: 54 B data and ACK
// headers), so ideal FCTs, and hence slowdowns, are computed alike. The
// comparison is the p50 and p99 FCT slowdown per size bin (<=10 KB,
// 10 KB-1 MB, >1 MB, Parsimon's Table 5 bins) and over all flows.
//
// Buffers are infinite unless Finite gives every port a buffer of its own
// with tail drop (netcfg.Config.BufferBytes), which stock ns-3 has too
// (package ns3 sizes its queue discs to hold what a packetsim port holds);
// the outcomes then count the drops on each side.
package validate

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/ns3"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

// Names of the two packetsim configurations in the comparison.
const (
	Window = "packetsim-window"
	Rate   = "packetsim-rate"
)

// Tolerance is the agreement goal: packetsim-window's p99 slowdown per size
// bin within 10% of ns-3's.
const Tolerance = 0.10

// Case is one validation scenario.
type Case struct {
	Topology string  // "dumbbell", "parking-lot-4" or "meta32-2:1"
	Load     float64 // target max load
	// Spec is the scenario with the ns-3 network model (window-based
	// DCTCP); the rate-based run uses the same spec with CC "dctcp".
	Spec scenario.Spec
}

// Name is "<topology> @ <load>%", with ", matrix <m>" for a fabric's
// traffic matrix other than B and ", buffer <n> B" for a finite buffer.
func (c Case) Name() string {
	name := fmt.Sprintf("%s @ %g%%", c.Topology, 100*c.Load)
	if m := c.matrix(); m != "" && m != "B" {
		name += ", matrix " + m
	}
	if b := c.Spec.Network.BufferBytes; b > 0 {
		name += fmt.Sprintf(", buffer %d B", b)
	}
	return name
}

// Topologies are the suite's topologies, in order.
var Topologies = []string{scenario.ValidationDumbbell, scenario.ValidationParkingLot, scenario.ValidationFabric}

// Large are the topologies the suite runs only when named (CasesOn): the
// 6,144-host fabric, where ns-3 takes CPU hours per 100k flows.
var Large = []string{scenario.ValidationLargeFabric}

// Cases returns the suite: every topology at every load, flows flows each
// (scenario.Validation), from seed.
func Cases(flows int, loads []float64, seed uint64) ([]Case, error) {
	return CasesOn(Topologies, flows, loads, seed)
}

// CasesOn returns the cases on the named topologies (of Topologies and
// Large), in the order given, each at every load, flows flows each, from
// seed.
func CasesOn(topologies []string, flows int, loads []float64, seed uint64) ([]Case, error) {
	for _, name := range topologies {
		if !slices.Contains(Topologies, name) && !slices.Contains(Large, name) {
			return nil, fmt.Errorf("validate: unknown topology %q (known: %s)", name, strings.Join(append(slices.Clone(Topologies), Large...), ", "))
		}
	}
	if flows <= 0 {
		return nil, fmt.Errorf("validate: need a positive number of flows, got %d", flows)
	}
	if len(loads) == 0 {
		return nil, fmt.Errorf("validate: no loads")
	}
	var cases []Case
	for _, name := range topologies {
		for _, load := range loads {
			if !(load > 0 && load < 1) {
				return nil, fmt.Errorf("validate: load %g is not in (0, 1)", load)
			}
			spec, err := scenario.Validation(name, flows, load, seed)
			if err != nil {
				return nil, err
			}
			cases = append(cases, Case{Topology: name, Load: load, Spec: spec})
		}
	}
	return cases, nil
}

// Finite returns cases with a buffer of bufferBytes per port, tail drop,
// on every port (switches and host NICs alike, on both sides).
func Finite(cases []Case, bufferBytes int64) ([]Case, error) {
	if bufferBytes <= 0 {
		return nil, fmt.Errorf("validate: buffer %d bytes: want a positive size", bufferBytes)
	}
	out := make([]Case, len(cases))
	for i, c := range cases {
		c.Spec.Network.BufferBytes = bufferBytes
		if err := c.Spec.Network.Validate(); err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// matrix is the traffic matrix of a fabric case ("" for the others).
func (c Case) matrix() string {
	if cs := c.Spec.Workload.Components; len(cs) == 1 {
		return cs[0].Matrix
	}
	return ""
}

// WithMatrix returns cases with the fabric cases' traffic matrix set to m
// (workload.MatrixNames: Meta's A, B or C); the other cases have pairs of
// their own and keep them.
func WithMatrix(cases []Case, m string) ([]Case, error) {
	if !slices.Contains(workload.MatrixNames(), m) {
		return nil, fmt.Errorf("validate: unknown traffic matrix %q (known: %s)", m, strings.Join(workload.MatrixNames(), ", "))
	}
	out := make([]Case, len(cases))
	for i, c := range cases {
		if c.matrix() != "" {
			comps := slices.Clone(c.Spec.Workload.Components)
			comps[0].Matrix = m
			c.Spec.Workload.Components = comps
		}
		out[i] = c
	}
	return out, nil
}

// rateSpec is c's spec with packetsim's default, rate-based DCTCP marked
// at dequeue from round-robin host NICs, as the papers' ns-3 fork runs it.
func (c Case) rateSpec() scenario.Spec {
	s := c.Spec
	d := netcfg.Default()
	s.Network.CC, s.Network.ECNMark, s.Network.HostNIC = d.CC, d.ECNMark, d.HostNIC
	return s
}

// Tasks are the sweep tasks of the cases: ns3 and packetsim-window on each
// case's spec as it is, packetsim-rate on its rate-based twin.
func Tasks(cases []Case) []experiment.Task {
	var ts []experiment.Task
	for _, c := range cases {
		ts = append(ts,
			experiment.Task{Spec: c.Spec, Estimator: ns3.Name},
			experiment.Task{Spec: c.Spec, Estimator: "packetsim"},
			experiment.Task{Spec: c.rateSpec(), Estimator: "packetsim"})
	}
	return ts
}

// Run runs the tasks of cases that are not yet done under dir through exec
// (experiment.Local{} runs them here), reporting progress to p (may be
// nil), and returns the outcomes. Finished tasks are kept, so an
// interrupted validation continues where it stopped.
func Run(ctx context.Context, dir string, cases []Case, exec experiment.Executor, p progress.Reporter) ([]Outcome, error) {
	if err := ns3.Available(); err != nil {
		return nil, err
	}
	if _, err := experiment.Sweep(ctx, dir, Tasks(cases), exec, p); err != nil {
		return nil, err
	}
	return Load(dir, cases)
}

// Outcome is one case's three record sets and wall times.
type Outcome struct {
	Case    Case
	MaxLoad float64 // measured on the flows
	Flows   int
	// Records, wall seconds and packets dropped at full buffers by name:
	// ns3, Window, Rate.
	Records map[string][]metrics.Record
	Wall    map[string]float64
	// CPU seconds by name, from the sweep's journal (ns-3's program
	// included); NaN where the journal does not say.
	CPU   map[string]float64
	Drops map[string]int64
	// Retransmission timeouts and entries into fast recovery by name,
	// with finite buffers (go-back-N never enters fast recovery).
	Timeouts, FastRecoveries map[string]int64
}

// SlowerThanMinRTO counts, per bin of metrics.NS3Bins, the flows of record set
// name whose FCT reached the minimum RTO: with buffers of the validation's
// sizes no queue delays a packet that long, so these flows waited for a
// retransmission timeout (or are long enough to take that long: compare
// with infinite buffers).
func (o Outcome) SlowerThanMinRTO(name string) []int {
	bins := metrics.NS3Bins()
	n := make([]int, bins.Len())
	for _, r := range o.Records[name] {
		if r.FCT >= o.Case.Spec.Network.DCTCP.MinRTONanos {
			n[bins.Index(r.Size)]++
		}
	}
	return n
}

// Names are the record sets of an outcome, ns-3 first.
var Names = []string{ns3.Name, Window, Rate}

// Load reads the cases' results from dir (written by Run).
func Load(dir string, cases []Case) ([]Outcome, error) {
	ts := Tasks(cases)
	costs, err := experiment.ReadJournal(dir)
	if err != nil {
		return nil, err
	}
	var outs []Outcome
	for i, c := range cases {
		sc, err := scenario.Build(c.Spec)
		if err != nil {
			return nil, err
		}
		loads, err := metrics.LinkLoads(sc.Net, sc.Flows)
		if err != nil {
			return nil, err
		}
		o := Outcome{Case: c, MaxLoad: loads.Max, Flows: len(sc.Flows),
			Records: map[string][]metrics.Record{}, Wall: map[string]float64{}, CPU: map[string]float64{}, Drops: map[string]int64{},
			Timeouts: map[string]int64{}, FastRecoveries: map[string]int64{}}
		for j, name := range Names {
			recs, meta, err := ts[3*i+j].Records(dir)
			if err != nil {
				return nil, fmt.Errorf("validate: %s, %s: %w", c.Name(), name, err)
			}
			if len(recs) != len(sc.Flows) {
				return nil, fmt.Errorf("validate: %s, %s: %d records for %d flows", c.Name(), name, len(recs), len(sc.Flows))
			}
			o.Records[name], o.Wall[name], o.CPU[name] = recs, meta.WallSeconds, math.NaN()
			key, err := ts[3*i+j].Key()
			if err != nil {
				return nil, err
			}
			if c, ok := costs[key]; ok {
				o.CPU[name] = c.CPUSeconds
			}
			for key, m := range map[string]map[string]int64{"drops": o.Drops, "timeouts": o.Timeouts, "fast_recoveries": o.FastRecoveries} {
				if d, ok := meta.Extra[key]; ok {
					if m[name], err = strconv.ParseInt(d, 10, 64); err != nil {
						return nil, fmt.Errorf("validate: %s, %s: %s %q: %w", c.Name(), name, key, d, err)
					}
				}
			}
		}
		outs = append(outs, o)
	}
	return outs, nil
}

// Percentiles are the slowdown percentiles compared.
var Percentiles = []float64{50, 99}

// Row is one comparison: a packetsim configuration against ns-3 at one
// percentile in one size bin ("all" for every flow) of one case.
type Row struct {
	Case       Case
	MaxLoad    float64
	Estimator  string // Window or Rate
	Percentile float64
	Bin        string
	Flows      int
	NS3, Est   float64 // slowdown percentiles
	Error      float64 // (Est - NS3) / NS3
}

// Compare turns outcomes into rows: for each case, each packetsim
// configuration, each percentile, each bin of metrics.NS3Bins and all.
func Compare(outs []Outcome) []Row {
	var rows []Row
	for _, o := range outs {
		for _, est := range Names[1:] {
			for _, p := range Percentiles {
				c := metrics.Compare(o.Records[est], o.Records[ns3.Name], metrics.NS3Bins(), p)
				for b, label := range c.Labels {
					rows = append(rows, Row{o.Case, o.MaxLoad, est, p, label, c.BaseCount[b], c.Base[b], c.Est[b], c.Error[b]})
				}
				rows = append(rows, Row{o.Case, o.MaxLoad, est, p, "all", o.Flows, c.BaseAll, c.All, c.ErrorAll})
			}
		}
	}
	return rows
}

// Table is the comparison as a frame, one row per Row, with the wall times
// and drops of ns-3 and of the packetsim configuration on the case.
func Table(outs []Outcome) *frame.Table {
	rows := Compare(outs)
	wall := map[string]Outcome{}
	for _, o := range outs {
		wall[o.Case.Name()] = o
	}
	var (
		cs, tops, ests, bins             []string
		loads, meas, pcts, n3, est, errs []float64
		n3wall, estwall, n3cpu, estcpu   []float64
		flows, n3drops, drops            []int64
	)
	for _, r := range rows {
		o := wall[r.Case.Name()]
		cs, tops, ests, bins = append(cs, r.Case.Name()), append(tops, r.Case.Topology), append(ests, r.Estimator), append(bins, r.Bin)
		loads, meas, pcts = append(loads, r.Case.Load), append(meas, r.MaxLoad), append(pcts, r.Percentile)
		n3, est, errs = append(n3, r.NS3), append(est, r.Est), append(errs, r.Error)
		n3wall, estwall = append(n3wall, o.Wall[ns3.Name]), append(estwall, o.Wall[r.Estimator])
		n3cpu, estcpu = append(n3cpu, o.CPU[ns3.Name]), append(estcpu, o.CPU[r.Estimator])
		flows = append(flows, int64(r.Flows))
		n3drops, drops = append(n3drops, o.Drops[ns3.Name]), append(drops, o.Drops[r.Estimator])
	}
	return &frame.Table{Columns: []frame.Column{
		frame.StringColumn("case", cs),
		frame.StringColumn("topology", tops),
		frame.Float64Column("target_load", loads),
		frame.Float64Column("max_load", meas),
		frame.StringColumn("estimator", ests),
		frame.Float64Column("percentile", pcts),
		frame.StringColumn("size_bin", bins),
		frame.Int64Column("flows", flows),
		frame.Float64Column("ns3_slowdown", n3),
		frame.Float64Column("slowdown", est),
		frame.Float64Column("error", errs),
		frame.Float64Column("ns3_wall_s", n3wall),
		frame.Float64Column("wall_s", estwall),
		frame.Float64Column("ns3_cpu_s", n3cpu),
		frame.Float64Column("cpu_s", estcpu),
		frame.Int64Column("ns3_drops", n3drops),
		frame.Int64Column("drops", drops),
	}}
}

// Figure draws, for p50 and p99, every case's per-bin slowdown from both
// packetsim configurations against ns-3's, with the Tolerance band.
func Figure(outs []Outcome) (*plot.Figure, error) {
	rows := Compare(outs)
	var panels []plot.AgreementPanel
	for _, p := range Percentiles {
		pn := plot.AgreementPanel{
			Title:  fmt.Sprintf("p%g slowdown per size bin", p),
			XLabel: "ns-3 3.37", YLabel: "packetsim",
		}
		for _, est := range Names[1:] {
			s := plot.AgreementSeries{Name: est}
			for _, r := range rows {
				if r.Estimator == est && r.Percentile == p && r.Bin != "all" && r.Flows > 0 {
					s.Reference, s.Estimate = append(s.Reference, r.NS3), append(s.Estimate, r.Est)
				}
			}
			pn.Series = append(pn.Series, s)
		}
		panels = append(panels, pn)
	}
	return plot.Agreement(fmt.Sprintf("packetsim vs ns-3: %d cases, band ±%g%%", len(outs), 100*Tolerance), panels, Tolerance)
}

// Markdown renders the p50 and p99 per-bin comparison as one Markdown
// table per case: bins down, ns-3 and both packetsim configurations across.
func Markdown(outs []Outcome) string {
	rows := Compare(outs)
	var b strings.Builder
	for _, o := range outs {
		fmt.Fprintf(&b, "\n%s (measured max load %.3f, %d flows; wall: ns-3 %.1f s, packetsim-window %.2f s, packetsim-rate %.2f s; CPU: ns-3 %.1f s, packetsim-window %.2f s, ratio %.0f)\n\n",
			o.Case.Name(), o.MaxLoad, o.Flows, o.Wall[ns3.Name], o.Wall[Window], o.Wall[Rate], o.CPU[ns3.Name], o.CPU[Window], o.CPU[ns3.Name]/o.CPU[Window])
		if o.Case.Spec.Network.BufferBytes > 0 {
			fmt.Fprintf(&b, "packets dropped: ns-3 %d, packetsim-window %d, packetsim-rate %d\n\n", o.Drops[ns3.Name], o.Drops[Window], o.Drops[Rate])
			fmt.Fprintf(&b, "timeouts / fast recoveries: ns-3 %d / %d, packetsim-window %d / %d, packetsim-rate %d / %d\n\n",
				o.Timeouts[ns3.Name], o.FastRecoveries[ns3.Name], o.Timeouts[Window], o.FastRecoveries[Window], o.Timeouts[Rate], o.FastRecoveries[Rate])
			fmt.Fprintf(&b, "flows slower than the minimum RTO per bin: ns-3 %v, packetsim-window %v, packetsim-rate %v\n\n",
				o.SlowerThanMinRTO(ns3.Name), o.SlowerThanMinRTO(Window), o.SlowerThanMinRTO(Rate))
		}
		b.WriteString("| size | flows | pct | ns-3 | packetsim-window | error | packetsim-rate | error |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
		for _, p := range Percentiles {
			for _, r := range rows {
				if r.Case.Name() != o.Case.Name() || r.Estimator != Window || r.Percentile != p {
					continue
				}
				rate := find(rows, r, Rate)
				fmt.Fprintf(&b, "| %s | %d | p%g | %.3f | %.3f | %s | %.3f | %s |\n",
					r.Bin, r.Flows, p, r.NS3, r.Est, pct(r.Error), rate.Est, pct(rate.Error))
			}
		}
	}
	return b.String()
}

// find is the row of estimator est matching r's case, percentile and bin.
func find(rows []Row, r Row, est string) Row {
	for _, x := range rows {
		if x.Case.Name() == r.Case.Name() && x.Estimator == est && x.Percentile == r.Percentile && x.Bin == r.Bin {
			return x
		}
	}
	return Row{Est: math.NaN(), Error: math.NaN()}
}

func pct(e float64) string {
	if math.IsNaN(e) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*e)
}

// Speed sums the wall times of each record set over the outcomes: ns-3's
// against packetsim's, the anchor of tailscope's speed-up figures.
func Speed(outs []Outcome) map[string]float64 {
	sum := map[string]float64{}
	for _, o := range outs {
		for n, w := range o.Wall {
			sum[n] += w
		}
	}
	return sum
}

// CPU sums the CPU seconds of each record set over the outcomes (NaN if
// the journal lacks any).
func CPU(outs []Outcome) map[string]float64 {
	sum := map[string]float64{}
	for _, o := range outs {
		for n, c := range o.CPU {
			sum[n] += c
		}
	}
	return sum
}

// Report writes the Markdown tables and the speed summary to w.
func Report(w io.Writer, outs []Outcome) {
	fmt.Fprint(w, Markdown(outs))
	s := Speed(outs)
	fmt.Fprintf(w, "\nwall time over all cases: ns-3 %.1f s, packetsim-window %.2f s (%.0fx faster), packetsim-rate %.2f s (%.0fx faster)\n",
		s[ns3.Name], s[Window], s[ns3.Name]/s[Window], s[Rate], s[ns3.Name]/s[Rate])
	c := CPU(outs)
	fmt.Fprintf(w, "CPU time over all cases: ns-3 %.1f s, packetsim-window %.2f s (%.0fx less), packetsim-rate %.2f s (%.0fx less)\n",
		c[ns3.Name], c[Window], c[ns3.Name]/c[Window], c[Rate], c[ns3.Name]/c[Rate])
}
