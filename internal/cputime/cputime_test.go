//go:build unix

package cputime

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// sink keeps busy's result alive: a result the compiler can see is unused
// lets it drop the additions and leave an empty loop of a few milliseconds.
var sink float64

// busy does 50M dependent additions: at least 40 ms at 5 GHz.
func busy() float64 {
	x := 0.0
	for i := 0; i < 50_000_000; i++ {
		x += float64(i)
	}
	return x
}

// A child process's CPU time counts once it has been waited for: the
// test binary runs itself as the child, doing only the busy work.
func TestUsedCountsChildren(t *testing.T) {
	if os.Getenv("CPUTIME_CHILD") == "1" {
		sink = busy()
		return
	}
	t0 := Used()
	cmd := exec.Command(os.Args[0], "-test.run=^TestUsedCountsChildren$")
	cmd.Env = append(os.Environ(), "CPUTIME_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if got := Used() - t0; got < 20*time.Millisecond {
		t.Errorf("a child doing 50M dependent additions added %v of CPU", got)
	}
}

// Busy work must show up as CPU time, and sleeping must not. The work is
// a fixed count of dependent additions (at least 4 cycles each, so at
// least 40 ms at 5 GHz) rather than a wall-clock span, which on a loaded
// machine may get little CPU.
func TestUsed(t *testing.T) {
	t0 := Used()
	x := 0.0
	for i := 0; i < 50_000_000; i++ {
		x += float64(i)
	}
	busy := Used() - t0
	if busy < 20*time.Millisecond {
		t.Errorf("50M dependent additions used %v of CPU (x=%g)", busy, x)
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
