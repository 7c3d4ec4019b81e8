// Package records compares FCT records for the benchmark programs.
package records

import (
	"fmt"
	"math"

	"github.com/tailscope/tailscope/lib/metrics"
)

// Same reports the first record that differs between a and b, value for
// value, slowdowns bit for bit.
func Same(a, b []metrics.Record) error {
	if len(a) != len(b) {
		return fmt.Errorf("%d records against %d", len(a), len(b))
	}
	for i := range a {
		x, y := a[i], b[i]
		sx, sy := x.Slowdown, y.Slowdown
		x.Slowdown, y.Slowdown = 0, 0
		if x != y || math.Float64bits(sx) != math.Float64bits(sy) {
			return fmt.Errorf("record %d differs: %+v (slowdown %v) against %+v (slowdown %v)", i, x, sx, y, sy)
		}
	}
	return nil
}
