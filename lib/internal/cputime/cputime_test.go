//go:build unix

package cputime

import (
	"testing"
	"time"
)

// Busy work must show up as CPU time, and sleeping must not.
func TestUsed(t *testing.T) {
	t0 := Used()
	x := 0.0
	for deadline := time.Now().Add(50 * time.Millisecond); time.Now().Before(deadline); {
		for i := 0; i < 1000; i++ {
			x += float64(i)
		}
	}
	busy := Used() - t0
	if busy < 20*time.Millisecond {
		t.Errorf("50 ms of busy work used %v of CPU (x=%g)", busy, x)
	}
	t1 := Used()
	time.Sleep(100 * time.Millisecond)
	if idle := Used() - t1; idle > 50*time.Millisecond {
		t.Errorf("sleeping 100 ms used %v of CPU", idle)
	}
}

// Touching every page of a 64 MiB buffer makes it resident at once, so the
// peak resident set size must then be at least that large; before, a
// test process holds far less.
func TestPeakRSS(t *testing.T) {
	before := PeakRSS()
	buf := make([]byte, 64<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	after := PeakRSS()
	if before >= int64(len(buf)) || after < int64(len(buf)) {
		t.Errorf("peak RSS %d before and %d after touching %d bytes (last %d)", before, after, len(buf), buf[len(buf)-1])
	}
}
