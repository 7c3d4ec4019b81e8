// Package dscalestudy is the DSCALE downscaling study behind "tailscope
// dscale" and notebook 09: a network runs beside its DSCALEd replica and a
// DSCALEs replica per sampling factor, and the study compares their
// queues, FCTs and speed. Like package validate it holds the whole recipe
// (the scenario presets, the run, the report, the frames and the
// figures), so that the command and the notebook only call it, and it is
// where DSCALE's results become plot's plain data.
package dscalestudy

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/lib/dscale"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/summary"
	"github.com/tailscope/tailscope/lib/topo"
)

// Presets are the study's scenario presets, for Preset.
var Presets = []string{"cenic", "fabric"}

// Preset returns the named preset's spec with its congested-link
// queueing floor (ns): "cenic", DSCALE's CENIC-like backbone with flows
// flows and load the busiest channel's load (0: 0.85), floor 100 us; or
// "fabric", the 32-rack fabric with two hot hosts whose downlinks carry
// load (0: 0.7) over an arrival window of durationNs, floor 10 us.
func Preset(name string, flows int, load float64, durationNs int64, seed uint64) (scenario.Spec, float64, error) {
	switch name {
	case "cenic":
		return scenario.CENIC(flows, orDefault(load, 0.85), seed), 100_000, nil
	case "fabric":
		return scenario.HotFabric(2, 0.2, orDefault(load, 0.7), durationNs, seed), 10_000, nil
	}
	return scenario.Spec{}, 0, fmt.Errorf("dscalestudy: unknown preset %q (%s)", name, strings.Join(Presets, " or "))
}

func orDefault(x, def float64) float64 {
	if x == 0 {
		return def
	}
	return x
}

// Options configure Run.
type Options struct {
	// Name is the scenario's name in the comparison frame ("": the
	// spec's name).
	Name string
	// Alphas are the DSCALEs sampling factors, one replica each.
	Alphas []float64
	// MinQueueNs is the queueing floor of the congested-link test (0:
	// one packet's transmission, dscale's default).
	MinQueueNs float64
	// Progress gets a line per simulation (may be nil).
	Progress progress.Reporter
}

// Study is a finished run of the study on one scenario.
type Study struct {
	Name     string
	Scenario *scenario.Scenario
	Eval     *dscale.Evaluation
}

// Run evaluates sc's network against its replicas (dscale.Evaluate, seeded
// by the spec's seed).
func Run(ctx context.Context, sc *scenario.Scenario, o Options) (*Study, error) {
	ev, err := dscale.Evaluate(ctx, sc.Net, sc.Flows, sc.Spec.Network, dscale.EvalOptions{Alphas: o.Alphas, Seed: sc.Spec.Seed,
		Detect: dscale.DetectOptions{MinQueueNs: o.MinQueueNs}, Progress: o.Progress})
	if err != nil {
		return nil, err
	}
	name := o.Name
	if name == "" {
		name = sc.Spec.Name
	}
	return &Study{Name: name, Scenario: sc, Eval: ev}, nil
}

// NodeLabel names a node of the study's network: CENIC's routers and hosts
// by name, other networks' nodes by id.
func (s *Study) NodeLabel(node int) string {
	if s.Scenario.Net.Name == "cenic-like" {
		return topo.CENICNodeName(node)
	}
	return strconv.Itoa(node)
}

// Report writes the congested channels and the comparison of the replicas
// against the original (a Markdown table).
func (s *Study) Report(w io.Writer) {
	net := s.Scenario.Net
	fmt.Fprintf(w, "%s: %d flows; %d congested channels:\n", net.Summary(), len(s.Scenario.Flows), len(s.Eval.Congested))
	for _, st := range s.Eval.Stats {
		if st.Congested {
			ch := net.Channels[st.Channel]
			fmt.Fprintf(w, "  %4d %s -> %s: utilisation %.2f, mean queueing %.1f us (%.0f%% of the least queued crossing path), %d drops (%s)\n",
				st.Channel, s.NodeLabel(ch.Src), s.NodeLabel(ch.Dst), st.Utilisation, st.MeanQueueNs/1e3, 100*st.MeanQueueNs/st.PathQueueNs, st.Drops, st.Reason)
		}
	}
	fmt.Fprint(w, summary.Markdown(s.comparison()))
}

// Meta is the provenance of the study's frames.
func (s *Study) Meta() frame.Meta {
	sc := s.Scenario
	return frame.Meta{ScenarioID: sc.ID, Network: sc.Net.Name, Spec: sc.Spec.JSON(), Seed: sc.Spec.Seed}
}

func (s *Study) comparison() *frame.Table {
	return s.Eval.ComparisonTable(s.Name, metrics.AllSizes(), s.Meta())
}

// TableNames name the frames of Tables, in order.
var TableNames = []string{"comparison", "queues", "links"}

// Tables are the study's frames, named by TableNames: the comparison of
// every replica against the original (FCT percentiles over all sizes),
// every queue sample, and the congested-link detection.
func (s *Study) Tables() []*frame.Table {
	return []*frame.Table{s.comparison(), s.Eval.QueueTable(s.Meta()), s.Eval.LinkTable(s.Scenario.Net, s.Meta())}
}

// Write stores the frames under dir as <TableNames[i]>.parquet and every
// system's records as <system>.parquet ("DSCALEs a=0.5" becomes
// dscales-a0.5.parquet).
func (s *Study) Write(dir string) error {
	for i, t := range s.Tables() {
		if err := frame.WriteTable(filepath.Join(dir, TableNames[i]+".parquet"), t); err != nil {
			return err
		}
	}
	for _, sys := range s.Eval.Systems {
		m := s.Meta()
		m.Estimator, m.WallSeconds = sys.Name, sys.WallSeconds
		file := strings.NewReplacer(" ", "-", "=", "").Replace(strings.ToLower(sys.Name)) + ".parquet"
		if err := frame.WriteRecords(filepath.Join(dir, file), sys.Records, m); err != nil {
			return err
		}
	}
	return nil
}

// QueueFigure draws, for the k congested channels with the longest mean
// queue in the original, the CDF of the sampled queue length in the
// original and in every replica (DSCALE Fig. 4(ii)).
func (s *Study) QueueFigure(k int) (*plot.Figure, error) {
	ev := s.Eval
	if len(ev.Systems) == 0 || len(ev.Congested) == 0 {
		return nil, fmt.Errorf("dscalestudy: %s: no congested channel to draw", s.Name)
	}
	chans := append([]int(nil), ev.Congested...)
	mean := make(map[int]float64, len(chans)) // the original's mean queue per channel
	for _, c := range chans {
		q := ev.Systems[0].Queues[c]
		var sum float64
		for _, x := range q {
			sum += x
		}
		mean[c] = sum / float64(max(1, len(q)))
	}
	sort.SliceStable(chans, func(a, b int) bool { return mean[chans[a]] > mean[chans[b]] })
	var panels []plot.QueuePanel
	for _, c := range chans[:min(k, len(chans))] {
		ch := s.Scenario.Net.Channels[c]
		p := plot.QueuePanel{Title: fmt.Sprintf("channel %d: %s -> %s", c, s.NodeLabel(ch.Src), s.NodeLabel(ch.Dst))}
		for _, sys := range ev.Systems {
			p.Names, p.Queues = append(p.Names, sys.Name), append(p.Queues, sys.Queues[c])
		}
		panels = append(panels, p)
	}
	return plot.QueueCDFs(panels)
}

// FCTFigure draws the slowdown CDFs of every system per size bin, from
// the tail quantile on (0: whole CDFs).
func (s *Study) FCTFigure(bins metrics.Bins, tail float64) (*plot.Figure, error) {
	var names []string
	var sets [][]metrics.Record
	for _, sys := range s.Eval.Systems {
		names, sets = append(names, sys.Name), append(sets, sys.Records)
	}
	return plot.SlowdownCDF(names, sets, bins, tail)
}
