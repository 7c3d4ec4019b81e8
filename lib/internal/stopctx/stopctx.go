// Package stopctx is a context for tests that interrupt a long loop at a
// known point, counted in the loop's own looks at the context instead of
// timed: the tests of packetsim and Parsimon share it.
package stopctx

import "context"

// After is a context whose Err reports context.Canceled from its N-th call
// on; Looks counts the calls. Its Done is the embedded context's, so only
// code that calls Err sees the cancellation.
type After struct {
	context.Context
	N, Looks int
}

// Err counts a look and reports context.Canceled from the N-th on.
func (c *After) Err() error {
	c.Looks++
	if c.Looks >= c.N {
		return context.Canceled
	}
	return nil
}
