package atlas

import (
	"fmt"
	"slices"
	"strings"
)

// Direction is how often an estimator's p99 moved the way packetsim's
// did, in one size bin, over the atlas's counterfactual pairs (the same
// flows under two configurations) that change one setting: of the pairs
// whose change packetsim shows beyond its own seed noise (Clear), those
// the estimator got the direction of (Right).
type Direction struct {
	Estimator string `json:"estimator"`
	// Field is the setting changed, as a what-if sweep names it
	// (netcfg.Config.Set's path; "max_load" for the workload's load).
	Field string `json:"field"`
	// Changes are the atlas's changes of it ("timely.tlow_nanos=25000").
	Changes []string `json:"changes"`
	Bin     string   `json:"bin"`
	Clear   int      `json:"clear"`
	Right   int      `json:"right"`
}

// A direction is trusted when the estimator got at least DirectionGoal of
// at least MinDirectionPairs clear pairs right; with fewer clear pairs
// the atlas cannot say.
const (
	DirectionGoal     = 0.9
	MinDirectionPairs = 5
)

// Known reports whether the atlas has enough clear pairs to judge.
func (d Direction) Known() bool { return d.Clear >= MinDirectionPairs }

// Trusted reports whether the direction is known and right often
// enough.
func (d Direction) Trusted() bool {
	return d.Known() && float64(d.Right) >= DirectionGoal*float64(d.Clear)
}

// DirectionsOf are the estimator's scores for changes of field, in the
// order of s.Bins; nil when the atlas changed field in no pair the
// estimator answered.
func (s *Summary) DirectionsOf(estimator, field string) []Direction {
	var out []Direction
	for _, b := range s.Bins {
		i := slices.IndexFunc(s.Directions, func(d Direction) bool {
			return d.Estimator == estimator && d.Field == field && d.Bin == b
		})
		if i >= 0 {
			out = append(out, s.Directions[i])
		}
	}
	return out
}

// DirectionLine says in words how far the atlas trusts the estimator's
// direction when field changes, from its scores ds (DirectionsOf): over
// all flows, and the size bins whose direction is known and not trusted.
func DirectionLine(estimator, field string, ds []Direction) string {
	i := slices.IndexFunc(ds, func(d Direction) bool { return d.Bin == AllBin })
	if i < 0 {
		return fmt.Sprintf("%s: the accuracy atlas changes %s in none of its counterfactual pairs, so how often %s moves the right way when it changes is unknown", estimator, field, estimator)
	}
	all := ds[i]
	msg := fmt.Sprintf("%s: the accuracy atlas's pairs changing %s (%s): its p99 over all flows moved as packetsim's did in %d of the %d where packetsim's change exceeds its seed noise",
		estimator, field, strings.Join(all.Changes, ", "), all.Right, all.Clear)
	switch {
	case !all.Known():
		msg += fmt.Sprintf(", too few to judge its direction (%d needed)", MinDirectionPairs)
	case all.Trusted():
		msg += fmt.Sprintf(", so its direction here is trustworthy (%.0f%% or more right)", 100*DirectionGoal)
	default:
		msg += fmt.Sprintf(", so its direction here is not trustworthy (under %.0f%% right)", 100*DirectionGoal)
	}
	var bad []string
	for _, d := range ds {
		if d.Bin != AllBin && d.Known() && !d.Trusted() {
			bad = append(bad, fmt.Sprintf("%s (%d of %d)", d.Bin, d.Right, d.Clear))
		}
	}
	if len(bad) > 0 {
		msg += "; not in " + strings.Join(bad, ", ") + " either"
	}
	return msg
}
