package summary

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
)

// ScenarioName names a scenario for a reader, as in "default,
// meta32-2:1, dctcp, load 50%" (scenario.Spec.Describe). Tables print it
// beside the scenario's ID.
func ScenarioName(s scenario.Spec) string { return s.Describe() }

// BinRow is one estimator's answer on one scenario in one size bin (or
// over all flows, bin "all") against the baseline's on the same flows:
// the p50 and p99 slowdowns and their relative errors (metrics.P99Error;
// NaN where a bin is empty on either side).
type BinRow struct {
	ScenarioID, Scenario string // ID, and ScenarioName
	Estimator, Baseline  string // labels: estimator, or <estimator>@<options hash> for other options
	Bin                  string
	Flows, BaseFlows     int
	P50, BaseP50, P50Err float64
	P99, BaseP99, P99Err float64
}

// compareFrame is one record frame found under the compared directories.
type compareFrame struct {
	path, dir, label string
	meta             frame.Meta
	spec             scenario.Spec
}

// CompareDirs compares, per size bin and over all flows, every record
// frame found in dirs with the baseline's (the estimator named baseline,
// "packetsim" usually) on the same flows. Each directory is a scenario's
// directory as "tailscope run" writes it (<out>/<scenario id>, holding
// <estimator>.parquet) or a results directory holding such directories.
// A frame is compared with the baseline frame in its own directory or,
// where that has none, with the one baseline frame of its workload
// (scenario.Spec.WorkloadID) among dirs: a counterfactual's network
// against the baseline's. Rows come scenario by scenario in the order
// found, estimators in name order, bins in order and then "all".
func CompareDirs(dirs []string, baseline string, bins metrics.Bins) ([]BinRow, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("summary: no directories to compare")
	}
	var frames []compareFrame
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil {
			return nil, fmt.Errorf("summary: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("summary: %s is not a directory (give run directories: <out> or <out>/<scenario id>)", d)
		}
		var paths []string
		for _, pat := range []string{"*.parquet", filepath.Join("*", "*.parquet")} {
			ps, err := filepath.Glob(filepath.Join(d, pat))
			if err != nil {
				return nil, err
			}
			paths = append(paths, ps...)
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("summary: %s holds no record frames (<estimator>.parquet, or <scenario id>/<estimator>.parquet)", d)
		}
		for _, p := range paths {
			if slices.ContainsFunc(frames, func(f compareFrame) bool { return f.path == p }) {
				continue // a directory given twice, or inside another
			}
			_, m, err := frame.ReadRecords(p) // the records are read again when compared, so that not all are held
			if err != nil {
				return nil, fmt.Errorf("summary: %s: %w", p, err)
			}
			if m.Estimator == "" {
				continue // not a record frame (a summary table, a topology)
			}
			spec, err := metaSpec(m)
			if err != nil {
				return nil, fmt.Errorf("summary: %s: %w", p, err)
			}
			frames = append(frames, compareFrame{path: p, dir: filepath.Dir(p), label: frameLabel(p, m.Estimator, spec), meta: m, spec: spec})
		}
	}
	// The baseline of each frame: its directory's, else its workload's one.
	ownBase := map[string]int{}
	workBase := map[string][]int{}
	for i, f := range frames {
		if f.label != baseline {
			continue
		}
		ownBase[f.dir] = i
		w := f.spec.WorkloadID()
		workBase[w] = append(workBase[w], i)
	}
	var rows []BinRow
	// Directories in the order found, estimators in label order in each.
	var order []compareFrame
	seen := map[string]bool{}
	for _, f := range frames {
		if seen[f.dir] {
			continue
		}
		seen[f.dir] = true
		var in []compareFrame
		for _, g := range frames {
			if g.dir == f.dir {
				in = append(in, g)
			}
		}
		slices.SortStableFunc(in, func(a, b compareFrame) int { return strings.Compare(a.label, b.label) })
		order = append(order, in...)
	}
	var baseRecs []metrics.Record
	basePath := ""
	for _, f := range order {
		if f.label == baseline {
			continue
		}
		bi, ok := ownBase[f.dir]
		if !ok {
			cands := workBase[f.spec.WorkloadID()]
			switch len(cands) {
			case 0:
				err := fmt.Errorf("summary: %s has no %s records to compare with, in its directory or for its workload", f.path, baseline)
				if spec := filepath.Join(f.dir, "spec.json"); fileExists(spec) {
					err = fmt.Errorf("%w\nrun instead:\n  tailscope run --spec %s --estimator %s --out %s", err, shellWord(spec), shellWord(baseline), shellWord(filepath.Dir(f.dir)))
				}
				return nil, err
			case 1:
				bi = cands[0]
			default:
				return nil, fmt.Errorf("summary: %s: %d %s frames share its workload and none is in its directory; compare fewer directories", f.path, len(cands), baseline)
			}
		}
		b := frames[bi]
		if b.path != basePath {
			var err error
			if baseRecs, _, err = frame.ReadRecords(b.path); err != nil {
				return nil, err
			}
			basePath = b.path
		}
		est, _, err := frame.ReadRecords(f.path)
		if err != nil {
			return nil, err
		}
		p50, p99 := metrics.Compare(est, baseRecs, bins, 50), metrics.Compare(est, baseRecs, bins, 99)
		name := ScenarioName(f.spec)
		for i, l := range bins.Labels {
			rows = append(rows, BinRow{ScenarioID: f.meta.ScenarioID, Scenario: name, Estimator: f.label, Baseline: b.label, Bin: l,
				Flows: p99.Count[i], BaseFlows: p99.BaseCount[i],
				P50: p50.Est[i], BaseP50: p50.Base[i], P50Err: p50.Error[i],
				P99: p99.Est[i], BaseP99: p99.Base[i], P99Err: p99.Error[i]})
		}
		rows = append(rows, BinRow{ScenarioID: f.meta.ScenarioID, Scenario: name, Estimator: f.label, Baseline: b.label, Bin: "all",
			Flows: len(est), BaseFlows: len(baseRecs),
			P50: p50.All, BaseP50: p50.BaseAll, P50Err: p50.ErrorAll,
			P99: p99.All, BaseP99: p99.BaseAll, P99Err: p99.ErrorAll})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("summary: nothing to compare with %s: the directories hold no other estimator's records", baseline)
	}
	return rows, nil
}

// BinTable is the frame of BinRows, a row each, numbers as numbers.
func BinTable(rows []BinRow) *frame.Table {
	var (
		id, name, est, base, bin []string
		flows, bflows            []int64
		nums                     = make([][]float64, 6)
	)
	for _, r := range rows {
		id, name, est, base, bin = append(id, r.ScenarioID), append(name, r.Scenario), append(est, r.Estimator), append(base, r.Baseline), append(bin, r.Bin)
		flows, bflows = append(flows, int64(r.Flows)), append(bflows, int64(r.BaseFlows))
		for i, v := range []float64{r.P50, r.BaseP50, r.P50Err, r.P99, r.BaseP99, r.P99Err} {
			nums[i] = append(nums[i], v)
		}
	}
	t := &frame.Table{Columns: []frame.Column{
		frame.StringColumn("scenario_id", id), frame.StringColumn("scenario", name),
		frame.StringColumn("estimator", est), frame.StringColumn("baseline", base), frame.StringColumn("bin", bin),
		frame.Int64Column("flows", flows), frame.Int64Column("baseline_flows", bflows)}}
	for i, n := range []string{"p50", "baseline_p50", "p50_error", "p99", "baseline_p99", "p99_error"} {
		t.Columns = append(t.Columns, frame.Float64Column(n, nums[i]))
	}
	return t
}

// WriteBinRows writes rows as a table for the terminal, scenario by
// scenario: a line naming the scenario, then a row per estimator and bin
// with the slowdowns and the errors in percent.
func WriteBinRows(w io.Writer, rows []BinRow) error {
	num := func(x float64) string {
		if math.IsNaN(x) {
			return "n/a"
		}
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	for i := 0; i < len(rows); {
		j := i
		for j < len(rows) && rows[j].ScenarioID == rows[i].ScenarioID {
			j++
		}
		r := rows[i]
		if _, err := fmt.Fprintf(w, "\nscenario %s (%s), against %s\n", r.ScenarioID, r.Scenario, r.Baseline); err != nil {
			return err
		}
		t := &frame.Table{}
		cols := make([][]string, 8)
		for _, r := range rows[i:j] {
			for k, v := range []string{r.Estimator, r.Bin, strconv.Itoa(r.Flows), num(r.P50), signedPct(r.P50Err), num(r.P99), num(r.BaseP99), signedPct(r.P99Err)} {
				cols[k] = append(cols[k], v)
			}
		}
		for k, n := range []string{"estimator", "size bin", "flows", "p50 slowdown", "p50 error", "p99 slowdown", "baseline p99", "p99 error"} {
			t.Columns = append(t.Columns, frame.StringColumn(n, cols[k]))
		}
		if _, err := io.WriteString(w, Markdown(t)); err != nil {
			return err
		}
		i = j
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// shellWord quotes s for a POSIX shell where it needs quoting.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./,:=@%+-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
