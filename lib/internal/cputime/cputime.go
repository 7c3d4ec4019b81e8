//go:build unix

// Package cputime reads the CPU time the process has used. The benchmarks
// report it next to wall time because on a shared machine it measures a
// simulator's own cost better.
package cputime

import (
	"syscall"
	"time"
)

// Used returns the user plus system CPU time of the process so far, or 0
// if the system does not tell.
func Used() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
