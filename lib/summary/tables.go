package summary

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
)

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
// the largest absolute overall p99 error, as display strings: error (with
// its confidence interval's half-width for a row that combines seeds),
// max load, matrix, sizes, oversubscription, sigma, scenario id.
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
		e := signedPct(r.P99.ErrorAll)
		if r.Seeds > 1 && !math.IsNaN(r.Half.ErrorAll) {
			e += " ± " + pct(r.Half.ErrorAll)
		}
		for i, v := range []string{e, pct(r.MaxLoad), r.Params.Matrix, r.Params.Sizes,
			strconv.FormatFloat(r.Params.Oversub, 'g', -1, 64) + "-to-1", strconv.FormatFloat(r.Params.Sigma, 'g', -1, 64), scenarioCell(r)} {
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
		if !slices.Contains(ests, r.Estimator) {
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
		base := f.Baseline
		if f.BaseFamily != "" {
			base += " of " + f.BaseFamily // a counterfactual: another configuration's baseline
		}
		row := []string{scenarioCell(f), pct(f.MaxLoad), strconv.Itoa(f.Flows), fmt.Sprintf("%.3g", f.P99.BaseAll) + " (" + base + ")", seconds(f.BaseWallSeconds)}
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
// metrics.ParsimonLoadEdges), the number of scenarios, the share within 10%, the
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
			var errs []float64
			wall, base := 0.0, 0.0
			for _, r := range rows {
				if r.Estimator != e || math.IsNaN(r.P99.ErrorAll) || !(r.MaxLoad > rg[0] && r.MaxLoad <= rg[1]) {
					continue
				}
				errs = append(errs, r.P99.ErrorAll)
				wall, base = wall+r.WallSeconds, base+r.BaseWallSeconds
			}
			st := metrics.SummarizeErrors(errs)
			if st.N == 0 {
				continue
			}
			load := "all"
			if k > 0 {
				load = loadRange(rg)
			}
			speed := "n/a"
			if wall > 0 && base > 0 {
				speed = speedup(base / wall)
			}
			for i, v := range []string{e, load, strconv.Itoa(st.N), pct(st.Within),
				pct(st.MedianAbs), pct(st.MeanAbs), pct(st.MaxAbs),
				pct(st.Over), speed} {
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

// scenarioCell is a table's scenario cell: the ID and, when the row
// knows it, the scenario's name and key parameters.
func scenarioCell(r metrics.Summary) string {
	if r.Name == "" {
		return r.ScenarioID
	}
	return r.ScenarioID + " (" + r.Name + ")"
}
