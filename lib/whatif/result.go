package whatif

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/atlas"
	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/plot"
)

// Table is the result as a frame, one row per value, estimator and class:
// param, value, x, estimator, class, flows, p99 and p99_ci, error and
// error_ci (relative to the baseline), seeds, and outside_training: the
// share of the estimator's model inputs at that value outside its training
// ranges (Extrapolation; 0 where it has none or reports none); and
// atlas_clear and atlas_right: of the accuracy atlas's counterfactual
// pairs changing Param whose change packetsim shows beyond its seed
// noise in the class, how many there are and in how many the estimator
// moved the same way (0 and 0 where the atlas has none; DirectionLines).
func (r *Result) Table() *frame.Table {
	n := len(r.Points)
	str := func(get func(Point) string) []string {
		v := make([]string, n)
		for i, p := range r.Points {
			v[i] = get(p)
		}
		return v
	}
	num := func(get func(Point) float64) []float64 {
		v := make([]float64, n)
		for i, p := range r.Points {
			v[i] = get(p)
		}
		return v
	}
	flows, seeds, clear, right := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, p := range r.Points {
		flows[i], seeds[i] = int64(p.Flows), int64(r.Seeds)
		// An unreadable embedded atlas is reported by DirectionLines; an
		// estimator the atlas did not measure so has no scores.
		var ds []atlas.Direction
		if l := r.atlasLabel(p.Estimator); l != "" {
			ds, _, _ = estimator.Directions(l, r.Param)
		}
		if j := slices.IndexFunc(ds, func(d atlas.Direction) bool { return d.Bin == p.Class }); j >= 0 {
			clear[i], right[i] = int64(ds[j].Clear), int64(ds[j].Right)
		}
	}
	return &frame.Table{Columns: []frame.Column{
		frame.StringColumn("param", str(func(Point) string { return r.Param })),
		frame.StringColumn("value", str(func(p Point) string { return p.Value })),
		frame.Float64Column("x", num(func(p Point) float64 { return p.X })),
		frame.StringColumn(frame.ColEstimator, str(func(p Point) string { return p.Estimator })),
		frame.StringColumn("class", str(func(p Point) string { return p.Class })),
		frame.Int64Column("flows", flows),
		frame.Float64Column("p99", num(func(p Point) float64 { return p.P99 })),
		frame.Float64Column("p99_ci", num(func(p Point) float64 { return p.Half })),
		frame.Float64Column("error", num(func(p Point) float64 { return p.Error })),
		frame.Float64Column("error_ci", num(func(p Point) float64 { return p.ErrorHalf })),
		frame.Int64Column("seeds", seeds),
		frame.Float64Column("outside_training", num(func(p Point) float64 {
			if x := r.extrapolation(p.Value, p.Estimator); x != nil {
				return float64(x.Paths) / float64(x.Of)
			}
			return 0
		})),
		frame.Int64Column("atlas_clear", clear),
		frame.Int64Column("atlas_right", right),
	}}
}

// Speed is one estimator's cost over the whole sweep: its runs' CPU and
// wall seconds, summed over values and seeds, and the baseline's over the
// values the estimator answered; speed-up is their ratio in CPU time.
type Speed struct {
	Estimator                       string
	Values, Runs                    int
	CPUSeconds, WallSeconds         float64
	BaseCPUSeconds, BaseWallSeconds float64
}

// Speedup is the baseline's CPU time over the estimator's.
func (s Speed) Speedup() float64 { return s.BaseCPUSeconds / s.CPUSeconds }

// Speeds sums the costs per estimator, in the order of r.Estimators.
func (r *Result) Speeds() []Speed {
	base := map[string]Cost{}
	for _, c := range r.Costs {
		if c.Estimator == r.Baseline {
			base[c.Value] = c
		}
	}
	var out []Speed
	for _, e := range r.Estimators {
		s := Speed{Estimator: e}
		for _, c := range r.Costs {
			if c.Estimator != e {
				continue
			}
			s.Values++
			s.Runs += c.Runs
			s.CPUSeconds += c.CPUSeconds
			s.WallSeconds += c.WallSeconds
			s.BaseCPUSeconds += base[c.Value].CPUSeconds
			s.BaseWallSeconds += base[c.Value].WallSeconds
		}
		if s.Runs > 0 {
			out = append(out, s)
		}
	}
	return out
}

// Figure draws the result like m3's Fig. 13/14 (plot.WhatIf): a panel per
// class, the value on x (the values' order where they are not numbers),
// the p99 slowdown per estimator with its intervals.
func (r *Result) Figure() (*plot.Figure, error) {
	label := ParamLabel(r.Param)
	title := fmt.Sprintf("what if: %s (p%g slowdown, %d seeds, %.0f%% intervals)", label, r.Percentile, r.Seeds, 100*r.Level)
	intervals := r.Seeds >= plot.MinIntervalSeeds
	if !intervals {
		title = fmt.Sprintf("what if: %s (p%g slowdown; %d seed(s): no intervals, which need %d or more)", label, r.Percentile, r.Seeds, plot.MinIntervalSeeds)
	}
	switch {
	case len(r.Values) < 2 || r.Resolved():
	case r.Seeds < 2:
		title += "; one seed: no difference can be told from noise"
	default:
		title += fmt.Sprintf("; no %s difference is larger than its interval", r.Baseline)
	}
	d := plot.WhatIfData{Title: title, Param: label, Classes: r.Classes}
	numeric := true
	for _, v := range r.Values {
		numeric = numeric && !math.IsNaN(r.x(v))
	}
	for i, v := range r.Values {
		if numeric {
			d.X = append(d.X, r.x(v))
		} else {
			d.X, d.XLabels = append(d.X, float64(i)), append(d.XLabels, v)
		}
	}
	for _, e := range r.Estimators {
		s := plot.WhatIfSeries{Name: e, Y: make([][]float64, len(r.Classes)), Half: make([][]float64, len(r.Classes))}
		any := false
		for c, class := range r.Classes {
			for _, v := range r.Values {
				p, ok := r.point(v, e, class)
				if !ok {
					p.P99, p.Half = math.NaN(), math.NaN() // refused
				}
				any = any || ok
				s.Y[c], s.Half[c] = append(s.Y[c], p.P99), append(s.Half[c], p.Half)
			}
		}
		if !intervals {
			s.Half = nil
		}
		if any {
			d.Series = append(d.Series, s)
		}
	}
	return plot.WhatIf(d)
}

// x is value v as a number (NaN if it is not one).
func (r *Result) x(v string) float64 {
	for _, p := range r.Points {
		if p.Value == v {
			return p.X
		}
	}
	return math.NaN()
}

// extrapolation is estimator e's extrapolation at value v, nil if it
// answered v inside its training ranges (or has none).
func (r *Result) extrapolation(v, e string) *Extrapolation {
	for i, x := range r.Extrapolations {
		if x.Value == v && x.Estimator == e {
			return &r.Extrapolations[i]
		}
	}
	return nil
}

// point finds estimator e's point at value v in class.
func (r *Result) point(v, e, class string) (Point, bool) {
	for _, p := range r.Points {
		if p.Value == v && p.Estimator == e && p.Class == class {
			return p, true
		}
	}
	return Point{}, false
}

// String renders the result as text: per class, a row per value with each
// estimator's p99 (± its interval) and error against the baseline, marked
// "~" where the estimator extrapolated; then the speed of each estimator,
// the refusals, which differences are larger than their intervals
// (EffectLines), how far the accuracy atlas trusts each estimator's
// direction (DirectionLines) and the extrapolations.
func (r *Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "what if %s = %s: p%g slowdown, %d seed(s), baseline %s, workload %s\n", r.Param, strings.Join(r.Values, ", "), r.Percentile, r.Seeds, r.Baseline, r.WorkloadID)
	for _, class := range r.Classes {
		fmt.Fprintf(&b, "\n%s\n%-12s", class, "value")
		for _, e := range r.Estimators {
			fmt.Fprintf(&b, " %22s", e)
		}
		b.WriteByte('\n')
		for _, v := range r.Values {
			fmt.Fprintf(&b, "%-12s", v)
			for _, e := range r.Estimators {
				p, ok := r.point(v, e, class)
				switch {
				case !ok:
					fmt.Fprintf(&b, " %22s", "refused")
				case e == r.Baseline:
					fmt.Fprintf(&b, " %22s", withCI(p.P99, p.Half))
				default:
					mark := " "
					if r.extrapolation(v, e) != nil {
						mark = "~"
					}
					fmt.Fprintf(&b, " %13s%s %+6.1f%%", withCI(p.P99, p.Half), mark, 100*p.Error)
				}
			}
			b.WriteByte('\n')
		}
	}
	b.WriteString("\nestimator        runs    CPU s   wall s  CPU speed-up over " + r.Baseline + "\n")
	for _, s := range r.Speeds() {
		fmt.Fprintf(&b, "%-14s %6d %8.1f %8.1f  %.1fx\n", s.Estimator, s.Runs, s.CPUSeconds, s.WallSeconds, s.Speedup())
	}
	var refused []string
	for _, f := range r.Refusals {
		if !slices.Contains(refused, f.Reason) {
			refused = append(refused, f.Reason)
		}
	}
	for _, reason := range refused {
		var at []string
		for _, f := range r.Refusals {
			if f.Reason == reason {
				at = append(at, f.Value)
			}
		}
		fmt.Fprintf(&b, "refused at %s = %s: %s\n", r.Param, strings.Join(at, ", "), reason)
	}
	for _, l := range append(r.EffectLines(), r.DirectionLines()...) {
		fmt.Fprintf(&b, "%s\n", l)
	}
	for _, x := range r.Extrapolations {
		fmt.Fprintf(&b, "extrapolated at %s = %s: %s, %d of %d simulated paths outside its model's training ranges (%s)\n",
			r.Param, x.Value, x.Estimator, x.Paths, x.Of, strings.Join(x.Entries, ", "))
	}
	return b.String()
}

func withCI(x, half float64) string {
	if math.IsNaN(half) {
		return fmt.Sprintf("%.3f", x)
	}
	return fmt.Sprintf("%.3f±%.3f", x, half)
}

// paramWords are the swept fields' names in words, for axis labels.
var paramWords = map[string]string{
	"k_bytes_per_gbps":    "ECN threshold (bytes per Gbps)",
	"cc":                  "congestion control",
	"buffer_bytes":        "switch buffer (bytes)",
	"hpcc.eta":            "HPCC target utilization η",
	"hpcc.window_bytes":   "HPCC window (bytes)",
	"hpcc.max_stage":      "HPCC additive-increase stages",
	"dctcp.g":             "DCTCP gain g",
	"dctcp.window_bytes":  "DCTCP window (bytes)",
	"dcqcn.kmin_bytes":    "DCQCN Kmin (bytes)",
	"dcqcn.kmax_bytes":    "DCQCN Kmax (bytes)",
	"dcqcn.pmax":          "DCQCN Pmax",
	"buffer.shared_bytes": "shared buffer (bytes)",
	"buffer.alpha":        "buffer dynamic threshold α",
	"pfc.enabled":         "PFC",
}

// ParamLabel is a network field's JSON path (a what-if's Param) in words,
// for an axis: "k_bytes_per_gbps" is "ECN threshold (bytes per Gbps)".
// Fields without a name of their own are spelled out from the path:
// "timely.tlow_nanos" is "timely tlow (ns)".
func ParamLabel(path string) string {
	if w, ok := paramWords[path]; ok {
		return w
	}
	unit := ""
	for _, u := range [][2]string{{"_bytes", "bytes"}, {"_nanos", "ns"}, {"_ns", "ns"}, {"_bps", "bit/s"}} {
		if t, ok := strings.CutSuffix(path, u[0]); ok {
			path, unit = t, " ("+u[1]+")"
			break
		}
	}
	return strings.NewReplacer(".", " ", "_", " ").Replace(path) + unit
}
