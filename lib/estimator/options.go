package estimator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ParseOptions reads the --options of a command that runs the estimators
// names. Its one shape is a JSON object keyed by estimator name,
//
//	{"m3":{"model":"table4-pfc"},"parsimon":{"bucket_size":50}}
//
// and, when exactly one estimator is named, the flat form, that
// estimator's options alone ({"model":"table4-pfc"}), is accepted too. An
// object whose every key names an estimator is the keyed form. It returns
// each named estimator's options as JSON, "" for the defaults; options
// for an estimator not named, or flat options with several estimators,
// are errors, the latter recommending the keyed form.
func ParseOptions(options string, names []string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	for _, n := range names {
		out[n] = ""
	}
	options = strings.TrimSpace(options)
	if options == "" {
		return out, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(options), &obj); err != nil {
		return nil, fmt.Errorf("--options %s: want a JSON object keyed by estimator name, e.g. {\"m3\":{\"model\":\"table4-pfc\"}}: %w", options, err)
	}
	keyed := len(obj) > 0
	for k := range obj {
		if _, ok := registry[k]; !ok {
			keyed = false
		}
	}
	if !keyed && len(obj) == 0 {
		return out, nil // {}: every estimator's defaults
	}
	if keyed {
		for k, v := range obj {
			if !slices.Contains(names, k) {
				return nil, fmt.Errorf("--options has options for %s, which is not run (estimators: %s)", k, strings.Join(names, ", "))
			}
			var b bytes.Buffer
			if err := json.Compact(&b, v); err != nil {
				return nil, fmt.Errorf("--options: %s: %w", k, err)
			}
			out[k] = b.String()
		}
		return out, nil
	}
	if len(names) == 1 {
		out[names[0]] = options
		return out, nil
	}
	// Flat options with several estimators: say which estimator they fit.
	var fits []string
	for _, n := range names {
		if _, err := Resolve(n, options); err == nil {
			fits = append(fits, n)
		}
	}
	err := &OptionsRefusal{Reason: fmt.Errorf("--options %s is not keyed by estimator name, and %d estimators run (%s)", options, len(names), strings.Join(names, ", "))}
	for _, n := range fits {
		err.Alternatives = append(err.Alternatives, KeyedOptions(map[string]string{n: options}))
	}
	return nil, err
}

// KeyedOptions is the keyed --options JSON of options by estimator name,
// leaving out the estimators with default ("") options; its keys are
// sorted, so equal options give equal text.
func KeyedOptions(options map[string]string) string {
	var b strings.Builder
	b.WriteByte('{')
	first := true
	for _, k := range slices.Sorted(maps.Keys(options)) {
		if strings.TrimSpace(options[k]) == "" {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		var v bytes.Buffer
		if err := json.Compact(&v, []byte(options[k])); err != nil {
			v.Reset()
			v.WriteString(options[k])
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(v.Bytes())
	}
	b.WriteByte('}')
	return b.String()
}

// OptionsRefusal is a refusal that knows options which would be accepted:
// the command line prints each alternative as a whole command to run
// instead. Alternatives are keyed --options JSON (ParseOptions).
type OptionsRefusal struct {
	Estimator    string   // the refusing estimator; "" when the refusal is the command line's
	Reason       error    // why
	Alternatives []string // keyed --options JSON that would be accepted
}

// Error says why, and the options that would be accepted.
func (r *OptionsRefusal) Error() string {
	msg := r.Reason.Error()
	if r.Estimator != "" {
		msg = "estimator " + r.Estimator + ": " + msg
	}
	if len(r.Alternatives) > 0 {
		msg += "; accepted: --options " + strings.Join(r.Alternatives, " or --options ")
	}
	return msg
}

// Unwrap returns the reason.
func (r *OptionsRefusal) Unwrap() error { return r.Reason }
