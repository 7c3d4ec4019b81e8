package largescale

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/plot"
	"github.com/tailscope/tailscope/lib/summary"
)

// The papers' numbers the tables are set beside (REFERENCE.md).
var (
	// ParsimonTable2 holds Parsimon's Table 2 on 32 cores: wall seconds,
	// speed-up over ns-3 and p99 error over all flows, by estimator.
	ParsimonTable2 = map[string]PaperRow{
		"ns3":        {Seconds: 10*3600 + 48*60, Speedup: 1},
		"parsimon":   {Seconds: 4*60 + 13, Speedup: 154, Error: 0.088},
		"parsimon-c": {Seconds: 60 + 19, Speedup: 492, Error: 0.075},
	}
	// ParsimonInfSeconds and ParsimonPrunedShare: Parsimon/inf's time and
	// the share of link simulations Parsimon/C pruned in §5.2.
	ParsimonInfSeconds  = 21.0
	ParsimonPrunedShare = 0.75
	// M3Table5 holds m3's Table 5 by max load: p99 slowdown of ns-3,
	// Parsimon and m3 and their times in seconds.
	M3Table5 = map[float64]M3PaperRow{
		0.3: {NS3: 1.94, Parsimon: 4.20, M3: 1.96, NS3Seconds: 9.39 * 3600, ParsimonSeconds: 52, M3Seconds: 24},
		0.5: {NS3: 2.05, Parsimon: 4.29, M3: 2.03, NS3Seconds: 13.5 * 3600, ParsimonSeconds: 89, M3Seconds: 39},
		0.7: {NS3: 2.46, Parsimon: 4.66, M3: 2.34, NS3Seconds: 18.5 * 3600, ParsimonSeconds: 128, M3Seconds: 54},
	}
)

// PaperRow is one estimator's row of Parsimon's Table 2.
type PaperRow struct {
	Seconds, Speedup, Error float64
}

// M3PaperRow is one row of m3's Table 5.
type M3PaperRow struct {
	NS3, Parsimon, M3                      float64
	NS3Seconds, ParsimonSeconds, M3Seconds float64
}

// The papers' accuracy figures the report holds the results against:
// Parsimon within 10% of packetsim's p99 at 6,144 hosts, m3 within 5% at
// every load of m3's Table 5, and in the sensitivity analysis at least
// 85% of scenarios within 10% for Parsimon (Parsimon §5.3), m3's mean
// |p99 error| under 7% and its max under 25%.
const (
	GoalParsimon          = 0.10
	GoalM3                = 0.05
	GoalSensitivityWithin = 0.85
	GoalM3Mean            = 0.07
	GoalM3Max             = 0.25
)

// Sensitivity reads the sensitivity analysis' results at scale s under
// dir and in archive ("" for none; see Archive): one summary row per
// scenario and estimator, a scenario's seeds combined into means with 95%
// confidence intervals (summary.CombineSeeds).
func Sensitivity(dir, archive string, s Scale) ([]metrics.Summary, error) {
	sub, ts, err := partTasks(dir, s, PartSensitivity)
	if err != nil {
		return nil, err
	}
	a, err := readArchive(archive, ts)
	if err != nil {
		return nil, err
	}
	rows := a.rows
	if files, _ := filepath.Glob(filepath.Join(sub, "*", "*.parquet")); len(files) > 0 {
		fresh, err := summary.SummarizeDir(sub, Baseline, Bins(), 99, nil)
		if err != nil {
			return nil, err
		}
		fresh = published(fresh)
		for _, r := range fresh {
			if !a.scenarios[r.ScenarioID] {
				rows = append(rows, r)
			}
		}
	}
	sortRows(rows)
	return summary.CombineSeeds(rows, 0.95)
}

// Costs sums the journal's CPU and wall seconds of the finished tasks of
// each named part at scale s under dir and in archive ("" for none), and
// counts them.
func Costs(dir, archive string, s Scale, parts []string) (map[string]PartCost, error) {
	out := map[string]PartCost{}
	for _, part := range parts {
		sub, ts, err := partTasks(dir, s, part)
		if err != nil {
			return nil, err
		}
		costs, err := experiment.ReadJournal(sub)
		if err != nil {
			return nil, err
		}
		if part == PartSensitivity {
			a, err := readArchive(archive, ts)
			if err != nil {
				return nil, err
			}
			for k, c := range a.costs {
				costs[k] = c
			}
		}
		pc := PartCost{Tasks: len(ts), EstimatorCPU: map[string]float64{}}
		scen := map[string]map[string]float64{} // scenario -> estimator -> CPU s
		missing := map[string]bool{}
		for _, t := range ts {
			key, err := t.Key()
			if err != nil {
				return nil, err
			}
			id := t.Spec.ID()
			c, ok := costs[key]
			if !ok {
				missing[id] = true
				continue
			}
			pc.Done++
			pc.WallSeconds += c.WallSeconds
			pc.CPUSeconds += c.CPUSeconds
			if scen[id] == nil {
				scen[id] = map[string]float64{}
			}
			scen[id][t.Estimator] = c.CPUSeconds
		}
		for id, byEst := range scen {
			if missing[id] {
				continue
			}
			pc.Complete++
			for e, cpu := range byEst {
				pc.EstimatorCPU[e] += cpu
			}
		}
		out[part] = pc
	}
	return out, nil
}

// PartCost is what a part's finished tasks cost.
type PartCost struct {
	Tasks, Done             int
	WallSeconds, CPUSeconds float64
	// Complete counts the scenarios whose every task is done, and
	// EstimatorCPU sums each estimator's CPU seconds over them, so that
	// estimators compare on the same scenarios.
	Complete     int
	EstimatorCPU map[string]float64
}

// Report writes the study's tables as Markdown: the Table 2 and Table 5
// analogues beside the papers' numbers, the per-bin p99 errors (Fig. 7's
// numbers), the sensitivity analysis' statistics beside both papers' and
// the papers' accuracy figures; any of outs, sens and costs may be empty.
func Report(w io.Writer, outs []Outcome, sens []metrics.Summary, costs map[string]PartCost) {
	for _, o := range outs {
		if o.Case.Part == PartParsimon {
			table2(w, o)
		}
	}
	table5(w, outs)
	if len(sens) > 0 {
		sensitivity(w, sens)
	}
	if len(costs) > 0 {
		fmt.Fprintf(w, "\n| part | tasks done | CPU hours | wall hours |\n| --- | ---: | ---: | ---: |\n")
		for _, p := range Parts {
			if c, ok := costs[p]; ok {
				fmt.Fprintf(w, "| %s | %d of %d | %.2f | %.2f |\n", p, c.Done, c.Tasks, c.CPUSeconds/3600, c.WallSeconds/3600)
			}
		}
		if c := costs[PartSensitivity]; c.Complete > 0 {
			base := c.EstimatorCPU[Baseline]
			fmt.Fprintf(w, "\nSensitivity CPU seconds over the %d scenarios (seeds apart) every estimator finished, and the CPU speed-up against %s:\n\n| estimator | CPU s | CPU speed-up |\n| --- | ---: | ---: |\n", c.Complete, Baseline)
			for _, e := range SensitivityEstimators {
				fmt.Fprintf(w, "| %s | %.0f | %s |\n", e, c.EstimatorCPU[e], times(base/c.EstimatorCPU[e]))
			}
		}
	}
}

// table2 is the Table 2 analogue of the Parsimon §5.2 case with the
// per-bin p99 errors.
func table2(w io.Writer, o Outcome) {
	base := o.Estimates[Baseline]
	ns3 := DefaultNS3.CPUSeconds(base.extra("packet_hops"))
	fmt.Fprintf(w, "\n%s: %d flows, packetsim p99 slowdown %.3f; ns-3 estimated at %.1f CPU hours (%.3g packet-hops x %.2f events / %.0fk events per CPU s; paper: %s)\n\n",
		o.Case.Name(), base.Flows, base.All[p99], ns3/3600, base.extra("packet_hops"), DefaultNS3.EventsPerPacketHop, DefaultNS3.EventsPerCPUSecond/1e3, duration(ParsimonTable2["ns3"].Seconds))
	fmt.Fprintf(w, "| estimator | p99 error | paper | wall | CPU | CPU speed-up vs packetsim | est. speed-up vs ns-3 | paper (wall, 32 cores) | link sims | pruned | parsimon-inf |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, name := range o.Case.Estimators {
		e := o.Estimates[name]
		if e == nil {
			continue
		}
		paper, ok := ParsimonTable2[name]
		perr, pspeed := "-", "-"
		if ok {
			perr, pspeed = signed(paper.Error), fmt.Sprintf("%s (%.0fx)", duration(paper.Seconds), paper.Speedup)
		}
		sims, pruned, inf := "-", "-", "-"
		if !math.IsNaN(e.extra("link_sims")) {
			sims, pruned = fmt.Sprintf("%.0f", e.extra("link_sims")), percent(e.PrunedShare())
		}
		if v, ok := e.Timings["inf_s"]; ok {
			inf = duration(v)
		}
		err := "(baseline)"
		if name != Baseline {
			err = signed(o.P99Error(name))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", name, err, perr,
			duration(e.WallSeconds), duration(e.CPUSeconds), times(base.CPUSeconds/e.CPUSeconds), times(ns3/e.CPUSeconds), pspeed, sims, pruned, inf)
	}
	fmt.Fprintf(w, "\nPaper: Parsimon/inf %s, Parsimon/C prunes %s of link simulations.\n", duration(ParsimonInfSeconds), percent(ParsimonPrunedShare))
	bins(w, o)
}

// bins writes the per-bin p99 slowdowns and errors of an outcome.
func bins(w io.Writer, o Outcome) {
	b := Bins()
	base := o.Estimates[Baseline]
	fmt.Fprintf(w, "\n| p99 slowdown (error) | %s | all |\n| --- |%s ---: |\n", strings.Join(b.Labels, " | "), strings.Repeat(" ---: |", b.Len()))
	for _, name := range o.Case.Estimators {
		e := o.Estimates[name]
		if e == nil {
			continue
		}
		fmt.Fprintf(w, "| %s |", name)
		for i := range b.Labels {
			fmt.Fprintf(w, " %.3f%s |", e.P[p99][i], errNote(name, e.P[p99][i], base.P[p99][i]))
		}
		fmt.Fprintf(w, " %.3f%s |\n", e.All[p99], errNote(name, e.All[p99], base.All[p99]))
	}
}

func errNote(name string, est, base float64) string {
	if name == Baseline {
		return ""
	}
	return " (" + signed(metrics.P99Error(est, base)) + ")"
}

// table5 is the Table 5 analogue: one row per m3 §5.3 case beside the
// paper's row.
func table5(w io.Writer, outs []Outcome) {
	var rows []Outcome
	for _, o := range outs {
		if o.Case.Part == PartM3 {
			rows = append(rows, o)
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\n| max load | flows | packetsim p99 | parsimon (error) | m3 (error) | CPU packetsim / parsimon / m3 | paper: ns-3 p99 | Parsimon (error) | m3 (error) | ns-3 / Parsimon / m3 time |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, o := range rows {
		base := o.Estimates[Baseline]
		cell := func(name string) string {
			e := o.Estimates[name]
			if e == nil {
				return "-"
			}
			return fmt.Sprintf("%.3f (%s)", e.All[p99], signed(o.P99Error(name)))
		}
		cpu := func(name string) string {
			if e := o.Estimates[name]; e != nil {
				return duration(e.CPUSeconds)
			}
			return "-"
		}
		p := M3Table5[o.Case.Load]
		fmt.Fprintf(w, "| %s | %d | %.3f | %s | %s | %s / %s / %s | %.2f | %.2f (%s) | %.2f (%s) | %s / %s / %s |\n",
			percent(o.Case.Load), base.Flows, base.All[p99], cell("parsimon"), cell("m3"), cpu(Baseline), cpu("parsimon"), cpu("m3"),
			p.NS3, p.Parsimon, signed(metrics.P99Error(p.Parsimon, p.NS3)), p.M3, signed(metrics.P99Error(p.M3, p.NS3)),
			duration(p.NS3Seconds), duration(p.ParsimonSeconds), duration(p.M3Seconds))
	}
	for _, o := range rows {
		fmt.Fprintf(w, "\n%s, p99 per size bin:\n", o.Case.Name())
		bins(w, o)
	}
}

// SensitivityStats are the sensitivity analysis' headline figures for one
// estimator: the share of scenarios within 10% (overall and per
// max-load range of metrics.ParsimonLoadEdges) and the median, mean and
// largest |p99 error|. A scenario run with several seeds also carries
// the confidence interval of its error; with two seeds the interval is
// wide, so the share "within 10%" is also split by whether the whole
// interval lies inside or outside +-10%.
type SensitivityStats struct {
	Estimator         string
	Scenarios         int
	Within            float64
	WithinByLoad      []float64 // NaN for a range without scenarios
	Median, Mean, Max float64
	// CIScenarios counts the scenarios whose error has a confidence
	// interval; SureIn and SureOut are the shares of them whose whole
	// interval lies within +-10% or outside it, and MedianHalf the
	// median half-width (NaN without intervals).
	CIScenarios     int
	SureIn, SureOut float64
	MedianHalf      float64
}

// Stats computes SensitivityStats of est over rows.
func Stats(rows []metrics.Summary, est string) SensitivityStats {
	edges := metrics.ParsimonLoadEdges()
	s := SensitivityStats{Estimator: est, WithinByLoad: make([]float64, len(edges)+1)}
	var abs []float64
	in, n := make([]int, len(edges)+1), make([]int, len(edges)+1)
	var halves []float64
	sureIn, sureOut := 0, 0
	for _, r := range rows {
		if r.Estimator != est || math.IsNaN(r.P99.ErrorAll) {
			continue
		}
		a := math.Abs(r.P99.ErrorAll)
		abs = append(abs, a)
		if h := r.Half.ErrorAll; r.Seeds > 1 && !math.IsNaN(h) {
			halves = append(halves, h)
			switch {
			case a+h <= metrics.WithinTolerance:
				sureIn++
			case a-h > metrics.WithinTolerance:
				sureOut++
			}
		}
		k := 0
		for k < len(edges) && r.MaxLoad > edges[k] {
			k++
		}
		n[k]++
		if a <= metrics.WithinTolerance {
			in[k]++
		}
	}
	s.Scenarios = len(abs)
	s.CIScenarios = len(halves)
	s.SureIn, s.SureOut, s.MedianHalf = math.NaN(), math.NaN(), math.NaN()
	if len(halves) > 0 {
		s.SureIn = float64(sureIn) / float64(len(halves))
		s.SureOut = float64(sureOut) / float64(len(halves))
		s.MedianHalf = metrics.Percentile(halves, 50)
	}
	for k := range n {
		s.WithinByLoad[k] = float64(in[k]) / float64(n[k])
	}
	st := metrics.SummarizeErrors(abs)
	s.Within, s.Median, s.Mean, s.Max = st.Within, st.MedianAbs, st.MeanAbs, st.MaxAbs
	return s
}

// sensitivity writes the sensitivity analysis' table beside the papers'.
func sensitivity(w io.Writer, rows []metrics.Summary) {
	p, m := Stats(rows, "parsimon"), Stats(rows, "m3")
	byLoad := func(s SensitivityStats) string {
		parts := make([]string, len(s.WithinByLoad))
		for i, v := range s.WithinByLoad {
			parts[i] = percent(v)
		}
		return strings.Join(parts, " / ")
	}
	fmt.Fprintf(w, "\n| p99 slowdown error | paper | tailscope, %d scenarios (seeds combined) |\n| --- | --- | --- |\n", p.Scenarios)
	fmt.Fprintf(w, "| Parsimon within 10%%, all loads | 85%% | %s |\n", percent(p.Within))
	fmt.Fprintf(w, "| ... max load 26-41%% / 41-56%% / 56-83%% | 100%% / 92-96%% / 62%% | %s |\n", byLoad(p))
	fmt.Fprintf(w, "| Parsimon median / mean / max \\|error\\| | 5.8%% / 18.3%% (m3 paper) / 52%% (146%% in m3's runs) | %s / %s / %s |\n", percent(p.Median), percent(p.Mean), percent(p.Max))
	fmt.Fprintf(w, "| m3 within 10%% | - | %s |\n", percent(m.Within))
	fmt.Fprintf(w, "| m3 mean / max \\|error\\| | 9.9%% / 34%% | %s / %s |\n", percent(m.Mean), percent(m.Max))
	for _, s := range []SensitivityStats{p, m} {
		if s.CIScenarios == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s: 95%% CI of a scenario's error over its seeds, median half-width; whole CI within 10%% / outside (%d scenarios) | - | %s; %s / %s |\n",
			s.Estimator, s.CIScenarios, pp(s.MedianHalf), percent(s.SureIn), percent(s.SureOut))
	}
	fmt.Fprintf(w, "\nAll estimators by max-load range:\n\n%s", summary.Markdown(summary.ErrorStats(rows, metrics.ParsimonLoadEdges())))
	fmt.Fprintf(w, "\nParsimon's largest errors:\n\n%s", summary.Markdown(summary.TopErrors(rows, "parsimon", 5)))
	fmt.Fprintf(w, "\nAgainst the papers' figures: Parsimon within 10%% in >= %s of scenarios: %s; m3 mean |error| < %s: %s; m3 max |error| < %s: %s.\n",
		percent(GoalSensitivityWithin), verdict(p.Within >= GoalSensitivityWithin),
		percent(GoalM3Mean), verdict(m.Mean < GoalM3Mean), percent(GoalM3Max), verdict(m.Max < GoalM3Max))
}

// SensitivityFigures draws the sensitivity analysis' figures for
// Parsimon and m3: Fig. 8 (CDF of p99 error by load range) and Fig. 9
// (violins for max load up to and above 50%; left out for a range
// without scenarios), by file name stem.
func SensitivityFigures(rows []metrics.Summary) (map[string]*plot.Figure, error) {
	figs := map[string]*plot.Figure{}
	for _, est := range []string{"parsimon", "m3"} {
		f, err := plot.ErrorCDF(rows, est, metrics.ParsimonLoadEdges())
		if err != nil {
			return nil, err
		}
		figs["fig8-error-cdf-"+est] = f
		for _, v := range []struct {
			name   string
			lo, hi float64
		}{{"fig9a-violins-" + est + "-low", 0, 0.5}, {"fig9b-violins-" + est + "-high", 0.5, 1}} {
			if !anyIn(rows, est, v.lo, v.hi) {
				continue
			}
			f, err := plot.ErrorViolins(rows, est, v.lo, v.hi)
			if err != nil {
				return nil, err
			}
			figs[v.name] = f
		}
	}
	return figs, nil
}

// anyIn reports whether rows has a row of est with max load in (lo, hi].
func anyIn(rows []metrics.Summary, est string, lo, hi float64) bool {
	for _, r := range rows {
		if r.Estimator == est && r.MaxLoad > lo && r.MaxLoad <= hi {
			return true
		}
	}
	return false
}

func verdict(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

func percent(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*x)
}

// pp renders a difference of fractions in percentage points.
func pp(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.1f pp", 100*x)
}

func signed(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*x)
}

func times(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "-"
	case x >= 10:
		return fmt.Sprintf("%.0fx", x)
	case x >= 1:
		return fmt.Sprintf("%.1fx", x)
	}
	return fmt.Sprintf("%.2fx", x)
}

// duration renders seconds as "12.3 s", "4 min 13 s" or "10.8 h".
func duration(s float64) string {
	switch {
	case math.IsNaN(s):
		return "-"
	case s < 60:
		return fmt.Sprintf("%.1f s", s)
	case s < 3600:
		return fmt.Sprintf("%d min %02d s", int(s)/60, int(s)%60)
	}
	return fmt.Sprintf("%.1f h", s/3600)
}

// Results are a study's finished results at one scale.
type Results struct {
	Scale       Scale
	Outcomes    []Outcome         // the 6,144-host cases with a finished baseline
	Sensitivity []metrics.Summary // seeds combined; empty until a scenario is done
	Costs       map[string]PartCost
}

// LoadResults reads whatever of the named parts at scale s is finished
// under dir or archived in archive ("" for none; see Archive).
func LoadResults(dir, archive string, s Scale, parts []string) (*Results, error) {
	cases, err := Cases(s, parts)
	if err != nil {
		return nil, err
	}
	r := &Results{Scale: s}
	if r.Outcomes, err = Load(dir, cases); err != nil {
		return nil, err
	}
	if r.Costs, err = Costs(dir, archive, s, parts); err != nil {
		return nil, err
	}
	if c, ok := r.Costs[PartSensitivity]; ok && c.Done > 0 {
		if r.Sensitivity, err = Sensitivity(dir, archive, s); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Markdown is the study's report (Report) as a string.
func (r *Results) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Scale %s: %g of the papers' flow counts.\n", r.Scale.Name, r.Scale.Fraction)
	Report(&b, r.Outcomes, r.Sensitivity, r.Costs)
	return b.String()
}

// Save writes the report to <dir>/largescale.md, the Table 2 frame to
// <dir>/largescale.parquet and the figures as PNG under figDir: a Fig. 7
// analogue per case (fig7-<part>-<load>.png) and the sensitivity
// figures.
func (r *Results) Save(dir, figDir string) error {
	if err := os.WriteFile(filepath.Join(dir, "largescale.md"), []byte(r.Markdown()), 0o644); err != nil {
		return fmt.Errorf("largescale: %w", err)
	}
	if len(r.Outcomes) > 0 {
		if err := frame.WriteTable(filepath.Join(dir, "largescale.parquet"), Table(r.Outcomes)); err != nil {
			return err
		}
	}
	figs := map[string]*plot.Figure{}
	for _, o := range r.Outcomes {
		f, err := Fig7(o)
		if err != nil {
			return err
		}
		figs[fmt.Sprintf("fig7-%s-%g", o.Case.Part, 100*o.Case.Load)] = f
	}
	if len(r.Sensitivity) > 0 {
		sf, err := SensitivityFigures(r.Sensitivity)
		if err != nil {
			return err
		}
		for k, f := range sf {
			figs[k] = f
		}
	}
	if len(figs) > 0 {
		if err := os.MkdirAll(figDir, 0o755); err != nil {
			return fmt.Errorf("largescale: %w", err)
		}
	}
	for name, f := range figs {
		if err := plot.Save(f, filepath.Join(figDir, name+".png")); err != nil {
			return err
		}
	}
	return nil
}
