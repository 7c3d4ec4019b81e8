package accuracy

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/atlas"
	"github.com/tailscope/tailscope/lib/metrics"
)

// Summarize computes the atlas summary from the rows of the atlas sample
// (calibration rows are left out: they measure the summary): per
// estimator, size bin and region, at every pooling level of
// atlas.Region.Pooled, the distribution of the p99 error over the
// scenarios that have a value.
func Summarize(rows []Row, source string) *atlas.Summary {
	s := &atlas.Summary{Bins: Labels(), Threshold: atlas.DefaultThreshold, MinScenarios: atlas.DefaultMinScenarios, Source: source}
	type key struct {
		est, bin string
		r        atlas.Region
	}
	errs := map[key][]float64{}
	ids := map[string]bool{}
	for _, r := range rows {
		if r.Sample != SampleAtlas || r.Refused != "" {
			continue
		}
		ids[r.ScenarioID] = true
		for _, reg := range r.Region.Pooled() {
			for b, l := range Labels() {
				if e := r.Error[b]; !math.IsNaN(e) {
					k := key{r.Estimator, l, reg}
					errs[k] = append(errs[k], e)
				}
			}
		}
	}
	s.Scenarios = len(ids)
	for k, v := range errs {
		s.Intervals = append(s.Intervals, interval(k.est, k.bin, k.r, v))
	}
	order := map[string]int{}
	for i, l := range Labels() {
		order[l] = i
	}
	slices.SortFunc(s.Intervals, func(a, b atlas.Interval) int {
		return cmp.Or(cmp.Compare(a.Estimator, b.Estimator), cmp.Compare(a.Region.String(), b.Region.String()), cmp.Compare(order[a.Bin], order[b.Bin]))
	})
	return s
}

// interval is the distribution of errs.
func interval(est, bin string, r atlas.Region, errs []float64) atlas.Interval {
	q := metrics.Percentiles(errs, []float64{10, 50, 90})
	abs := make([]float64, len(errs))
	worst := 0.0
	for i, e := range errs {
		abs[i] = math.Abs(e)
		if abs[i] > math.Abs(worst) {
			worst = e
		}
	}
	return atlas.Interval{Estimator: est, Region: r, Bin: bin, N: len(errs), P10: q[0], P50: q[1], P90: q[2], Max: worst,
		AbsP90: metrics.Percentile(abs, 90)}
}

// Coverage is how often the stated p10-p90 intervals held the true
// error on the calibration sample.
type Coverage struct {
	Estimator, Bin string
	// Inside of Stated calibration values fell in the interval the atlas
	// stated for their region; Unstated had no interval (too few atlas
	// scenarios in the region).
	Inside, Stated, Unstated int
}

// Calibrate measures the coverage of s's intervals on the calibration
// rows, per estimator and size bin.
func Calibrate(s *atlas.Summary, rows []Row) []Coverage {
	type key struct{ est, bin string }
	cov := map[key]*Coverage{}
	for _, r := range rows {
		if r.Sample != SampleCalibration || r.Refused != "" {
			continue
		}
		exp := expectRow(s, r)
		for b, l := range Labels() {
			e := r.Error[b]
			if math.IsNaN(e) {
				continue
			}
			k := key{r.Estimator, l}
			if cov[k] == nil {
				cov[k] = &Coverage{Estimator: r.Estimator, Bin: l}
			}
			c := cov[k]
			iv, ok := exp[l]
			if !ok {
				c.Unstated++
				continue
			}
			c.Stated++
			if e >= iv.P10 && e <= iv.P90 {
				c.Inside++
			}
		}
	}
	var out []Coverage
	for _, c := range cov {
		out = append(out, *c)
	}
	order := map[string]int{}
	for i, l := range Labels() {
		order[l] = i
	}
	slices.SortFunc(out, func(a, b Coverage) int {
		return cmp.Or(cmp.Compare(a.Estimator, b.Estimator), cmp.Compare(order[a.Bin], order[b.Bin]))
	})
	return out
}

// expectRow is s's interval per bin for the row's region, as
// atlas.Summary.Expect states it for the row's scenario.
func expectRow(s *atlas.Summary, r Row) map[string]atlas.Interval {
	out := map[string]atlas.Interval{}
	for _, iv := range s.ExpectIn(r.Estimator, r.Region).Intervals {
		out[iv.Bin] = iv
	}
	return out
}

// Direction is how often an estimator got the direction of change of a
// counterfactual pair right, per size bin: Right of Pairs, and of the
// Clear pairs (packetsim's change over ClearChange of its value, beyond
// what one seed's noise moves a p99), RightClear.
type Direction struct {
	Estimator, Bin                  string
	Pairs, Right, Clear, RightClear int
}

// ClearChange is the relative change of packetsim's p99 above which a
// pair's direction counts as clear.
const ClearChange = 0.10

// Directions scores the counterfactual pairs among rows (both scenarios
// of a pair finished, the estimator answering both).
func Directions(rows []Row, sample string) []Direction {
	type key struct{ est, wl, sample string }
	byPair := map[key][2]*Row{}
	for i := range rows {
		r := &rows[i]
		if r.Sample != sample || r.Refused != "" {
			continue
		}
		k := key{r.Estimator, r.WorkloadID, r.Sample}
		p := byPair[k]
		if r.Change == "" {
			p[0] = r
		} else {
			p[1] = r
		}
		byPair[k] = p
	}
	type dk struct{ est, bin string }
	d := map[dk]*Direction{}
	for k, p := range byPair {
		if p[0] == nil || p[1] == nil {
			continue
		}
		for b, l := range Labels() {
			t := p[1].Base[b] - p[0].Base[b]
			e := p[1].P99[b] - p[0].P99[b]
			if math.IsNaN(t) || math.IsNaN(e) {
				continue
			}
			x := d[dk{k.est, l}]
			if x == nil {
				x = &Direction{Estimator: k.est, Bin: l}
				d[dk{k.est, l}] = x
			}
			// An estimate that does not move (flowSim under a change of
			// congestion-control parameters) gets no direction right.
			right := (t > 0 && e > 0) || (t < 0 && e < 0) || (t == 0 && e == 0)
			x.Pairs++
			if right {
				x.Right++
			}
			if math.Abs(t) > ClearChange*p[0].Base[b] {
				x.Clear++
				if right {
					x.RightClear++
				}
			}
		}
	}
	var out []Direction
	for _, x := range d {
		out = append(out, *x)
	}
	order := map[string]int{}
	for i, l := range Labels() {
		order[l] = i
	}
	slices.SortFunc(out, func(a, b Direction) int {
		return cmp.Or(cmp.Compare(a.Estimator, b.Estimator), cmp.Compare(order[a.Bin], order[b.Bin]))
	})
	return out
}

// Report writes the atlas's Markdown report of rows: scenarios and CPU
// hours; per estimator and size bin the error distribution over the
// atlas sample, and per region; the refusals the summary makes; the
// direction scores of the counterfactual pairs; the coverage of the
// intervals on the calibration sample.
func Report(w io.Writer, rows []Row) {
	s := Summarize(rows, "")
	scen := map[string]map[string]bool{SampleAtlas: {}, SampleCalibration: {}}
	cpu := map[string]float64{}
	baseCPU := map[string]float64{}
	refusedModel := map[string]int{}
	for _, r := range rows {
		scen[r.Sample][r.ScenarioID] = true
		if r.Refused != "" {
			refusedModel[r.Estimator]++
			continue
		}
		if !math.IsNaN(r.CPUSeconds) {
			cpu[r.Estimator] += r.CPUSeconds
		}
		if !math.IsNaN(r.BaseCPUSeconds) {
			baseCPU[r.ScenarioID] = r.BaseCPUSeconds
		}
	}
	total := 0.0
	for _, c := range baseCPU {
		total += c
	}
	fmt.Fprintf(w, "# Accuracy atlas\n\n%d atlas and %d calibration scenarios finished (p99 slowdown error against packetsim, (estimate - packetsim) / packetsim).\n\n",
		len(scen[SampleAtlas]), len(scen[SampleCalibration]))
	fmt.Fprintf(w, "CPU hours: packetsim %.2f", total/3600)
	for _, e := range slices.Sorted(maps.Keys(cpu)) {
		total += cpu[e]
		fmt.Fprintf(w, ", %s %.2f", e, cpu[e]/3600)
	}
	fmt.Fprintf(w, "; total %.2f.\n\n", total/3600)
	if len(refusedModel) > 0 {
		var parts []string
		for _, e := range slices.Sorted(maps.Keys(refusedModel)) {
			parts = append(parts, fmt.Sprintf("%s %d", e, refusedModel[e]))
		}
		fmt.Fprintf(w, "Scenarios not run (an estimator that does not model the network, estimator.Models; %s where the window does not limit a lone flow): %s.\n\n", ParsimonWindowOnce, strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "## p99 error per estimator and size bin, over every atlas scenario\n\n")
	writeOverall(w, rows)
	fmt.Fprintf(w, "\n## p99 error per estimator, network family and size bin (atlas sample)\n\n")
	writeIntervals(w, s, func(iv atlas.Interval) bool { return iv.Region.Load == "" && iv.Region.Oversub == "" })
	fmt.Fprintf(w, "\n## Refusals (|p99 error| p90 over %.0f%% in some bin, regions of at least %d scenarios)\n\n", 100*s.Threshold, s.MinScenarios)
	writeRefusals(w, s, rows)
	fmt.Fprintf(w, "\n## Parsimon with window_once, before and after (atlas and calibration scenarios where the window limits a lone flow)\n\n")
	writeBeforeAfter(w, rows)
	fmt.Fprintf(w, "\n## Direction of counterfactual pairs (atlas and calibration samples)\n\n")
	fmt.Fprintf(w, "| estimator | bin | pairs | right | clear pairs (packetsim moves > %.0f%%) | right of clear |\n|---|---|---|---|---|---|\n", 100*ClearChange)
	ds := Directions(rows, SampleAtlas)
	ds = append(ds, Directions(rows, SampleCalibration)...)
	for _, d := range combineDirections(ds) {
		fmt.Fprintf(w, "| %s | %s | %d | %s | %d | %s |\n", d.Estimator, d.Bin, d.Pairs, share(d.Right, d.Pairs), d.Clear, share(d.RightClear, d.Clear))
	}
	fmt.Fprintf(w, "\n## Calibration: coverage of the stated p10-p90 intervals on the held-out calibration sample\n\n")
	fmt.Fprintf(w, "| estimator | bin | inside | stated | no interval stated |\n|---|---|---|---|---|\n")
	for _, c := range Calibrate(s, rows) {
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d |\n", c.Estimator, c.Bin, share(c.Inside, c.Stated), c.Stated, c.Unstated)
	}
	fmt.Fprintf(w, "\n## p99 error per region (atlas sample: network family, fabric, flow band, load band; at least %d scenarios)\n\n", s.MinScenarios)
	writeIntervals(w, s, func(iv atlas.Interval) bool {
		return iv.Region.Load != "" && iv.Region.Oversub == "" && iv.N >= s.MinScenarios
	})
}

// combineDirections adds up the scores of the two samples.
func combineDirections(ds []Direction) []Direction {
	type k struct{ est, bin string }
	m := map[k]*Direction{}
	var keys []k
	for _, d := range ds {
		x := m[k{d.Estimator, d.Bin}]
		if x == nil {
			x = &Direction{Estimator: d.Estimator, Bin: d.Bin}
			m[k{d.Estimator, d.Bin}] = x
			keys = append(keys, k{d.Estimator, d.Bin})
		}
		x.Pairs += d.Pairs
		x.Right += d.Right
		x.Clear += d.Clear
		x.RightClear += d.RightClear
	}
	out := make([]Direction, len(keys))
	for i, kk := range keys {
		out[i] = *m[kk]
	}
	return out
}

func share(a, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d (%.0f%%)", a, 100*float64(a)/float64(n))
}

func pct(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%+.0f%%", 100*x)
}

// writeIntervals writes the intervals keep selects as a Markdown table.
func writeIntervals(w io.Writer, s *atlas.Summary, keep func(atlas.Interval) bool) {
	fmt.Fprintf(w, "| estimator | region | bin | n | median | p10 | p90 | max |\n|---|---|---|---|---|---|---|---|\n")
	for _, iv := range s.Intervals {
		if !keep(iv) {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | %s | %s | %s | %s |\n", iv.Estimator, iv.Region, iv.Bin, iv.N, pct(iv.P50), pct(iv.P10), pct(iv.P90), pct(iv.Max))
	}
}

// writeRefusals lists, per estimator, the regions (finest stated) where
// the summary refuses, and the share of the atlas's scenarios it still
// answers.
func writeRefusals(w io.Writer, s *atlas.Summary, rows []Row) {
	refused := map[string][]string{}
	answered, asked := map[string]int{}, map[string]int{}
	for _, r := range rows {
		if r.Sample != SampleAtlas || r.Refused != "" {
			continue
		}
		asked[r.Estimator]++
		e := s.ExpectIn(r.Estimator, r.Region)
		if !e.Refuse {
			answered[r.Estimator]++
			continue
		}
		reg := e.Pooled.String()
		if !slices.Contains(refused[r.Estimator], reg) {
			refused[r.Estimator] = append(refused[r.Estimator], reg)
		}
	}
	fmt.Fprintf(w, "| estimator | answers | refuses in |\n|---|---|---|\n")
	for _, e := range slices.Sorted(maps.Keys(asked)) {
		regs := refused[e]
		slices.Sort(regs)
		fmt.Fprintf(w, "| %s | %s of the atlas's scenarios | %s |\n", e, share(answered[e], asked[e]), strings.Join(regs, "; "))
	}
}

// writeBeforeAfter sets Parsimon's p99 errors against those of
// ParsimonWindowOnce on the scenarios where both ran: median, p10 and
// p90 per size bin.
func writeBeforeAfter(w io.Writer, rows []Row) {
	by := map[string]map[string]Row{}
	for _, r := range rows {
		if r.Refused != "" || (r.Estimator != "parsimon" && r.Estimator != ParsimonWindowOnce) {
			continue
		}
		if by[r.ScenarioID] == nil {
			by[r.ScenarioID] = map[string]Row{}
		}
		by[r.ScenarioID][r.Estimator] = r
	}
	fmt.Fprintf(w, "| bin | scenarios | parsimon median (p10..p90) | window_once median (p10..p90) |\n|---|---|---|---|\n")
	for b, l := range Labels() {
		var before, after []float64
		for _, m := range by {
			x, okx := m["parsimon"]
			y, oky := m[ParsimonWindowOnce]
			if okx && oky && !math.IsNaN(x.Error[b]) && !math.IsNaN(y.Error[b]) {
				before, after = append(before, x.Error[b]), append(after, y.Error[b])
			}
		}
		if len(before) == 0 {
			continue
		}
		q := func(v []float64) string {
			p := metrics.Percentiles(v, []float64{50, 10, 90})
			return fmt.Sprintf("%s (%s..%s)", pct(p[0]), pct(p[1]), pct(p[2]))
		}
		fmt.Fprintf(w, "| %s | %d | %s | %s |\n", l, len(before), q(before), q(after))
	}
}

// writeOverall writes, per estimator and size bin, the distribution of
// the p99 error over every scenario of the atlas sample, and the share
// of scenarios within 10% and 25%.
func writeOverall(w io.Writer, rows []Row) {
	type key struct {
		est string
		bin int
	}
	errs := map[key][]float64{}
	var ests []string
	for _, r := range rows {
		if r.Sample != SampleAtlas || r.Refused != "" {
			continue
		}
		if !slices.Contains(ests, r.Estimator) {
			ests = append(ests, r.Estimator)
		}
		for b := range Labels() {
			if e := r.Error[b]; !math.IsNaN(e) {
				errs[key{r.Estimator, b}] = append(errs[key{r.Estimator, b}], e)
			}
		}
	}
	slices.Sort(ests)
	fmt.Fprintf(w, "| estimator | bin | scenarios | median | p10 | p90 | max | within 10%% | within 25%% |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, e := range ests {
		for b, l := range Labels() {
			v := errs[key{e, b}]
			if len(v) == 0 {
				continue
			}
			iv := interval(e, l, atlas.Region{}, v)
			in10, in25 := 0, 0
			for _, x := range v {
				if math.Abs(x) <= 0.10 {
					in10++
				}
				if math.Abs(x) <= 0.25 {
					in25++
				}
			}
			fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", e, l, len(v), pct(iv.P50), pct(iv.P10), pct(iv.P90), pct(iv.Max), share(in10, len(v)), share(in25, len(v)))
		}
	}
}
