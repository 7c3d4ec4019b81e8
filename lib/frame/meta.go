package frame

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
)

// Meta is a frame's provenance. It is stored as Arrow schema metadata (and,
// in Parquet, as the file's key-value metadata) under keys prefixed
// "tailscope.", so any Arrow or Parquet reader can see where a frame came
// from.
type Meta struct {
	Version    string // toolkit version; the writer records Version when empty
	ScenarioID string // scenario the frame belongs to
	Estimator  string // estimator that produced the records, e.g. "parsimon"
	Network    string // topology name (WriteTopology sets it from the network)
	Spec       string // scenario spec, JSON (empty or valid JSON)
	Seed       uint64 // seed every random choice of the scenario flowed from
	Options    string // estimator options, JSON (empty or valid JSON)
	// WallSeconds is the wall-clock time the estimator took. It is kept
	// out of the frame, in a run log beside it (RunLogPath), so that the
	// frame's bytes depend on the spec, seed and options alone.
	WallSeconds float64
	// Timings holds further run times in seconds by name (e.g. a
	// decomposition's "merge_s"), kept in the run log with WallSeconds.
	Timings map[string]float64
	// Build is the build of tailscope that wrote the frame, version and
	// commit (Build(), which the writer records when Build is empty). It
	// is kept in the run log with the times, so that builds from other
	// commits write frames of the same bytes, and equal digests keep
	// meaning equal records.
	Build string
	// Extra holds further key/value pairs, stored as "tailscope.extra.<key>".
	Extra map[string]string
}

const (
	keyPrefix     = "tailscope."
	keyVersion    = keyPrefix + "version"
	keyScenarioID = keyPrefix + "scenario_id"
	keyEstimator  = keyPrefix + "estimator"
	keyNetwork    = keyPrefix + "network"
	keySpec       = keyPrefix + "spec"
	keySeed       = keyPrefix + "seed"
	keyOptions    = keyPrefix + "options"
	keyDigest     = keyPrefix + "digest"
	keyExtra      = keyPrefix + "extra."
)

// arrowMetadata checks m and encodes it. Every field is written, even when
// zero, so that a frame's metadata reads back exactly (a seed of 0 is a
// seed).
func (m Meta) arrowMetadata() (arrow.Metadata, error) {
	for _, f := range []struct{ name, v string }{{"Spec", m.Spec}, {"Options", m.Options}} {
		if f.v != "" && !json.Valid([]byte(f.v)) {
			return arrow.Metadata{}, fmt.Errorf("Meta.%s is not valid JSON: %.60q", f.name, f.v)
		}
	}
	version := m.Version
	if version == "" {
		version = Version
	}
	keys := []string{keyVersion, keyScenarioID, keyEstimator, keyNetwork, keySpec, keySeed, keyOptions, keyDigest}
	vals := []string{version, m.ScenarioID, m.Estimator, m.Network, m.Spec,
		strconv.FormatUint(m.Seed, 10), m.Options, digestPlaceholder}
	extra := make([]string, 0, len(m.Extra))
	for k := range m.Extra {
		if k == "" {
			return arrow.Metadata{}, fmt.Errorf("Meta.Extra has an empty key")
		}
		extra = append(extra, k)
	}
	sort.Strings(extra) // deterministic files
	for _, k := range extra {
		keys = append(keys, keyExtra+k)
		vals = append(vals, m.Extra[k])
	}
	return arrow.NewMetadata(keys, vals), nil
}

// metaKV is a file's key-value metadata, in file order.
type metaKV struct{ keys, vals []string }

// meta decodes the tailscope keys of a file's metadata; other keys (for
// example ARROW:schema) and tailscope keys this version does not know are
// ignored (the digest covers them all the same). digest is the value
// verifyDigest checked the file's bytes against, empty if none: the
// metadata must hold that one. Malformed values are errors.
func (kv metaKV) meta(digest string) (Meta, error) {
	var m Meta
	ours, metaDigest := false, ""
	for i, k := range kv.keys {
		v := kv.vals[i]
		if strings.HasPrefix(k, keyPrefix) {
			ours = true
		}
		var err error
		switch {
		case k == keyVersion:
			m.Version = v
		case k == keyScenarioID:
			m.ScenarioID = v
		case k == keyEstimator:
			m.Estimator = v
		case k == keyNetwork:
			m.Network = v
		case k == keySpec:
			m.Spec, err = v, validJSON(v)
		case k == keySeed:
			m.Seed, err = strconv.ParseUint(v, 10, 64)
		case k == keyOptions:
			m.Options, err = v, validJSON(v)
		case k == keyDigest:
			metaDigest = v
		case strings.HasPrefix(k, keyExtra) && len(k) > len(keyExtra):
			if m.Extra == nil {
				m.Extra = make(map[string]string)
			}
			m.Extra[k[len(keyExtra):]] = v
		}
		if err != nil {
			return Meta{}, fmt.Errorf("metadata %s=%.80q is malformed: %w", k, v, err)
		}
	}
	// A file with tailscope keys and no digest was refused by verifyDigest;
	// a digest in the bytes must also be the one in the metadata.
	if (ours || digest != "") && metaDigest != digest {
		return Meta{}, fmt.Errorf("corrupted: metadata %s=%.80q does not hold the file's digest", keyDigest, metaDigest)
	}
	return m, nil
}

func validJSON(v string) error {
	if v != "" && !json.Valid([]byte(v)) {
		return fmt.Errorf("not valid JSON")
	}
	return nil
}
