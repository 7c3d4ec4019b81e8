package plot

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
)

// Column names of a summary frame. Per size bin there are three more
// columns, "p99[<bin>]", "baseline_p99[<bin>]" and "p99_error[<bin>]",
// in bin order.
const (
	ColBaseline        = "baseline"
	ColTopology        = "topology"
	ColOversub         = "oversub"
	ColMatrix          = "matrix"
	ColSizes           = "sizes"
	ColSigma           = "sigma"
	ColTargetLoad      = "target_load"
	ColFlows           = "flows"
	ColMaxLoad         = "max_load"
	ColTop10Load       = "top10_load"
	ColWallSeconds     = "wall_seconds"
	ColBaseWallSeconds = "baseline_wall_seconds"
	ColPercentile      = "percentile"
	ColP99             = "p99"
	ColBaseP99         = "baseline_p99"
	ColP99Error        = "p99_error"
	// Every summary frame has the scenario family and the seeds a row
	// averages (0 for one run); a frame with combined rows (CombineSeeds)
	// also has the confidence level and, for each of the p99 columns
	// above (overall and per bin), its CI half-width "<column>_ci".
	ColFamily = "family"
	ColSeeds  = "seeds"
	ColLevel  = "level"
	ciSuffix  = "_ci"
)

// SummaryTable turns summary rows into a frame, one row per scenario and
// estimator. All rows must share the same size bins and percentile.
func SummaryTable(rows []metrics.Summary) (*frame.Table, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("plot: SummaryTable: no rows")
	}
	labels, pct := rows[0].P99.Labels, rows[0].P99.Percentile
	n := len(rows)
	str := func(get func(r metrics.Summary) string) []string {
		v := make([]string, n)
		for i, r := range rows {
			v[i] = get(r)
		}
		return v
	}
	num := func(get func(r metrics.Summary) float64) []float64 {
		v := make([]float64, n)
		for i, r := range rows {
			v[i] = get(r)
		}
		return v
	}
	for i, r := range rows {
		if strings.Join(r.P99.Labels, "\x00") != strings.Join(labels, "\x00") || r.P99.Percentile != pct {
			return nil, fmt.Errorf("plot: SummaryTable: row %d (%s, %s) has bins %v at p%g, row 0 has %v at p%g",
				i, r.ScenarioID, r.Estimator, r.P99.Labels, r.P99.Percentile, labels, pct)
		}
		if len(r.P99.Est) != len(labels) || len(r.P99.Base) != len(labels) || len(r.P99.Error) != len(labels) {
			return nil, fmt.Errorf("plot: SummaryTable: row %d (%s, %s) does not have one value per bin", i, r.ScenarioID, r.Estimator)
		}
	}
	flows := make([]int64, n)
	for i, r := range rows {
		flows[i] = int64(r.Flows)
	}
	t := &frame.Table{Columns: []frame.Column{
		frame.StringColumn(frame.ColScenarioID, str(func(r metrics.Summary) string { return r.ScenarioID })),
		frame.StringColumn(frame.ColEstimator, str(func(r metrics.Summary) string { return r.Estimator })),
		frame.StringColumn(ColBaseline, str(func(r metrics.Summary) string { return r.Baseline })),
		frame.StringColumn(ColTopology, str(func(r metrics.Summary) string { return r.Params.Topology })),
		frame.Float64Column(ColOversub, num(func(r metrics.Summary) float64 { return r.Params.Oversub })),
		frame.StringColumn(ColMatrix, str(func(r metrics.Summary) string { return r.Params.Matrix })),
		frame.StringColumn(ColSizes, str(func(r metrics.Summary) string { return r.Params.Sizes })),
		frame.Float64Column(ColSigma, num(func(r metrics.Summary) float64 { return r.Params.Sigma })),
		frame.Float64Column(ColTargetLoad, num(func(r metrics.Summary) float64 { return r.Params.TargetLoad })),
		frame.Int64Column(ColFlows, flows),
		frame.Float64Column(ColMaxLoad, num(func(r metrics.Summary) float64 { return r.MaxLoad })),
		frame.Float64Column(ColTop10Load, num(func(r metrics.Summary) float64 { return r.Top10Load })),
		frame.Float64Column(ColWallSeconds, num(func(r metrics.Summary) float64 { return r.WallSeconds })),
		frame.Float64Column(ColBaseWallSeconds, num(func(r metrics.Summary) float64 { return r.BaseWallSeconds })),
		frame.Float64Column(ColPercentile, num(func(r metrics.Summary) float64 { return r.P99.Percentile })),
		frame.Float64Column(ColP99, num(func(r metrics.Summary) float64 { return r.P99.All })),
		frame.Float64Column(ColBaseP99, num(func(r metrics.Summary) float64 { return r.P99.BaseAll })),
		frame.Float64Column(ColP99Error, num(func(r metrics.Summary) float64 { return r.P99.ErrorAll })),
	}}
	for b, l := range labels {
		t.Columns = append(t.Columns,
			frame.Float64Column(binColumn(ColP99, l), num(func(r metrics.Summary) float64 { return r.P99.Est[b] })),
			frame.Float64Column(binColumn(ColBaseP99, l), num(func(r metrics.Summary) float64 { return r.P99.Base[b] })),
			frame.Float64Column(binColumn(ColP99Error, l), num(func(r metrics.Summary) float64 { return r.P99.Error[b] })))
	}
	seeds := make([]int64, n)
	combined := false
	for i, r := range rows {
		seeds[i] = int64(r.Seeds)
		combined = combined || r.Seeds > 1
	}
	t.Columns = append(t.Columns, frame.StringColumn(ColFamily, str(func(r metrics.Summary) string { return r.Family })), frame.Int64Column(ColSeeds, seeds))
	if combined {
		// half is a half-width of a combined row, NaN for a row of one run.
		half := func(get func(h metrics.Comparison) float64) []float64 {
			return num(func(r metrics.Summary) float64 {
				if r.Seeds < 2 {
					return math.NaN()
				}
				return get(r.Half)
			})
		}
		t.Columns = append(t.Columns, frame.Float64Column(ColLevel, num(func(r metrics.Summary) float64 { return r.Level })),
			frame.Float64Column(ColP99+ciSuffix, half(func(h metrics.Comparison) float64 { return h.All })),
			frame.Float64Column(ColBaseP99+ciSuffix, half(func(h metrics.Comparison) float64 { return h.BaseAll })),
			frame.Float64Column(ColP99Error+ciSuffix, half(func(h metrics.Comparison) float64 { return h.ErrorAll })))
		for b, l := range labels {
			t.Columns = append(t.Columns,
				frame.Float64Column(binColumn(ColP99+ciSuffix, l), half(func(h metrics.Comparison) float64 { return h.Est[b] })),
				frame.Float64Column(binColumn(ColBaseP99+ciSuffix, l), half(func(h metrics.Comparison) float64 { return h.Base[b] })),
				frame.Float64Column(binColumn(ColP99Error+ciSuffix, l), half(func(h metrics.Comparison) float64 { return h.Error[b] })))
		}
	}
	return t, t.Check()
}

func binColumn(prefix, label string) string { return prefix + "[" + label + "]" }

// Summaries reads summary rows back from a frame written by SummaryTable.
// Flow counts per bin are not stored and come back empty.
func Summaries(t *frame.Table) ([]metrics.Summary, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	var firstErr error
	strs := func(name string) []string {
		v, err := t.Strings(name)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return v
	}
	nums := func(name string) []float64 {
		v, err := t.Float64s(name)
		if err != nil && firstErr == nil {
			firstErr = err
		}
		return v
	}
	scen, est, base := strs(frame.ColScenarioID), strs(frame.ColEstimator), strs(ColBaseline)
	topo, matrix, sizes := strs(ColTopology), strs(ColMatrix), strs(ColSizes)
	over, sigma, target := nums(ColOversub), nums(ColSigma), nums(ColTargetLoad)
	maxLoad, top10, wall, bwall := nums(ColMaxLoad), nums(ColTop10Load), nums(ColWallSeconds), nums(ColBaseWallSeconds)
	pct, p99, bp99, perr := nums(ColPercentile), nums(ColP99), nums(ColBaseP99), nums(ColP99Error)
	flows, err := t.Int64s(ColFlows)
	if err != nil && firstErr == nil {
		firstErr = err
	}
	var labels []string
	var est99, base99, err99 [][]float64
	for _, c := range t.Columns {
		if l, ok := strings.CutPrefix(c.Name, ColP99+"["); ok && strings.HasSuffix(l, "]") {
			l = strings.TrimSuffix(l, "]")
			labels = append(labels, l)
			est99 = append(est99, nums(binColumn(ColP99, l)))
			base99 = append(base99, nums(binColumn(ColBaseP99, l)))
			err99 = append(err99, nums(binColumn(ColP99Error, l)))
		}
	}
	family, seeds := strs(ColFamily), []int64(nil)
	if seeds, err = t.Int64s(ColSeeds); err != nil && firstErr == nil {
		firstErr = err
	}
	if firstErr != nil {
		return nil, fmt.Errorf("plot: not a summary frame: %w", firstErr)
	}
	// The CI columns exist when some row combines seeds.
	var level, hAll, hBase, hErr []float64
	var hEst, hBaseBin, hErrBin [][]float64
	if _, err := t.Column(ColLevel); err == nil {
		level, hAll, hBase, hErr = nums(ColLevel), nums(ColP99+ciSuffix), nums(ColBaseP99+ciSuffix), nums(ColP99Error+ciSuffix)
		for _, l := range labels {
			hEst = append(hEst, nums(binColumn(ColP99+ciSuffix, l)))
			hBaseBin = append(hBaseBin, nums(binColumn(ColBaseP99+ciSuffix, l)))
			hErrBin = append(hErrBin, nums(binColumn(ColP99Error+ciSuffix, l)))
		}
		if firstErr != nil {
			return nil, fmt.Errorf("plot: summary frame with a level column but not all CI columns: %w", firstErr)
		}
	}
	rows := make([]metrics.Summary, t.Len())
	for i := range rows {
		c := metrics.Comparison{Percentile: pct[i], Labels: labels,
			Est: make([]float64, len(labels)), Base: make([]float64, len(labels)), Error: make([]float64, len(labels)),
			All: p99[i], BaseAll: bp99[i], ErrorAll: perr[i]}
		for b := range labels {
			c.Est[b], c.Base[b], c.Error[b] = est99[b][i], base99[b][i], err99[b][i]
		}
		rows[i] = metrics.Summary{ScenarioID: scen[i], Estimator: est[i], Baseline: base[i],
			Params: metrics.Params{Topology: topo[i], Oversub: over[i], Matrix: matrix[i], Sizes: sizes[i], Sigma: sigma[i], TargetLoad: target[i]},
			Flows:  int(flows[i]), MaxLoad: maxLoad[i], Top10Load: top10[i],
			WallSeconds: wall[i], BaseWallSeconds: bwall[i], P99: c, Family: family[i], Seeds: int(seeds[i])}
		if level != nil && seeds[i] > 1 {
			h := metrics.Comparison{Percentile: pct[i], Labels: labels, All: hAll[i], BaseAll: hBase[i], ErrorAll: hErr[i]}
			for b := range labels {
				h.Est, h.Base, h.Error = append(h.Est, hEst[b][i]), append(h.Base, hBaseBin[b][i]), append(h.Error, hErrBin[b][i])
			}
			rows[i].Level, rows[i].Half = level[i], h
		}
	}
	return rows, nil
}

// pct formats a fraction as a percentage with one decimal ("51.9%").
func pct(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return strconv.FormatFloat(100*x, 'f', 1, 64) + "%"
}

// signedPct is pct with an explicit sign, for errors ("+8.8%").
func signedPct(x float64) string {
	if math.IsNaN(x) || x < 0 {
		return pct(x)
	}
	return "+" + pct(x)
}

// TopErrors is Parsimon's Table 4: the k summary rows of estimator with
// the largest absolute overall p99 error, as display strings: error, max
// load, matrix, sizes, oversubscription, sigma, scenario id.
func TopErrors(rows []metrics.Summary, estimator string, k int) *frame.Table {
	var sel []metrics.Summary
	for _, r := range rows {
		if r.Estimator == estimator && !math.IsNaN(r.P99.ErrorAll) {
			sel = append(sel, r)
		}
	}
	sort.SliceStable(sel, func(i, j int) bool { return math.Abs(sel[i].P99.ErrorAll) > math.Abs(sel[j].P99.ErrorAll) })
	sel = sel[:min(k, len(sel))]
	cols := make([][]string, 7)
	for _, r := range sel {
		for i, v := range []string{signedPct(r.P99.ErrorAll), pct(r.MaxLoad), r.Params.Matrix, r.Params.Sizes,
			strconv.FormatFloat(r.Params.Oversub, 'g', -1, 64) + "-to-1", strconv.FormatFloat(r.Params.Sigma, 'g', -1, 64), r.ScenarioID} {
			cols[i] = append(cols[i], v)
		}
	}
	t := &frame.Table{Meta: frame.Meta{Estimator: estimator}}
	for i, name := range []string{"Error", "Max load", "Matrix", "Sizes", "Oversub", "σ", "Scenario"} {
		t.Columns = append(t.Columns, frame.StringColumn(name, cols[i]))
	}
	return t
}

// ComparisonTable is m3's Table 5: one row per scenario (ordered by max
// load) with the baseline's p99 slowdown and wall time, then for every
// estimator its p99, error and speed-up over the baseline, as display
// strings.
func ComparisonTable(rows []metrics.Summary) *frame.Table {
	var scen, ests []string
	byKey := map[[2]string]metrics.Summary{}
	first := map[string]metrics.Summary{}
	for _, r := range rows {
		if _, ok := first[r.ScenarioID]; !ok {
			first[r.ScenarioID] = r
			scen = append(scen, r.ScenarioID)
		}
		if !containsString(ests, r.Estimator) {
			ests = append(ests, r.Estimator)
		}
		byKey[[2]string{r.ScenarioID, r.Estimator}] = r
	}
	sort.SliceStable(scen, func(i, j int) bool { return first[scen[i]].MaxLoad < first[scen[j]].MaxLoad })
	sort.Strings(ests)
	names := []string{"Scenario", "Max load", "Flows", "Baseline p99", "Baseline time"}
	for _, e := range ests {
		names = append(names, e+" p99", e+" error", e+" time", e+" speed-up")
	}
	cols := make([][]string, len(names))
	for _, s := range scen {
		f := first[s]
		row := []string{s, pct(f.MaxLoad), strconv.Itoa(f.Flows), fmt.Sprintf("%.3g", f.P99.BaseAll) + " (" + f.Baseline + ")", seconds(f.BaseWallSeconds)}
		for _, e := range ests {
			r, ok := byKey[[2]string{s, e}]
			if !ok {
				row = append(row, "", "", "", "")
				continue
			}
			speed := "n/a"
			if r.WallSeconds > 0 && r.BaseWallSeconds > 0 {
				speed = speedup(r.BaseWallSeconds / r.WallSeconds)
			}
			row = append(row, fmt.Sprintf("%.3g", r.P99.All), signedPct(r.P99.ErrorAll), seconds(r.WallSeconds), speed)
		}
		for i, v := range row {
			cols[i] = append(cols[i], v)
		}
	}
	t := &frame.Table{}
	for i, name := range names {
		t.Columns = append(t.Columns, frame.StringColumn(name, cols[i]))
	}
	return t
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// seconds formats a wall time: "52s", "1m29s", "9.39h".
func seconds(s float64) string {
	switch {
	case s <= 0 || math.IsNaN(s):
		return "n/a"
	case s < 60:
		return strconv.FormatFloat(s, 'g', 3, 64) + "s"
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	}
	return fmt.Sprintf("%.2fh", s/3600)
}

// Markdown renders a table as a GitHub Markdown table: a header row, a
// separator, then one row per table row. Floats get 4 significant digits;
// pipes in cells are escaped. A malformed table renders as its Check
// error.
func Markdown(t *frame.Table) string {
	if err := t.Check(); err != nil {
		return "*" + err.Error() + "*\n"
	}
	var b strings.Builder
	cell := func(c *frame.Column, i int) string {
		switch {
		case c.Int64 != nil:
			return strconv.FormatInt(c.Int64[i], 10)
		case c.Float64 != nil:
			return strconv.FormatFloat(c.Float64[i], 'g', 4, 64)
		}
		return strings.ReplaceAll(c.String[i], "|", `\|`)
	}
	b.WriteString("|")
	for _, c := range t.Columns {
		b.WriteString(" " + strings.ReplaceAll(c.Name, "|", `\|`) + " |")
	}
	b.WriteString("\n|")
	for _, c := range t.Columns {
		if c.String != nil {
			b.WriteString(" --- |")
		} else {
			b.WriteString(" ---: |") // numbers right-aligned
		}
	}
	b.WriteString("\n")
	for i := 0; i < t.Len(); i++ {
		b.WriteString("|")
		for j := range t.Columns {
			b.WriteString(" " + cell(&t.Columns[j], i) + " |")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// speedup formats a speed-up factor with two significant digits below 10,
// so that a slow-down (0.25x) does not print as 0x.
func speedup(x float64) string {
	switch {
	case x >= 10:
		return fmt.Sprintf("%.0fx", x)
	case x >= 1:
		return fmt.Sprintf("%.1fx", x)
	}
	return fmt.Sprintf("%.2fx", x)
}

// ErrorStats summarises the overall p99 error of every estimator other than
// the baseline over a sweep, as the papers quote it: per estimator and
// per max-load range (all loads, then the ranges edges delimit, as in
// ParsimonLoadEdges), the number of scenarios, the share within 10%, the
// median, mean and largest |error|, the share of overestimates, and the
// summed wall time against the baseline's over the same scenarios. Values
// are display strings.
func ErrorStats(rows []metrics.Summary, edges []float64) *frame.Table {
	var ests []string
	seen := map[string]bool{}
	for _, r := range rows {
		if !seen[r.Estimator] && r.Estimator != r.Baseline {
			seen[r.Estimator] = true
			ests = append(ests, r.Estimator)
		}
	}
	sort.Strings(ests)
	ranges := [][2]float64{{math.Inf(-1), math.Inf(1)}}
	bounds := append(append([]float64{math.Inf(-1)}, edges...), math.Inf(1))
	for i := 0; i+1 < len(bounds); i++ {
		ranges = append(ranges, [2]float64{bounds[i], bounds[i+1]})
	}
	names := []string{"Estimator", "Max load", "Scenarios", "Within 10%", "Median |error|", "Mean |error|", "Max |error|", "Over", "Speed-up"}
	cols := make([][]string, len(names))
	for _, e := range ests {
		for k, rg := range ranges {
			var abs []float64
			over, within, wall, base := 0, 0, 0.0, 0.0
			for _, r := range rows {
				if r.Estimator != e || math.IsNaN(r.P99.ErrorAll) || !(r.MaxLoad > rg[0] && r.MaxLoad <= rg[1]) {
					continue
				}
				abs = append(abs, math.Abs(r.P99.ErrorAll))
				if r.P99.ErrorAll > 0 {
					over++
				}
				if math.Abs(r.P99.ErrorAll) <= 0.10 {
					within++
				}
				wall, base = wall+r.WallSeconds, base+r.BaseWallSeconds
			}
			if len(abs) == 0 {
				continue
			}
			sort.Float64s(abs)
			load := "all"
			if k > 0 {
				load = loadRange(rg)
			}
			n := float64(len(abs))
			speed := "n/a"
			if wall > 0 && base > 0 {
				speed = speedup(base / wall)
			}
			for i, v := range []string{e, load, strconv.Itoa(len(abs)), pct(float64(within) / n),
				pct(metrics.Percentile(abs, 50)), pct(sum(abs) / n), pct(abs[len(abs)-1]),
				pct(float64(over) / n), speed} {
				cols[i] = append(cols[i], v)
			}
		}
	}
	t := &frame.Table{}
	for i, name := range names {
		t.Columns = append(t.Columns, frame.StringColumn(name, cols[i]))
	}
	return t
}

// loadRange names a max-load range such as "41-56%" or "<= 41%".
func loadRange(rg [2]float64) string {
	switch {
	case math.IsInf(rg[0], -1):
		return "<= " + pct(rg[1])
	case math.IsInf(rg[1], 1):
		return "> " + pct(rg[0])
	}
	return pct(rg[0]) + "-" + pct(rg[1])
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}
