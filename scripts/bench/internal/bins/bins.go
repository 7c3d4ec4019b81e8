// Package bins holds what the benchmark commands that compare tailscope
// binaries share: the repeated -bin name=path flag and a measured run.
package bins

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Flag is a repeatable flag of name=path pairs.
type Flag []string

// String implements flag.Value.
func (b *Flag) String() string { return strings.Join(*b, ",") }

// Set implements flag.Value: each use of the flag adds one pair.
func (b *Flag) Set(s string) error { *b = append(*b, s); return nil }

// Split returns the binaries' names and paths, in flag order.
func (b Flag) Split() (names, paths []string, err error) {
	for _, s := range b {
		n, p, ok := strings.Cut(s, "=")
		if !ok {
			return nil, nil, fmt.Errorf("-bin %q: want name=path", s)
		}
		names, paths = append(names, n), append(paths, p)
	}
	return names, paths, nil
}

// Usage is what one run cost: wall seconds, CPU seconds (user + system,
// from rusage) and peak RSS in KiB.
type Usage struct {
	Wall, CPU float64
	RSSKB     int64
}

// Run runs cmd to its end and measures it.
func Run(cmd *exec.Cmd) (Usage, error) {
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return Usage{}, err
	}
	u := Usage{Wall: time.Since(t0).Seconds()}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	u.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	u.RSSKB = ru.Maxrss
	return u, nil
}
