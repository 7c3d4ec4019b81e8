//go:build unix

package cputime

import (
	"testing"
	"time"
)

// Busy work must show up as CPU time, and sleeping must not. The busy
// loop runs until the CPU clock has advanced 20 ms, not for a wall-clock
// span: on a loaded machine a wall-clock span may get almost no CPU.
func TestUsed(t *testing.T) {
	t0 := Used()
	x := 0.0
	for deadline := time.Now().Add(time.Minute); Used()-t0 < 20*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("a minute of busy work used %v of CPU (x=%g)", Used()-t0, x)
		}
		for i := 0; i < 100_000; i++ {
			x += float64(i)
		}
	}
	t1 := Used()
	time.Sleep(100 * time.Millisecond)
	if idle := Used() - t1; idle > 50*time.Millisecond {
		t.Errorf("sleeping 100 ms used %v of CPU", idle)
	}
}
