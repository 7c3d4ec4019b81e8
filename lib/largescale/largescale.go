// Package largescale reproduces the papers' large-scale evaluations on one
// machine: the study behind "tailscope largescale" and the notebook
// 10-large-scale.
//
// Three parts, each a resumable sweep of experiment tasks (interrupting a
// run loses at most the tasks in flight; every task can go to Slurm):
//
//   - "parsimon": Parsimon §5.2 (Table 2, Fig. 7). meta384-2:1 (6,144
//     hosts), matrix B, WebServer sizes, sigma 2, 50% max load: the
//     scenario of m3 §5.3's 50% row (ParsimonRow), whose packetsim,
//     parsimon and m3 tasks the two parts share; ground truth full-network
//     packetsim, estimators parsimon, parsimon-c, m3 and flowsim.
//   - "m3": m3 §5.3 (Table 5, Fig. 12). The same fabric at 30%, 50% and
//     70% max load with m3's flow counts (6.83M, 11.4M, 15.9M): packetsim,
//     parsimon and m3.
//   - "sensitivity": the reduced sensitivity analysis (Parsimon §5.3, m3
//     §5.2; README "The reduced sensitivity analysis"): 48 scenarios of
//     Parsimon's Table 3 space on the 32-rack fabrics, 200k flows each,
//     every scenario with 2 seeds, all five estimators.
//
// A Scale shrinks every flow count by one fraction: "ci" (1/1000) runs the
// whole pipeline in minutes, "mid" (1/10) measures costs, "paper" is the
// papers' size. Results go under one directory (Dir), tables and figures
// are computed from its frames (Load, Report, Fig7).
package largescale

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/experiment"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/workload"
)

// The papers' sizes.
const (
	// ParsimonRow is the row of M3Rows that stands for Parsimon §5.2:
	// 11.4M flows at 50% max load, 1.83 s of traffic where the paper
	// simulated 5 s. Its 5 s would be 31.2M flows at our arrival rate
	// (3.74M flows per simulated second at 30%, 6.24M at 50%), and full
	// packetsim on them about 6,000 CPU s in one task that cannot stop
	// and resume midway: longer than a two-core machine runs unattended.
	// The 50% row is the longest that fits, and shares its tasks with m3
	// §5.3.
	ParsimonRow = 1
	// SensitivityFlows is the flows per scenario of the sensitivity
	// analysis at paper scale: enough that host links carry several
	// hundred flows, above Parsimon's bucket size B = 100.
	SensitivityFlows = 200_000
	// SensitivityScenarios and SensitivitySeeds are the reduced analysis'
	// 48 scenarios (drawn with seed 1, as in the README) and the seeds run
	// for each, so every error carries a confidence interval.
	SensitivityScenarios = 48
	SensitivitySeeds     = 2
)

// M3Row is one row of m3's Table 5: max load and flow count.
type M3Row struct {
	Load  float64
	Flows int
}

// M3Rows are m3's Table 5 rows.
var M3Rows = []M3Row{{0.3, 6_830_000}, {0.5, 11_400_000}, {0.7, 15_900_000}}

// Baseline is the ground truth every estimator is compared with.
const Baseline = "packetsim"

// Estimators of each part, the baseline first.
var (
	ParsimonEstimators    = []string{Baseline, "parsimon", "parsimon-c", "m3", "flowsim"}
	M3Estimators          = []string{Baseline, "parsimon", "m3"}
	SensitivityEstimators = []string{Baseline, "flowsim", "parsimon", "parsimon-c", "m3"}
	// SensitivityOptions run Parsimon in the sensitivity analysis as its
	// paper published it (estimator.PublishedParsimon), the method whose
	// sensitivity the analysis measures: the committed archive's results
	// are of it.
	SensitivityOptions = map[string]string{"parsimon": estimator.PublishedParsimon, "parsimon-c": estimator.PublishedParsimon}
)

// Part names, in the order Run runs them.
const (
	PartSensitivity = "sensitivity"
	PartParsimon    = "parsimon"
	PartM3          = "m3"
)

// Parts are the study's parts in the order Run runs them: the
// sensitivity analysis first (the cheapest whole result), then the
// 6,144-host cases.
var Parts = []string{PartSensitivity, PartParsimon, PartM3}

// Scale shrinks the study: every flow count is Fraction of the paper's
// (at least MinFlows), and the sensitivity analysis runs Scenarios
// scenarios with Seeds seeds each.
type Scale struct {
	Name      string
	Fraction  float64
	Scenarios int
	Seeds     int
}

// MinFlows is the fewest flows a scaled scenario gets.
const MinFlows = 200

// Scales are the named scales: ci (1/1000, 4 sensitivity scenarios), mid
// (1/10) and paper.
var Scales = []Scale{
	{Name: "ci", Fraction: 1e-3, Scenarios: 4, Seeds: SensitivitySeeds},
	{Name: "mid", Fraction: 0.1, Scenarios: SensitivityScenarios, Seeds: SensitivitySeeds},
	{Name: "paper", Fraction: 1, Scenarios: SensitivityScenarios, Seeds: SensitivitySeeds},
}

// ScaleByName returns the named scale.
func ScaleByName(name string) (Scale, error) {
	var names []string
	for _, s := range Scales {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Scale{}, fmt.Errorf("largescale: unknown scale %q (known: %s)", name, strings.Join(names, ", "))
}

// Check reports a scale that cannot run.
func (s Scale) Check() error {
	if !(s.Fraction > 0 && s.Fraction <= 1) {
		return fmt.Errorf("largescale: scale %q: fraction %g is not in (0, 1]", s.Name, s.Fraction)
	}
	if s.Scenarios < 1 || s.Seeds < 1 {
		return fmt.Errorf("largescale: scale %q: %d scenarios with %d seeds; need at least one of each", s.Name, s.Scenarios, s.Seeds)
	}
	return nil
}

// Flows is n flows at this scale.
func (s Scale) Flows(n int) int { return max(MinFlows, int(math.Round(float64(n)*s.Fraction))) }

// Case is one 6,144-host scenario and the estimators run on it.
type Case struct {
	Part       string // PartParsimon or PartM3
	Load       float64
	Spec       scenario.Spec
	Estimators []string // Baseline first
}

// Name is e.g. "parsimon §5.2 @ 50%".
func (c Case) Name() string {
	sec := map[string]string{PartParsimon: "parsimon §5.2", PartM3: "m3 §5.3"}[c.Part]
	return fmt.Sprintf("%s @ %g%%", sec, 100*c.Load)
}

// Meta384 is the 6,144-host scenario of both papers' large-scale
// evaluations: meta384-2:1, matrix B, WebServer sizes, log-normal
// arrivals with sigma 2, load and flows as given, seed 1, the default
// network model.
func Meta384(name string, load float64, flows int) scenario.Spec {
	return scenario.Spec{
		Name:     name,
		Topology: scenario.Topology{Preset: "meta384-2:1"},
		Workload: workload.Spec{Flows: flows, Components: []workload.Component{{
			Matrix:  "B",
			Sizes:   workload.SizeSpec{Dist: "webserver"},
			Arrival: workload.Arrival{Process: "lognormal", Sigma: 2},
			MaxLoad: load,
		}}},
		Network: netcfg.Default(),
		Seed:    1,
	}
}

// Cases returns the 6,144-host cases of the named parts at scale s (the
// sensitivity part has none).
func Cases(s Scale, parts []string) ([]Case, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	if err := checkParts(parts); err != nil {
		return nil, err
	}
	var cases []Case
	for _, p := range parts {
		switch p {
		case PartParsimon:
			r := M3Rows[ParsimonRow]
			cases = append(cases, Case{Part: p, Load: r.Load, Estimators: ParsimonEstimators, Spec: m3Spec(s, r)})
		case PartM3:
			for _, r := range M3Rows {
				cases = append(cases, Case{Part: p, Load: r.Load, Estimators: M3Estimators, Spec: m3Spec(s, r)})
			}
		}
	}
	return cases, nil
}

// m3Spec is the scenario of m3 §5.3's row r at scale s. Its name is part
// of the spec's ID, under which finished tasks are found: keep it.
func m3Spec(s Scale, r M3Row) scenario.Spec {
	return Meta384(fmt.Sprintf("largescale m3-5.3 %g %s", r.Load, s.Name), r.Load, s.Flows(r.Flows))
}

func checkParts(parts []string) error {
	if len(parts) == 0 {
		return fmt.Errorf("largescale: no parts named (%s)", strings.Join(Parts, ", "))
	}
	for _, p := range parts {
		if p != PartSensitivity && p != PartParsimon && p != PartM3 {
			return fmt.Errorf("largescale: unknown part %q (%s)", p, strings.Join(Parts, ", "))
		}
	}
	return nil
}

// Tasks are the sweep tasks of the cases: every estimator on its case.
func Tasks(cases []Case) []experiment.Task {
	var ts []experiment.Task
	for _, c := range cases {
		for _, e := range c.Estimators {
			ts = append(ts, experiment.Task{Spec: c.Spec, Estimator: e})
		}
	}
	return ts
}

// SensitivitySpecs are the sensitivity analysis' scenarios at scale s:
// s.Scenarios draws from experiment.DefaultSpace with seed 1 at
// SensitivityFlows scaled, each with s.Seeds seeds. The first 48 draws are
// the README's 48-scenario sweep's scenarios with more flows.
func SensitivitySpecs(s Scale) ([]scenario.Spec, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	sp := experiment.DefaultSpace()
	sp.Flows = []int{s.Flows(SensitivityFlows)}
	specs, err := experiment.Sample(sp, s.Scenarios, 1)
	if err != nil {
		return nil, err
	}
	return experiment.Replicate(specs, s.Seeds)
}

// Directories under a study's directory: one sweep per part kind.
const (
	CasesDir       = "cases"
	SensitivityDir = "sensitivity"
)

// published labels the sensitivity rows of Parsimon run as published
// (SensitivityOptions) by the estimator's name, as the archive's rows
// made when that was the default are: summary labels a frame of
// non-default options by its file's name, "<estimator>@<hash>".
func published(rows []metrics.Summary) []metrics.Summary {
	for i, r := range rows {
		name, _, ok := strings.Cut(r.Estimator, "@")
		opts, isPub := SensitivityOptions[name]
		if !ok || !isPub {
			continue
		}
		if k, err := (experiment.Task{Spec: scenario.Spec{}, Estimator: name, Options: opts}).Key(); err == nil && strings.HasSuffix(k, "/"+r.Estimator) {
			rows[i].Estimator = name
		}
	}
	return rows
}

// partTasks returns the sweep directory under dir and the tasks of one
// part at scale s.
func partTasks(dir string, s Scale, part string) (string, []experiment.Task, error) {
	if part == PartSensitivity {
		specs, err := SensitivitySpecs(s)
		if err != nil {
			return "", nil, err
		}
		ts, err := experiment.Tasks(specs, SensitivityEstimators, SensitivityOptions)
		return filepath.Join(dir, SensitivityDir), ts, err
	}
	cases, err := Cases(s, []string{part})
	return filepath.Join(dir, CasesDir), Tasks(cases), err
}

// Run runs the tasks of the named parts at scale s that are not yet done
// under dir nor archived in archive ("" for none; see Archive), part
// after part in the order of Parts, through exec (experiment.Local{} runs
// them here, one at a time), reporting progress to p (may be nil).
// Finished tasks are kept, so an interrupted study continues where it
// stopped; a failed task does not stop the others.
func Run(ctx context.Context, dir, archive string, s Scale, parts []string, exec experiment.Executor, p progress.Reporter) error {
	if err := checkParts(parts); err != nil {
		return err
	}
	var errs []error
	for _, part := range Parts {
		if !contains(parts, part) {
			continue
		}
		sub, ts, err := partTasks(dir, s, part)
		if err != nil {
			return err
		}
		label := s.Name + " " + part
		if part == PartSensitivity {
			a, err := readArchive(archive, ts)
			if err != nil {
				return err
			}
			n := len(ts)
			ts = slices.DeleteFunc(ts, func(t experiment.Task) bool { return a.scenarios[t.Spec.ID()] })
			if n > len(ts) {
				label += fmt.Sprintf(" (%d of %d tasks archived)", n-len(ts), n)
			}
		}
		var pp progress.Reporter
		if p != nil {
			pp = progress.Func(func(done, total int, what string) {
				if what != "" {
					what = ", " + what
				}
				p.Progress(done, total, label+what)
			})
		}
		if _, err := experiment.Sweep(ctx, sub, ts, exec, pp); err != nil {
			if ctx.Err() != nil {
				return err
			}
			errs = append(errs, fmt.Errorf("largescale: %s: %w", part, err))
		}
	}
	return errors.Join(errs...)
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
