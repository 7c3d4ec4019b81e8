package estimator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/tailscope/tailscope/lib/atlas"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
)

// AnswerAnyway is the option every estimator takes besides its own: true
// makes it answer a scenario the accuracy atlas says it answers badly
// (Expect), which it otherwise refuses. A frame of such an answer says so
// in its metadata (answered_anyway).
const AnswerAnyway = "answer_anyway"

type measuringKey struct{}

// Measuring returns a context under which Run, Stream and RunParsimon
// answer where the accuracy atlas would make an estimator refuse, as if
// its options held {"answer_anyway":true}, marking the frame the same
// way: for runs that measure an estimator against a baseline (the tasks
// of sweeps and studies), which are not answers given to a user.
func Measuring(ctx context.Context) context.Context {
	return context.WithValue(ctx, measuringKey{}, true)
}

// measuring reports whether ctx comes from Measuring.
func measuring(ctx context.Context) bool {
	v, _ := ctx.Value(measuringKey{}).(bool)
	return v
}

// splitAnyway takes the AnswerAnyway option out of options JSON: the rest
// goes to the estimator's own strict reader. Options that are not a JSON
// object are left whole, for that reader to report.
func splitAnyway(opts string) (rest string, anyway bool, err error) {
	if len(bytes.TrimSpace([]byte(opts))) == 0 {
		return opts, false, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(opts), &m) != nil {
		return opts, false, nil
	}
	raw, ok := m[AnswerAnyway]
	if !ok {
		return opts, false, nil
	}
	if err := json.Unmarshal(raw, &anyway); err != nil {
		return "", false, fmt.Errorf("bad options %s: %s must be true or false", opts, AnswerAnyway)
	}
	delete(m, AnswerAnyway)
	if len(m) == 0 {
		return "", anyway, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", false, err
	}
	return string(b), anyway, nil
}

// withAnyway adds the AnswerAnyway option to an estimator's canonical
// options JSON (an object, possibly "{}" or "").
func withAnyway(canon string, anyway bool) string {
	if !anyway {
		return canon
	}
	body := strings.TrimSpace(canon)
	if body == "" || body == "{}" || body == "null" {
		return `{"` + AnswerAnyway + `":true}`
	}
	return `{"` + AnswerAnyway + `":true,` + strings.TrimPrefix(body, "{")
}

// theAtlas is the embedded accuracy atlas summary, read once.
var theAtlas = sync.OnceValues(atlas.Embedded)

// Expect returns what the embedded accuracy atlas says of the named
// estimator on spec: the p99 error interval per size bin for the
// scenario's region, and whether the estimator refuses it. It is an
// error only when the embedded summary cannot be read.
func Expect(name string, spec scenario.Spec) (atlas.Expectation, error) {
	s, err := theAtlas()
	if err != nil {
		return atlas.Expectation{}, err
	}
	return s.Expect(name, spec), nil
}

// Directions returns what the embedded accuracy atlas measured of the
// named estimator's direction of change when the setting field changes
// (atlas.Summary.DirectionsOf), and whether the atlas measures the
// estimator at all (the ground truths it is measured against it does
// not). It is an error only when the embedded summary cannot be read.
func Directions(name, field string) (ds []atlas.Direction, measured bool, err error) {
	s, err := theAtlas()
	if err != nil {
		return nil, false, err
	}
	return s.DirectionsOf(name, field), s.Measures(name), nil
}

// Refusal is the error of an estimator that declines a scenario because
// the accuracy atlas measured it answering such scenarios badly.
type Refusal struct {
	Expectation atlas.Expectation
	// Instead names what to run instead.
	Instead string
}

// Error names the reason and what to run instead.
func (r *Refusal) Error() string {
	return fmt.Sprintf("%s; %s, or pass the option {%q:true} (CLI: --answer-anyway) to answer anyway, marked in the frame",
		r.Expectation.Reason, r.Instead, AnswerAnyway)
}

// insteadOf says what to run in place of estimator name refusing spec as
// the atlas s measured it under label (AtlasLabel): packetsim, and the
// measured estimators, with the options the atlas runs them with
// (AtlasRun), that model spec's network and that s does not refuse
// there, the refusing one among them when it ran a variant.
func insteadOf(s *atlas.Summary, name, label string, spec scenario.Spec) string {
	var alts []string
	for _, alt := range []string{"m3", "parsimon", "flowsim"} {
		self := strings.HasPrefix(name, alt)
		est, opts, ok := AtlasRun(alt, spec.Network)
		if self && label == name || !s.Measures(alt) || !ok || Models(est, opts, spec.Network) != nil {
			continue
		}
		if e := s.Expect(alt, spec); e.Known() && !e.Refuse {
			switch {
			case opts != "":
				alt += " with the options " + opts
			case self:
				alt += " with its default options"
			}
			alts = append(alts, alt)
		}
	}
	if len(alts) == 0 {
		return "run packetsim (exact, slower; the atlas refuses the other estimators here too)"
	}
	return "run packetsim (exact, slower), or " + strings.Join(alts, " or ") + ", which the atlas does not refuse here"
}

// neutralOptions are the options that leave an estimator's method as it
// is: parallelism, the seed (the atlas measures each estimator over many
// seeds) and m3's model name (the model's digest names the model).
var neutralOptions = []string{"workers", "seed", "model"}

// method is the named estimator's options JSON resolved (Resolve)
// without neutralOptions and AnswerAnyway: two runs with the same method
// compute the same way.
func method(name, options string) (string, error) {
	canon, err := Resolve(name, options)
	if err != nil {
		return "", err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(canon), &m); err != nil {
		return "", fmt.Errorf("estimator %s: options %s: %w", name, canon, err)
	}
	for _, k := range append(neutralOptions, AnswerAnyway) {
		delete(m, k)
	}
	b, err := json.Marshal(m) // keys sorted
	return string(b), err
}

// Labels of the variants the accuracy atlas measures besides each
// estimator's defaults, the befores of its fixes: m3 with the embedded
// model it would get without the presets models (M3ModelBefore, trained
// on m3 Table 4's parameter ranges), and Parsimon as its paper published
// it (PublishedParsimon).
const (
	M3Table4          = "m3-table4"
	ParsimonPublished = "parsimon-published"
)

// Variants are the labels of those variants, each of an estimator that
// AtlasRun names.
var Variants = []string{M3Table4, ParsimonPublished}

// AtlasRun returns the estimator and options the accuracy atlas runs
// under label on a network cfg: a variant's (M3Table4,
// ParsimonPublished), or the estimator label with its defaults (m3 with
// the embedded model M3Model chooses). ok is false where m3 runs no
// embedded model.
func AtlasRun(label string, cfg netcfg.Config) (name, options string, ok bool) {
	switch label {
	case ParsimonPublished:
		return "parsimon", PublishedParsimon, true
	case M3Table4:
		model, ok := M3ModelBefore(cfg)
		return m3.Name, M3Options(model), ok
	case m3.Name:
		model, ok := M3Model(cfg)
		return m3.Name, M3Options(model), ok
	}
	return label, "", true
}

// AtlasLabel returns the label the accuracy atlas measured the named
// estimator under when run with options on spec, or "" and why its
// evidence does not apply. The atlas measures each estimator with its
// defaults (m3 with the embedded model M3Model chooses for the network)
// and the variants of AtlasRun; other options, a model file among them,
// run another method whose errors nobody measured. For an estimator the
// atlas does not measure at all (the ground truths) both are "".
func AtlasLabel(name, options string, spec scenario.Spec) (label, why string, err error) {
	s, err := theAtlas()
	if err != nil {
		return "", "", err
	}
	if !s.Measures(name) {
		return "", "", nil
	}
	got, err := method(name, options)
	if err != nil {
		return "", "", err
	}
	atlasOpts := ""
	for _, l := range append([]string{name}, Variants...) {
		est, opts, ok := AtlasRun(l, spec.Network)
		if est != name || !s.Measures(l) {
			continue
		}
		if !ok && l == name {
			return "", "the accuracy atlas measures m3 only on networks an embedded model covers", nil
		}
		if !ok {
			continue
		}
		if l == name {
			atlasOpts = opts
		}
		want, err := method(name, opts)
		if err != nil {
			return "", "", err
		}
		if got == want {
			return l, "", nil
		}
	}
	given, _, err := splitAnyway(options)
	if err != nil {
		return "", "", err
	}
	return "", fmt.Sprintf("the accuracy atlas measures %s here with %s, not with %s", name, optionsLabel(atlasOpts), optionsLabel(given)), nil
}

// optionsLabel names options JSON in a sentence.
func optionsLabel(options string) string {
	if o := strings.TrimSpace(options); o != "" && o != "{}" {
		return "the options " + o
	}
	return "its default options"
}

// answers checks, before a run, that the estimator, with options (without
// AnswerAnyway), answers spec: nil, or a *Refusal unless anyway. It
// returns the frame metadata the run carries: the atlas's interval for
// the region and, when the estimator answered anyway where it would
// refuse, answered_anyway; or, when the atlas did not measure the
// estimator with such options, why (atlas_unmeasured), without an
// interval or a refusal.
func answers(name, options string, spec scenario.Spec, anyway bool) (map[string]string, error) {
	s, err := theAtlas()
	if err != nil {
		return nil, err
	}
	if !s.Measures(name) {
		return nil, nil // the ground truths, and estimators the atlas has not measured
	}
	label, why, err := AtlasLabel(name, options, spec)
	if err != nil {
		return nil, err
	}
	if why != "" {
		return map[string]string{"atlas_unmeasured": why}, nil
	}
	e := s.Expect(label, spec)
	extra := e.Extra()
	if label != name {
		extra["atlas_measured_as"] = label
	}
	if e.Refuse {
		if !anyway {
			return nil, &Refusal{Expectation: e, Instead: insteadOf(s, name, label, spec)}
		}
		extra["answered_anyway"] = "true"
		extra["atlas_refusal"] = e.Reason
	}
	return extra, nil
}

// addExtra merges the atlas's metadata into a result's.
func addExtra(res *Result, extra map[string]string) {
	if res.Extra == nil {
		res.Extra = map[string]string{}
	}
	maps.Copy(res.Extra, extra)
}

// Diagnostics are an answer's own indications of how far to trust it,
// from its frame's metadata: Parsimon's flows per simulated link, its
// window against the path's bandwidth-delay product and the share of
// its simulated links that are sparse; m3's share of paths outside its
// model's training range and the congestion control family; flowSim's
// known underestimate.
func Diagnostics(name string, extra map[string]string) []string {
	num := func(k string) float64 {
		v, err := strconv.ParseFloat(extra[k], 64)
		if err != nil {
			return math.NaN()
		}
		return v
	}
	var out []string
	switch {
	case strings.HasPrefix(name, "parsimon"):
		if sims, sparse := num("link_sims"), num("link_sims_sparse"); sims > 0 {
			effect := "their delays are bucketed by size with a smaller bucket (sparse_bucket_size), each bucket drawn from few flows"
			if extra["sparse_published"] == "true" {
				effect = "their long flows draw short flows' delays"
			}
			out = append(out, fmt.Sprintf("%.0f%% of the %g simulated links are sparse (fewer flows than a delay bucket): %s", 100*sparse/sims, sims, effect))
		}
		if f := num(ExtraFlowsPerLink); !math.IsNaN(f) {
			out = append(out, fmt.Sprintf("%.0f flows per simulated link", f))
		}
		if w := num(ExtraWindowOverBDP); !math.IsNaN(w) && w > 0 {
			note := ""
			switch {
			case w < 1 && extra["window_once"] == "true":
				note = ": window-limited, its delay charged once per path (window_once)"
			case w < 1:
				note = `: window-limited, and each link simulation charges the window's delay again (the option {"window_once":true} charges it once per path)`
			}
			out = append(out, fmt.Sprintf("window %.2f x the longest path's bandwidth-delay product%s", w, note))
		}
	case name == "m3":
		if p, sim, entries, ok := Outside(extra); ok && sim > 0 {
			s := fmt.Sprintf("%d of %d simulated paths (%.0f%%) outside the model's training range", p, sim, 100*float64(p)/float64(sim))
			if len(entries) > 0 {
				s += " in " + strings.Join(entries, ", ")
			}
			out = append(out, s)
		}
		if cc := extra[ExtraCCFamily]; cc != "" {
			out = append(out, "network family "+cc)
		}
	case name == "flowsim" || name == "pfs":
		out = append(out, "a fluid max-min simulation without congestion control or queues: known to underestimate the tail")
	}
	return out
}

// Extra metadata keys of the diagnostics.
const (
	ExtraFlowsPerLink  = "flows_per_simulated_link"
	ExtraWindowOverBDP = "window_over_bdp"
	ExtraCCFamily      = "network_family"
)

// ExpectationLines renders what the atlas and the diagnostics in a
// result's metadata say of it, for the command line, run logs and
// notebooks: the stated interval per size bin ("?" marks a bin whose
// interval reaches beyond the atlas's threshold, not trustworthy), the
// region it was stated for and why, and the diagnostics.
func ExpectationLines(res *Result) []string {
	var out []string
	var bins []string
	untrusted := strings.Split(res.Extra["atlas_untrusted_bins"], "|")
	if b := res.Extra["atlas_bins"]; b != "" {
		for _, bin := range strings.Split(b, "|") {
			q := strings.Split(res.Extra["atlas_p99_error["+bin+"]"], ",")
			if len(q) == 4 {
				lo, _ := strconv.ParseFloat(q[0], 64)
				hi, _ := strconv.ParseFloat(q[2], 64)
				mark := ""
				if slices.Contains(untrusted, bin) {
					mark = " (not trustworthy)"
				}
				bins = append(bins, fmt.Sprintf("%s %+.0f..%+.0f%%%s", bin, 100*lo, 100*hi, mark))
			}
		}
	}
	switch {
	case len(bins) > 0:
		what := "p10..p90"
		if c, _ := strconv.ParseFloat(res.Extra["atlas_coverage"], 64); c > 0 {
			what = fmt.Sprintf("%.0f%% interval", 100*c)
		}
		as := ""
		if l := res.Extra["atlas_measured_as"]; l != "" {
			as = ", measured as " + l
		}
		out = append(out, fmt.Sprintf("%s: expected p99 error (%s, accuracy atlas%s, %s): %s", res.Estimator, what, as, res.Extra["atlas_pooled_region"], strings.Join(bins, ", ")))
		if f := res.Extra["atlas_fallback"]; f != "" {
			out = append(out, res.Estimator+": "+f)
		}
		if u := res.Extra["atlas_untrusted_bins"]; u != "" {
			out = append(out, fmt.Sprintf("%s: not trustworthy in %s: the atlas's interval there reaches beyond its threshold; run packetsim for those flows", res.Estimator, strings.ReplaceAll(u, "|", ", ")))
		}
	case res.Extra["atlas_region"] != "":
		out = append(out, fmt.Sprintf("%s: expected p99 error unknown (too few accuracy-atlas scenarios in region %s)", res.Estimator, res.Extra["atlas_region"]))
	case res.Extra["atlas_unmeasured"] != "":
		out = append(out, fmt.Sprintf("%s: expected p99 error unknown: %s", res.Estimator, res.Extra["atlas_unmeasured"]))
	}
	if res.Extra["answered_anyway"] == "true" {
		out = append(out, res.Estimator+": answered anyway: "+res.Extra["atlas_refusal"])
	}
	for _, d := range Diagnostics(res.Estimator, res.Extra) {
		out = append(out, res.Estimator+": "+d)
	}
	return out
}

// Answers returns nil if the named estimator, with options, answers the
// scenario spec (its network resolved, as a built scenario's is): it
// models the network (Models) and the accuracy atlas does not make it
// refuse, or the options answer anyway; else the error Run would return
// (a *Refusal for the atlas's refusal). Commands check every estimator
// this way before running any.
func Answers(name, options string, spec scenario.Spec) error {
	if err := Models(name, options, spec.Network); err != nil {
		return err
	}
	_, anyway, err := splitAnyway(options)
	if err != nil {
		return fmt.Errorf("estimator %s: %w", name, err)
	}
	if _, err := answers(name, options, spec, anyway); err != nil {
		return fmt.Errorf("estimator %s: %w", name, err)
	}
	return nil
}

// WithAnswerAnyway returns options JSON ("" or an object) with the
// AnswerAnyway option set: the estimator answers where the accuracy
// atlas would make it refuse, and its frame says so.
func WithAnswerAnyway(options string) (string, error) {
	rest, _, err := splitAnyway(options)
	if err != nil {
		return "", err
	}
	body := strings.TrimSpace(rest)
	if body != "" && !strings.HasPrefix(body, "{") {
		return "", fmt.Errorf("bad options %s: not a JSON object", options)
	}
	return withAnyway(body, true), nil
}
