package accuracy

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/atlas"
	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/metrics"
)

// Summarize computes the atlas summary from the rows of the atlas sample
// (calibration rows are left out: they measure the summary): per
// estimator (and variant of Befores, under its label), size bin and
// region, at every pooling level of
// atlas.Region.Pooled, the distribution of the p99 error over the
// scenarios that have a value; with the minimum region size and the
// widening factors Tune chooses on the same rows, so that the stated
// intervals hold atlas.DefaultCoverage of the errors.
func Summarize(rows []Row, source string) *atlas.Summary {
	t := Tune(rows)
	s := rawSummary(rows, source, t.MinScenarios)
	s.Coverage, s.Widen = atlas.DefaultCoverage, t.Widen
	s.Directions = FieldDirections(rows)
	return s
}

// rawSummary is the summary of the atlas rows with minimum region size
// m, its intervals the bare p10..p90.
func rawSummary(rows []Row, source string, m int) *atlas.Summary {
	s := &atlas.Summary{Bins: Labels(), Threshold: atlas.DefaultThreshold, MinScenarios: m, Source: source}
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
	order := binOrder()
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

// Coverage is how often the stated intervals held the true error.
type Coverage struct {
	Estimator, Bin string
	// Inside of Stated values fell in the interval stated for their
	// region; Unstated had no interval (too few atlas scenarios in the
	// region). Width is the sum of the stated intervals' widths.
	Inside, Stated, Unstated int
	Width                    float64
}

// MeanWidth is the stated intervals' mean width.
func (c Coverage) MeanWidth() float64 { return c.Width / float64(c.Stated) }

// Calibrate measures the coverage of s's stated intervals on the
// calibration rows, per estimator and size bin.
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
			c.Width += iv.Hi - iv.Lo
			if e >= iv.Lo && e <= iv.Hi {
				c.Inside++
			}
		}
	}
	return sortCoverage(cov)
}

// sortCoverage lists the coverages by estimator and bin.
func sortCoverage[K comparable](m map[K]*Coverage) []Coverage {
	return byEstimatorBin(m, func(c *Coverage) (string, string) { return c.Estimator, c.Bin })
}

// byEstimatorBin lists m's values by estimator, then size bin (Labels'
// order), as key names them.
func byEstimatorBin[K comparable, V any](m map[K]*V, key func(*V) (est, bin string)) []V {
	var out []V
	for _, v := range m {
		out = append(out, *v)
	}
	order := binOrder()
	slices.SortFunc(out, func(a, b V) int {
		ea, ba := key(&a)
		eb, bb := key(&b)
		return cmp.Or(cmp.Compare(ea, eb), cmp.Compare(order[ba], order[bb]))
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
// Clear pairs (packetsim's change beyond its own seed noise), RightClear.
// OwnSeeds of the pairs were judged by their own seeds (PairSeedLevel),
// the others by the noise sample (ClearOf).
type Direction struct {
	Estimator, Bin                  string
	Pairs, Right, Clear, RightClear int
	OwnSeeds                        int
	// DefaultClear and DefaultRight count the clear pairs the estimator
	// answers by default, and those it gets right: both scenarios inside
	// its model's training range (m3 refuses the others unless asked to
	// answer anyway) and, given a summary, in regions the summary does
	// not refuse.
	DefaultClear, DefaultRight int
}

// ClearChange is the relative change of packetsim's p99 above which a
// pair's direction counts as clear in a size bin the noise sample has
// fewer than MinNoiseRows rows of.
const ClearChange = 0.10

// MinNoiseRows is the fewest noise-sample rows a size bin needs for its
// seed noise to set the bin's clear-change threshold.
const MinNoiseRows = 10

// MinPairSeeds is the fewest seeds both scenarios of a counterfactual
// pair need (Options.PairSeeds) for the pair's own seeds to judge
// whether packetsim's change is clear.
const MinPairSeeds = 3

// PairSeedLevel is the confidence level at which a pair's own seeds
// judge its change clear: the Student-t interval of the mean of its
// per-seed relative changes (metrics.MeanCI) excludes zero, so that a
// change that is noise alone counts as clear one time in ten, as under
// the noise sample's rule.
const PairSeedLevel = 0.90

// Noise is packetsim's seed-to-seed noise in one flow band and size bin,
// over the noise sample: the magnitude of the relative difference of the
// p99 under two seeds, its median and 90th percentile over N scenarios.
type Noise struct {
	// Flows is the flow-count band (atlas.FlowBand) of the scenarios.
	Flows       string
	Bin         string
	N           int
	Median, P90 float64
}

// flowBands are the flow bands in order.
var flowBands = []string{"<5k", "5k-50k", "50k-500k", ">=500k"}

// SeedNoiseOf measures the noise per flow band and size bin from the
// noise sample's rows, for the flow bands it has rows of.
func SeedNoiseOf(rows []Row) []Noise {
	var out []Noise
	for _, band := range flowBands {
		for b, l := range Labels() {
			var v []float64
			for _, r := range rows {
				if r.Sample == SampleNoise && r.Refused == "" && r.Region.Flows == band && !math.IsNaN(r.Error[b]) {
					v = append(v, math.Abs(r.Error[b]))
				}
			}
			n := Noise{Flows: band, Bin: l, N: len(v), Median: math.NaN(), P90: math.NaN()}
			if len(v) > 0 {
				q := metrics.Percentiles(v, []float64{50, 90})
				n.Median, n.P90 = q[0], q[1]
			}
			out = append(out, n)
		}
	}
	return slices.DeleteFunc(out, func(n Noise) bool {
		return !slices.ContainsFunc(out, func(m Noise) bool { return m.Flows == n.Flows && m.N > 0 })
	})
}

// ClearOf is the relative change of packetsim's p99 above which a
// pair of one seed in flow band flows counts as clear, per size bin: the
// 90th percentile of the seed-to-seed noise of that band (a change that
// is noise alone counts as clear one time in ten), or ClearChange where
// the noise sample has fewer than MinNoiseRows rows.
func ClearOf(noise []Noise, flows string) []float64 {
	out := make([]float64, len(Labels()))
	for b := range out {
		out[b] = ClearChange
	}
	for _, n := range noise {
		if b := slices.Index(Labels(), n.Bin); n.Flows == flows && b >= 0 && n.N >= MinNoiseRows {
			out[b] = n.P90
		}
	}
	return out
}

// pairKey is the key a row's counterfactual pair is known by: its Pair,
// or in rows archived before pairs were recorded, its workload (the
// changes of those archives keep the flows).
func pairKey(r *Row) string {
	if r.Pair != "" {
		return r.Pair
	}
	return r.WorkloadID
}

// pairSeeds are packetsim's p99s per size bin of the scenarios of each
// counterfactual pair under every seed the rows hold: by pair, side (0
// for the first scenario, 1 for the changed one) and seed. A noise row
// holds two seeds: its own (its baseline) and the next (its estimate).
func pairSeeds(rows []Row) map[string][2]map[uint64][]float64 {
	out := map[string][2]map[uint64][]float64{}
	put := func(r *Row, seed uint64, v []float64) {
		k := pairKey(r)
		p, ok := out[k]
		if !ok {
			p = [2]map[uint64][]float64{{}, {}}
			out[k] = p
		}
		p[boolInt(r.Change != "")][seed] = v
	}
	for i := range rows {
		r := &rows[i]
		if r.Pair == "" || r.Refused != "" {
			continue
		}
		put(r, r.Seed, r.Base)
		if r.Estimator == SeedNoise {
			put(r, r.Seed+1, r.P99)
		}
	}
	return out
}

// ownSeeds judges a pair's change in bin b by its own seeds: the mean
// relative change over the seeds both sides have, and whether it is
// clear at PairSeedLevel; ok is false below MinPairSeeds seeds.
func ownSeeds(p [2]map[uint64][]float64, b int) (change float64, clear, ok bool) {
	var cs []float64
	for seed, a := range p[0] {
		if bv, in := p[1][seed]; in && !math.IsNaN(a[b]) && !math.IsNaN(bv[b]) && a[b] > 0 {
			cs = append(cs, (bv[b]-a[b])/a[b])
		}
	}
	if len(cs) < MinPairSeeds {
		return 0, false, false
	}
	slices.Sort(cs) // map order must not move the sums' last digits
	iv, err := metrics.MeanCI(cs, PairSeedLevel)
	if err != nil {
		return 0, false, false
	}
	return iv.Mean, math.Abs(iv.Mean) > iv.Half, true
}

// judgement is an estimator's answer to one counterfactual pair in one
// size bin.
type judgement struct {
	est     string
	first   *Row // the pair's first scenario's row, first.Change == ""
	changed *Row
	bin     int
	// clear: packetsim's change is beyond its seed noise; right: the
	// estimator's moved the same way; own: the pair's own seeds judged
	// clear; byDefault: the estimator answers both scenarios by default.
	clear, right, own, byDefault bool
}

// judge judges the counterfactual pairs of sample among rows (both
// scenarios of a pair finished, the estimator answering both). A pair
// run under at least MinPairSeeds seeds is judged by its own seeds:
// packetsim's change is the mean of its per-seed relative changes, clear
// where their PairSeedLevel interval excludes zero. Any other pair is
// judged by its drawn seed, clear in a bin where packetsim's change
// exceeds ClearOf the noise sample of its flow band. The estimator's
// change is the one on the drawn seed, the only one it runs. A non-nil s
// decides which pairs the estimator answers by default.
func judge(rows []Row, sample string, s *atlas.Summary) []judgement {
	noise := SeedNoiseOf(rows)
	seeds := pairSeeds(rows)
	type key struct{ est, pair string }
	byPair := map[key][2]*Row{}
	var keys []key
	for i := range rows {
		r := &rows[i]
		if r.Sample != sample || r.Refused != "" {
			continue
		}
		k := key{r.Estimator, pairKey(r)}
		p, seen := byPair[k]
		if !seen {
			keys = append(keys, k)
		}
		if r.Change == "" {
			p[0] = r
		} else {
			p[1] = r
		}
		byPair[k] = p
	}
	// answers reports whether the estimator answers r's scenario by
	// default.
	answers := func(r *Row) bool {
		return !(r.OutsideShare > 0) && (s == nil || !s.ExpectIn(r.Estimator, r.Region).Refuse)
	}
	var out []judgement
	for _, k := range keys {
		p := byPair[k]
		if p[0] == nil || p[1] == nil {
			continue
		}
		clear := ClearOf(noise, p[0].Region.Flows)
		byDefault := answers(p[0]) && answers(p[1])
		for b := range Labels() {
			t := p[1].Base[b] - p[0].Base[b]
			e := p[1].P99[b] - p[0].P99[b]
			if math.IsNaN(t) || math.IsNaN(e) {
				continue
			}
			j := judgement{est: k.est, first: p[0], changed: p[1], bin: b, byDefault: byDefault,
				clear: math.Abs(t) > clear[b]*p[0].Base[b]}
			if mean, c, ok := ownSeeds(seeds[k.pair], b); ok {
				t, j.clear, j.own = mean, c, true
			}
			// An estimate that does not move (flowSim under a change of
			// congestion-control parameters) gets no direction right.
			j.right = (t > 0 && e > 0) || (t < 0 && e < 0) || (t == 0 && e == 0)
			out = append(out, j)
		}
	}
	return out
}

// Directions scores the counterfactual pairs of sample among rows per
// estimator and size bin (judge).
func Directions(rows []Row, sample string, s *atlas.Summary) []Direction {
	type dk struct{ est, bin string }
	d := map[dk]*Direction{}
	for _, j := range judge(rows, sample, s) {
		l := Labels()[j.bin]
		x := d[dk{j.est, l}]
		if x == nil {
			x = &Direction{Estimator: j.est, Bin: l}
			d[dk{j.est, l}] = x
		}
		x.Pairs++
		x.OwnSeeds += boolInt(j.own)
		x.Right += boolInt(j.right)
		x.Clear += boolInt(j.clear)
		x.DefaultClear += boolInt(j.clear && j.byDefault)
		x.RightClear += boolInt(j.clear && j.right)
		x.DefaultRight += boolInt(j.clear && j.right && j.byDefault)
	}
	return byEstimatorBin(d, func(x *Direction) (string, string) { return x.Estimator, x.Bin })
}

// FieldDirections scores the clear counterfactual pairs of the atlas and
// calibration samples per estimator, changed setting (ChangedField) and
// size bin, as answers state them (atlas.Summary.Directions): the
// befores' too, which answers run as those variants state.
func FieldDirections(rows []Row) []atlas.Direction {
	type dk struct{ est, field, bin string }
	d := map[dk]*atlas.Direction{}
	for _, sample := range []string{SampleAtlas, SampleCalibration} {
		for _, j := range judge(rows, sample, nil) {
			if !j.clear {
				continue
			}
			f := ChangedField(j.changed.Change, j.first.Region)
			if f == "" {
				continue
			}
			k := dk{j.est, f, Labels()[j.bin]}
			x := d[k]
			if x == nil {
				x = &atlas.Direction{Estimator: k.est, Field: k.field, Bin: k.bin}
				d[k] = x
			}
			if !slices.Contains(x.Changes, j.changed.Change) {
				x.Changes = append(x.Changes, j.changed.Change)
				slices.Sort(x.Changes)
			}
			x.Clear++
			x.Right += boolInt(j.right)
		}
	}
	var out []atlas.Direction
	for _, x := range d {
		out = append(out, *x)
	}
	order := binOrder()
	slices.SortFunc(out, func(a, b atlas.Direction) int {
		return cmp.Or(cmp.Compare(a.Estimator, b.Estimator), cmp.Compare(a.Field, b.Field), cmp.Compare(order[a.Bin], order[b.Bin]))
	})
	return out
}

// binOrder maps each bin label to its place in Labels.
func binOrder() map[string]int {
	order := map[string]int{}
	for i, l := range Labels() {
		order[l] = i
	}
	return order
}

// Report writes the atlas's Markdown report of rows: scenarios and CPU
// hours; per estimator and size bin the error distribution over the
// atlas sample, and per region; the refusals the summary makes; the
// direction scores of the counterfactual pairs; the coverage of the
// intervals on the calibration sample.
func Report(w io.Writer, rows []Row) {
	s := Summarize(rows, "")
	scen := map[string]map[string]bool{SampleAtlas: {}, SampleCalibration: {}, SampleNoise: {}}
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
	fmt.Fprintf(w, "# Accuracy atlas\n\n%d atlas, %d calibration and %d seed-noise scenarios finished (p99 slowdown error against packetsim, (estimate - packetsim) / packetsim).\n\n",
		len(scen[SampleAtlas]), len(scen[SampleCalibration]), len(scen[SampleNoise]))
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
		fmt.Fprintf(w, "Scenarios not run (an estimator that does not model the network, estimator.Models; m3-table4 also where m3 runs the same model): %s.\n\n", strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "## p99 error per estimator and size bin, over every atlas scenario\n\n")
	writeOverall(w, rows)
	fmt.Fprintf(w, "\n## The tables BENCHMARKS.md and the README print\n\n")
	fmt.Fprintf(w, "Median p99 error (p10..p90) over the atlas sample, and the share of scenarios within 25%%:\n\n")
	for _, l := range benchmarksTable(rows) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "\nThe README's rows (median p99 error, p10..p90; CPU against packetsim's on the same scenarios):\n\n")
	for _, l := range readmeRows(rows) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "\n## p99 error per estimator, network family and size bin (atlas sample)\n\n")
	writeIntervals(w, s, func(iv atlas.Interval) bool { return iv.Region.Load == "" && iv.Region.Oversub == "" })
	fmt.Fprintf(w, "\n## Refusals\n\n")
	fmt.Fprintf(w, "An estimator refuses a scenario when the interval the atlas states for its region over all flows reaches beyond ±%.0f%%; where only some size bins' intervals do, it answers and marks those bins not trustworthy. ", 100*s.Threshold)
	fmt.Fprintf(w, "The atlas sample is a uniform draw of the space, so its answered share is the share of the space answered; the calibration sample checks the rule on scenarios it was not chosen on. ")
	fmt.Fprintf(w, "The atlas's scenarios span these fabrics, flow-count bands and buffers: %s. A region outside them has no interval and is answered, saying so.\n\n", strings.Join(measured(rows), "; "))
	writeRefusals(w, s, rows)
	writeBeforeAfters(w, rows)
	fmt.Fprintf(w, "\n## Direction of counterfactual pairs (atlas and calibration samples)\n\n")
	noise := SeedNoiseOf(rows)
	fmt.Fprintf(w, "A pair's direction is clear in a size bin when packetsim's p99 changes by more than its own seed noise there. ")
	fmt.Fprintf(w, "A pair whose two scenarios packetsim ran under at least %d seeds is judged by its own seeds: its change is the mean of the per-seed relative changes, clear when their %.0f%% Student-t interval excludes zero. ", MinPairSeeds, 100*PairSeedLevel)
	fmt.Fprintf(w, "A pair of one seed is clear when its change exceeds the 90th percentile of the relative p99 difference between two seeds of the same scenario, over the noise sample of its flow band (packetsim alone on the first scenario of some of the atlas's pairs, or on both scenarios of the pairs run under several seeds, under two more seeds). ")
	fmt.Fprintf(w, "Either way a change that is noise alone counts as clear about one time in ten. A flow band with fewer than %d noise scenarios uses %.0f%%. The estimators run the drawn seed alone: their direction is the one a user running them once would see.\n\n", MinNoiseRows, 100*ClearChange)
	fmt.Fprintf(w, "| flows | bin | noise scenarios | seed-to-seed change, median | p90 | clear above |\n|---|---|---|---|---|---|\n")
	for _, n := range noise {
		c := ClearOf(noise, n.Flows)[slices.Index(Labels(), n.Bin)]
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %.0f%% |\n", n.Flows, n.Bin, n.N, pctAbs(n.Median), pctAbs(n.P90), 100*c)
	}
	fmt.Fprintf(w, "\nOf the clear pairs, those the estimator answers by default are the ones whose two scenarios lie inside its model's training range (m3 refuses the others unless asked to answer anyway) and in regions it does not refuse (Refusals above): the answers a user sees without asking for them anyway.\n")
	fmt.Fprintf(w, "\n| estimator | bin | pairs | judged by their own seeds | right | clear pairs | right of clear | clear, answered by default | right of those |\n|---|---|---|---|---|---|---|---|---|\n")
	ds := Directions(rows, SampleAtlas, s)
	ds = append(ds, Directions(rows, SampleCalibration, s)...)
	for _, d := range combineDirections(ds) {
		fmt.Fprintf(w, "| %s | %s | %d | %d | %s | %d | %s | %d | %s |\n", d.Estimator, d.Bin, d.Pairs, d.OwnSeeds, share(d.Right, d.Pairs), d.Clear, share(d.RightClear, d.Clear), d.DefaultClear, share(d.DefaultRight, d.DefaultClear))
	}
	writeFieldDirections(w, s)
	writeCalibration(w, s, rows)
	fmt.Fprintf(w, "\n## p99 error per region (atlas sample: network family, fabric, flow band, load band; at least %d scenarios)\n\n", s.MinScenarios)
	writeIntervals(w, s, func(iv atlas.Interval) bool {
		return iv.Region.Load != "" && iv.Region.Oversub == "" && iv.N >= s.MinScenarios
	})
	writeCosts(w, rows)
}

// writeFieldDirections writes the direction scores per changed setting
// the summary states (atlas.Summary.DirectionLine).
func writeFieldDirections(w io.Writer, s *atlas.Summary) {
	fmt.Fprintf(w, "\nThe same clear pairs (both samples) by the setting they change, as a what-if sweep of that setting states them: over all flows, right of clear, and per size bin; trusted when at least %d clear pairs and %.0f%% of them are right (every answer regardless of refusals, as `answer_anyway` gives them).\n",
		atlas.MinDirectionPairs, 100*atlas.DirectionGoal)
	fmt.Fprintf(w, "\n| estimator | setting | changes | all flows | trusted |")
	bins := s.Bins[:len(s.Bins)-1]
	for _, b := range bins {
		fmt.Fprintf(w, " %s |", b)
	}
	fmt.Fprintf(w, "\n|---|---|---|---|---|%s\n", strings.Repeat("---|", len(bins)))
	for _, d := range s.Directions {
		if d.Bin != atlas.AllBin {
			continue
		}
		trusted := "too few"
		if d.Known() {
			trusted = map[bool]string{true: "yes", false: "no"}[d.Trusted()]
		}
		fmt.Fprintf(w, "| %s | `%s` | %s | %d of %d | %s |", d.Estimator, d.Field, strings.Join(d.Changes, ", "), d.Right, d.Clear, trusted)
		byBin := s.DirectionsOf(d.Estimator, d.Field)
		for _, b := range bins {
			i := slices.IndexFunc(byBin, func(x atlas.Direction) bool { return x.Bin == b })
			if i < 0 {
				fmt.Fprintf(w, " - |")
				continue
			}
			fmt.Fprintf(w, " %d of %d |", byBin[i].Right, byBin[i].Clear)
		}
		fmt.Fprintln(w)
	}
}

// writeCosts writes the mean CPU seconds per scenario of packetsim and
// of each estimator where it ran, by fabric, flow count and buffers
// (every sample): what a design growing there will cost.
func writeCosts(w io.Writer, rows []Row) {
	type key struct {
		fabric string
		flows  int
		buffer string
	}
	type sum struct {
		n   int
		cpu float64
	}
	cpu := map[key]map[string]*sum{}
	base := map[key]map[string]float64{} // packetsim's, by scenario
	var ests []string
	for _, r := range rows {
		if r.Refused != "" || math.IsNaN(r.CPUSeconds) {
			continue
		}
		k := key{r.Region.Fabric, r.Flows, r.Region.Buffer}
		if cpu[k] == nil {
			cpu[k], base[k] = map[string]*sum{}, map[string]float64{}
		}
		if cpu[k][r.Estimator] == nil {
			cpu[k][r.Estimator] = &sum{}
		}
		cpu[k][r.Estimator].n++
		cpu[k][r.Estimator].cpu += r.CPUSeconds
		base[k][r.ScenarioID] = r.BaseCPUSeconds
		if !slices.Contains(ests, r.Estimator) {
			ests = append(ests, r.Estimator)
		}
	}
	slices.Sort(ests)
	keys := slices.SortedFunc(maps.Keys(cpu), func(a, b key) int {
		return cmp.Or(cmp.Compare(a.fabric, b.fabric), cmp.Compare(a.flows, b.flows), cmp.Compare(a.buffer, b.buffer))
	})
	fmt.Fprintf(w, "\n## CPU seconds per scenario\n\nMean CPU seconds of one task, by fabric, flow count and switch buffers (every sample; packetsim-seed is packetsim under a further seed), and the scenarios they are the mean of:\n\n")
	fmt.Fprintf(w, "| fabric | flows | buffers | scenarios | packetsim |")
	for _, e := range ests {
		fmt.Fprintf(w, " %s |", e)
	}
	fmt.Fprintf(w, "\n|---|---|---|---|---|%s\n", strings.Repeat("---|", len(ests)))
	for _, k := range keys {
		b := 0.0
		for _, c := range base[k] {
			b += c
		}
		buf := k.buffer
		if buf == "" {
			buf = "infinite"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d | %.1f |", k.fabric, count(k.flows), buf, len(base[k]), b/float64(len(base[k])))
		for _, e := range ests {
			if x := cpu[k][e]; x != nil {
				fmt.Fprintf(w, " %.1f |", x.cpu/float64(x.n))
			} else {
				fmt.Fprintf(w, " - |")
			}
		}
		fmt.Fprintln(w)
	}
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
		x.OwnSeeds += d.OwnSeeds
		x.DefaultClear += d.DefaultClear
		x.DefaultRight += d.DefaultRight
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

func pctAbs(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*x)
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

// writeCalibration writes how the intervals were tuned on the atlas
// sample (Tune) and their coverage on the held-out calibration sample,
// before (the bare p10..p90 of regions of at least 5 scenarios) and
// after (the stated intervals).
func writeCalibration(w io.Writer, s *atlas.Summary, rows []Row) {
	t := Tune(rows)
	fmt.Fprintf(w, "\n## Calibration of the stated intervals\n\n")
	fmt.Fprintf(w, "Each stated interval is its region's p10..p90 of the p99 error, widened about the median by a factor per estimator and size bin. ")
	fmt.Fprintf(w, "The factors and the minimum region size are chosen on the atlas sample alone, by %d-fold cross-validation (a counterfactual pair in one fold; a fold's regions need %d/%d of the minimum, the share of a region's scenarios a fold keeps, so that the folds state intervals from regions as fine as the summary's): ", Folds, Folds-1, Folds)
	fmt.Fprintf(w, "each held-out error needs some widening of the interval the other folds state to fall inside; the factor is the split-conformal quantile of those needs for %.0f%% coverage. ", 100*atlas.DefaultCoverage)
	fmt.Fprintf(w, "A region with fewer scenarios than the minimum falls back to a coarser one (without the oversubscription, then without the load band, then over every network family, then over every buffer band, then over every flow count; the fabric is always the scenario's), and the answer says so.\n\n")
	fmt.Fprintf(w, "| minimum region size | mean width of the widened intervals (cross-validated, over the errors every size states one for) | errors with an interval | without |\n|---|---|---|---|\n")
	for _, c := range t.Choices {
		chosen := ""
		if c.MinScenarios == t.MinScenarios {
			chosen = " (chosen)"
		}
		fmt.Fprintf(w, "| %d%s | %.0f%% | %d | %d |\n", c.MinScenarios, chosen, 100*c.MeanWidth, c.Stated, c.Unstated)
	}
	writeLevels(w, s, rows)
	before := Calibrate(rawSummary(rows, "", 5), rows)
	after := Calibrate(s, rows)
	folds := map[[2]string]Coverage{}
	for _, c := range t.Folds {
		folds[[2]string{c.Estimator, c.Bin}] = c
	}
	fmt.Fprintf(w, "\nCoverage on the held-out calibration sample: before, the bare p10..p90 of regions of at least 5 scenarios; after, the stated intervals (goal %.0f%%); widths are the intervals' mean widths in points of error.\n\n", 100*atlas.DefaultCoverage)
	fmt.Fprintf(w, "| estimator | bin | factor | cross-validated (atlas) | before: inside | before: width | after: inside | after: width | no interval stated |\n|---|---|---|---|---|---|---|---|---|\n")
	for i, c := range after {
		b := Coverage{}
		if i < len(before) && before[i].Estimator == c.Estimator && before[i].Bin == c.Bin {
			b = before[i]
		}
		f := folds[[2]string{c.Estimator, c.Bin}]
		fmt.Fprintf(w, "| %s | %s | %.2f | %s | %s | %s | %s | %s | %d |\n", c.Estimator, c.Bin, s.Factor(c.Estimator, c.Bin),
			share(f.Inside, f.Stated), share(b.Inside, b.Stated), width(b), share(c.Inside, c.Stated), width(c), c.Unstated)
	}
}

// writeLevels writes, per pooling level (atlas.Region.Pooled), how many
// held-out answers had their interval stated at that level and how many
// of their errors fell inside: a coarse level's intervals must hold as
// well as the fine ones'.
func writeLevels(w io.Writer, s *atlas.Summary, rows []Row) {
	levels := []string{"the scenario's own region", "without its oversubscription", "without its load band too", "over every network family", "over every buffer band too", "over every flow count too", "none (no interval)"}
	answers := make([]int, len(levels))
	inside := make([]int, len(levels))
	stated := make([]int, len(levels))
	for _, r := range rows {
		if r.Sample != SampleCalibration || r.Refused != "" || !s.Measures(r.Estimator) {
			continue
		}
		e := s.ExpectIn(r.Estimator, r.Region)
		i := slices.Index(r.Region.Pooled(), e.Pooled)
		if !e.Known() || i < 0 {
			i = len(levels) - 1
		}
		answers[i]++
		for _, iv := range e.Intervals {
			if v := r.Error[slices.Index(Labels(), iv.Bin)]; !math.IsNaN(v) {
				stated[i]++
				if v >= iv.Lo && v <= iv.Hi {
					inside[i]++
				}
			}
		}
	}
	fmt.Fprintf(w, "\nThe region each held-out answer's interval was stated for, and how many of its errors (over the size bins with a value) fell inside:\n\n")
	fmt.Fprintf(w, "| stated for | answers (estimator and scenario pairs) | errors inside |\n|---|---|---|\n")
	for i, l := range levels {
		in := "-"
		if i < len(levels)-1 {
			in = share(inside[i], stated[i])
		}
		fmt.Fprintf(w, "| %s | %d | %s |\n", l, answers[i], in)
	}
}

func width(c Coverage) string {
	if c.Stated == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", 100*c.MeanWidth())
}

// writeRefusals lists, per estimator, the share of the atlas's and the
// calibration sample's scenarios it answers, how the rule did on the
// calibration sample, and the regions (as stated) where it refuses.
func writeRefusals(w io.Writer, s *atlas.Summary, rows []Row) {
	type tally struct {
		asked, notModelled, answered                           int
		calAsked, calAnswered, calWithin                       int // calibration: answered, and of those within the threshold over all flows
		calRefused, calRefusedBeyond                           int
		calBins, calMarked, calMarkedBeyond, calUnmarkedWithin int
	}
	t := map[string]*tally{}
	refused := map[string][]string{}
	for _, r := range rows {
		if r.Sample == SampleNoise {
			continue // packetsim's own noise
		}
		var e atlas.Expectation
		if r.Refused == "" {
			e = s.ExpectIn(r.Estimator, r.Region)
			if reg := e.Pooled.String(); e.Refuse && !slices.Contains(refused[r.Estimator], reg) {
				refused[r.Estimator] = append(refused[r.Estimator], reg)
			}
		}
		if isBefore(r.Estimator) {
			continue // a variant, run only where it differs: its share of the space is not one
		}
		if t[r.Estimator] == nil {
			t[r.Estimator] = &tally{}
		}
		x := t[r.Estimator]
		if r.Refused != "" {
			if r.Sample == SampleAtlas {
				x.notModelled++
			}
			continue
		}
		all := len(Labels()) - 1
		beyond := func(v float64) bool { return math.Abs(v) > s.Threshold }
		switch r.Sample {
		case SampleAtlas:
			x.asked++
			if !e.Refuse {
				x.answered++
			}
		case SampleCalibration:
			x.calAsked++
			if e.Refuse {
				x.calRefused++
				if beyond(r.Error[all]) {
					x.calRefusedBeyond++
				}
				continue
			}
			x.calAnswered++
			if !beyond(r.Error[all]) {
				x.calWithin++
			}
			for b, l := range Labels()[:all] {
				if math.IsNaN(r.Error[b]) || !e.Known() {
					continue
				}
				x.calBins++
				if slices.Contains(e.Untrusted, l) {
					x.calMarked++
					if beyond(r.Error[b]) {
						x.calMarkedBeyond++
					}
				} else if !beyond(r.Error[b]) {
					x.calUnmarkedWithin++
				}
			}
		}
	}
	fmt.Fprintf(w, "| estimator | answers (atlas sample) | does not model | share of the space answered | answers (calibration) | answered within ±%.0f%% over all flows | refused and beyond ±%.0f%% | bins marked not trustworthy | marked and beyond | unmarked and within |\n|---|---|---|---|---|---|---|---|---|---|\n", 100*s.Threshold, 100*s.Threshold)
	for _, e := range slices.Sorted(maps.Keys(t)) {
		x := t[e]
		if x.asked == 0 {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %d | %.0f%% | %s | %s | %s | %s | %s | %s |\n", e, share(x.answered, x.asked), x.notModelled,
			100*float64(x.answered)/float64(x.asked+x.notModelled), share(x.calAnswered, x.calAsked),
			share(x.calWithin, x.calAnswered), share(x.calRefusedBeyond, x.calRefused), share(x.calMarked, x.calBins),
			share(x.calMarkedBeyond, x.calMarked), share(x.calUnmarkedWithin, x.calBins-x.calMarked))
	}
	fmt.Fprintf(w, "\nRegions refused (as stated: a region with too few scenarios is pooled into a coarser one; %s and %s are m3 with the Table-4 models and Parsimon as published, measured where they differ from the defaults):\n\n", estimator.M3Table4, estimator.ParsimonPublished)
	ests := slices.Collect(maps.Keys(t))
	for e := range refused {
		if t[e] == nil {
			ests = append(ests, e)
		}
	}
	slices.Sort(ests)
	for _, e := range ests {
		regs := refused[e]
		slices.Sort(regs)
		if len(regs) == 0 {
			regs = []string{"none"}
		}
		fmt.Fprintf(w, "- %s: %s\n", e, strings.Join(regs, "; "))
	}
}

// beforeTitles name each before variant (Befores) and its after in the
// report's section headings, and the columns of the two.
var beforeTitles = map[string][3]string{
	estimator.ParsimonPublished: {"Parsimon as published and as tailscope runs it by default", "published", "default"},
	estimator.M3Table4:          {"m3 with the Table-4 models and with the presets models (where they differ)", "Table-4 model", "presets model"},
}

// writeBeforeAfters writes a section per before variant (Befores, in
// order of name) whose rows the archive holds: writeBeforeAfter.
func writeBeforeAfters(w io.Writer, rows []Row) {
	for _, b := range slices.Sorted(maps.Keys(Befores)) {
		if !slices.ContainsFunc(rows, func(r Row) bool { return r.Estimator == b && r.Refused == "" }) {
			continue
		}
		t := beforeTitles[b]
		fmt.Fprintf(w, "\n## %s, on the same scenarios (atlas and calibration samples)\n\n", t[0])
		writeBeforeAfter(w, rows, b, t[1], t[2])
	}
}

// writeBeforeAfter sets the p99 errors of before variant b (before)
// against those of its estimator (after) on the scenarios where both
// ran: median, p10 and p90 per size bin. Where the two ran different
// pairs of m3 models on different scenarios (table4-pfc and presets,
// table4-fork and presets-fork), each pair gets its own rows.
func writeBeforeAfter(w io.Writer, rows []Row, b, beforeCol, afterCol string) {
	after := Befores[b]
	by := map[string]map[string]Row{}
	for _, r := range rows {
		if r.Refused != "" || (r.Estimator != after && r.Estimator != b) {
			continue
		}
		if by[r.ScenarioID] == nil {
			by[r.ScenarioID] = map[string]Row{}
		}
		by[r.ScenarioID][r.Estimator] = r
	}
	type pair struct{ xs, ys [][]float64 }
	groups := map[string]*pair{}
	for _, m := range by {
		x, okx := m[b]
		y, oky := m[after]
		if !okx || !oky {
			continue
		}
		g := ""
		if mx, my := optionModel(x.Options), optionModel(y.Options); mx != "" || my != "" {
			g = fmt.Sprintf("`%s` → `%s`", cmp.Or(mx, "default"), cmp.Or(my, "default"))
		}
		if groups[g] == nil {
			groups[g] = &pair{make([][]float64, len(Labels())), make([][]float64, len(Labels()))}
		}
		for i := range Labels() {
			if !math.IsNaN(x.Error[i]) && !math.IsNaN(y.Error[i]) {
				groups[g].xs[i] = append(groups[g].xs[i], x.Error[i])
				groups[g].ys[i] = append(groups[g].ys[i], y.Error[i])
			}
		}
	}
	q := func(v []float64) string {
		p := metrics.Percentiles(v, []float64{50, 10, 90})
		return fmt.Sprintf("%s (%s..%s)", pct(p[0]), pct(p[1]), pct(p[2]))
	}
	models := len(groups) > 1 || groups[""] == nil
	cols, sep := fmt.Sprintf("bin | scenarios | %s median (p10..p90) | %s median (p10..p90) |", beforeCol, afterCol), "|---|---|---|---|"
	if models {
		cols, sep = "models | "+cols, sep+"---|"
	}
	fmt.Fprintf(w, "| %s\n%s\n", cols, sep)
	for _, g := range slices.Sorted(maps.Keys(groups)) {
		for i, l := range Labels() {
			if xs := groups[g].xs[i]; len(xs) > 0 {
				if models {
					fmt.Fprintf(w, "| %s ", g)
				}
				fmt.Fprintf(w, "| %s | %d | %s | %s |\n", l, len(xs), q(xs), q(groups[g].ys[i]))
			}
		}
	}
}

// optionModel is the m3 model an options JSON names ("" for none).
func optionModel(opts string) string {
	var o struct {
		Model string `json:"model"`
	}
	if json.Unmarshal([]byte(opts), &o) != nil {
		return ""
	}
	return o.Model
}

// overall is, per estimator (the measured ones, not Parsimon as
// published) and bin, the atlas sample's errors.
func overall(rows []Row) (ests []string, errs map[string][][]float64) {
	errs = map[string][][]float64{}
	for _, r := range rows {
		if r.Sample != SampleAtlas || r.Refused != "" || isBefore(r.Estimator) {
			continue
		}
		if errs[r.Estimator] == nil {
			ests = append(ests, r.Estimator)
			errs[r.Estimator] = make([][]float64, len(Labels()))
		}
		for b := range Labels() {
			if e := r.Error[b]; !math.IsNaN(e) {
				errs[r.Estimator][b] = append(errs[r.Estimator][b], e)
			}
		}
	}
	slices.Sort(ests)
	return ests, errs
}

// cell is "median (p10..p90)" of errs.
func cell(errs []float64) string {
	if len(errs) == 0 {
		return "-"
	}
	q := metrics.Percentiles(errs, []float64{50, 10, 90})
	return fmt.Sprintf("%+.0f%% (%+.0f..%+.0f%%)", 100*q[0], 100*q[1], 100*q[2])
}

// benchmarksTable is the table of BENCHMARKS.md's "The accuracy atlas":
// per estimator and bin the median error (p10..p90) and the share within
// 25%.
func benchmarksTable(rows []Row) []string {
	ests, errs := overall(rows)
	out := []string{"| estimator | <=1KB | 1-10KB | 10-100KB | >100KB | all |", "| --- | --- | --- | --- | --- | --- |"}
	for _, e := range ests {
		l := "| " + e + " |"
		for _, v := range errs[e] {
			in := 0
			for _, x := range v {
				if math.Abs(x) <= 0.25 {
					in++
				}
			}
			l += fmt.Sprintf(" %s, %.0f%% |", cell(v), 100*float64(in)/float64(max(len(v), 1)))
		}
		out = append(out, l)
	}
	return out
}

// readmeRows are the README accuracy table's rows of the atlas: per
// estimator, the scenarios, the median error (p10..p90) per size bin and
// the CPU time against packetsim's on the same scenarios.
func readmeRows(rows []Row) []string {
	ests, errs := overall(rows)
	nets := map[string]bool{}
	ids := map[string]bool{}
	cpu, base := map[string]float64{}, map[string]float64{}
	for _, r := range rows {
		if r.Sample != SampleAtlas || r.Refused != "" || isBefore(r.Estimator) {
			continue
		}
		nets[r.Region.Network] = true
		ids[r.ScenarioID] = true
		cpu[r.Estimator] += r.CPUSeconds
		base[r.Estimator] += r.BaseCPUSeconds
	}
	var out []string
	for i, e := range ests {
		where := "same"
		if i == 0 {
			where = fmt.Sprintf("the accuracy atlas: %d scenarios drawn over %d network families, %s, %s flows ([atlas](BENCHMARKS.md#the-accuracy-atlas))", len(ids), len(nets), fabricsOf(rows), flowRange(rows))
		}
		l := fmt.Sprintf("| %s (atlas) | %s |", e, where)
		for _, v := range errs[e][:len(Labels())-1] {
			l += " " + cell(v) + " |"
		}
		l += fmt.Sprintf(" %.1fx less |", base[e]/cpu[e])
		out = append(out, l)
	}
	return out
}

// atlasRows calls f with every answered row of the atlas sample but
// Parsimon as published.
func atlasRows(rows []Row, f func(r Row)) {
	for _, r := range rows {
		if r.Sample == SampleAtlas && r.Refused == "" && !isBefore(r.Estimator) {
			f(r)
		}
	}
}

// fabricsOf names the fabric sizes of the atlas rows: "the 32-rack
// fabrics", "the 32- and 384-rack fabrics".
func fabricsOf(rows []Row) string {
	var racks []int
	atlasRows(rows, func(r Row) {
		var n int
		if _, err := fmt.Sscanf(r.Region.Fabric, "%d racks", &n); err == nil && !slices.Contains(racks, n) {
			racks = append(racks, n)
		}
	})
	slices.Sort(racks)
	var names []string
	for i, n := range racks {
		if i == len(racks)-1 {
			names = append(names, fmt.Sprintf("%d-rack", n))
		} else {
			names = append(names, fmt.Sprintf("%d-", n))
		}
	}
	switch len(names) {
	case 0:
		return "no fabric"
	case 1:
		return "the " + names[0] + " fabrics"
	}
	return "the " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " fabrics"
}

// flowRange is the atlas rows' flow counts, "5k-20k".
func flowRange(rows []Row) string {
	lo, hi := math.MaxInt, 0
	atlasRows(rows, func(r Row) { lo, hi = min(lo, r.Flows), max(hi, r.Flows) })
	if hi == 0 {
		return "no"
	}
	return count(lo) + "-" + count(hi)
}

// count writes a flow count as 5k or 1M.
func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

// measured lists the fabric, flow-count band and buffers of the atlas
// rows' regions, "32 racks, 5k-50k flows".
func measured(rows []Row) []string {
	var out []string
	atlasRows(rows, func(r Row) {
		m := r.Region.Fabric + ", " + r.Region.Flows + " flows"
		if r.Region.Buffer != "" {
			m += ", " + r.Region.Buffer
		}
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	})
	slices.Sort(out)
	return out
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
