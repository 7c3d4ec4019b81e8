package summary

import (
	"fmt"
	"math"
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
	// ColBaseFamily is the family of the baseline's scenario where it
	// differs from the row's (metrics.Summary.BaseFamily), else empty.
	// Frames written before it existed lack it and read back empty.
	ColBaseFamily = "baseline_family"
	// ColScenario is the scenario's name and key parameters
	// (metrics.Summary.Name). Frames written before it existed lack it
	// and read back empty.
	ColScenario = "scenario"
)

// Table turns summary rows into a frame, one row per scenario and
// estimator. All rows must share the same size bins and percentile.
func Table(rows []metrics.Summary) (*frame.Table, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("summary: Table: no rows")
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
			return nil, fmt.Errorf("summary: Table: row %d (%s, %s) has bins %v at p%g, row 0 has %v at p%g",
				i, r.ScenarioID, r.Estimator, r.P99.Labels, r.P99.Percentile, labels, pct)
		}
		if len(r.P99.Est) != len(labels) || len(r.P99.Base) != len(labels) || len(r.P99.Error) != len(labels) {
			return nil, fmt.Errorf("summary: Table: row %d (%s, %s) does not have one value per bin", i, r.ScenarioID, r.Estimator)
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
	t.Columns = append(t.Columns, frame.StringColumn(ColFamily, str(func(r metrics.Summary) string { return r.Family })), frame.Int64Column(ColSeeds, seeds),
		frame.StringColumn(ColBaseFamily, str(func(r metrics.Summary) string { return r.BaseFamily })),
		frame.StringColumn(ColScenario, str(func(r metrics.Summary) string { return r.Name })))
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

// Rows reads summary rows back from a frame written by Table.
// Flow counts per bin are not stored and come back empty.
func Rows(t *frame.Table) ([]metrics.Summary, error) {
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
		return nil, fmt.Errorf("summary: not a summary frame: %w", firstErr)
	}
	baseFamily := make([]string, t.Len())
	if _, err := t.Column(ColBaseFamily); err == nil {
		baseFamily = strs(ColBaseFamily)
	}
	name := make([]string, t.Len())
	if _, err := t.Column(ColScenario); err == nil {
		name = strs(ColScenario)
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
			return nil, fmt.Errorf("summary: summary frame with a level column but not all CI columns: %w", firstErr)
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
		rows[i] = metrics.Summary{ScenarioID: scen[i], Name: name[i], Estimator: est[i], Baseline: base[i],
			Params: metrics.Params{Topology: topo[i], Oversub: over[i], Matrix: matrix[i], Sizes: sizes[i], Sigma: sigma[i], TargetLoad: target[i]},
			Flows:  int(flows[i]), MaxLoad: maxLoad[i], Top10Load: top10[i],
			WallSeconds: wall[i], BaseWallSeconds: bwall[i], P99: c, Family: family[i], Seeds: int(seeds[i]), BaseFamily: baseFamily[i]}
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
