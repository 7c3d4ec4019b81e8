//go:build unix

// Package cputime reads the CPU time and the peak memory the process has
// used. The benchmarks report CPU time next to wall time because on a
// shared machine it measures a simulator's own cost better; estimators
// report the peak resident set size with their results.
package cputime

import (
	"runtime"
	"syscall"
	"time"
)

// Used returns the user plus system CPU time of the process so far, and
// of the child processes it has waited for (the ns-3 program an
// estimator runs is part of what the estimate cost), or 0 if the system
// does not tell.
func Used() time.Duration {
	var used time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err != nil {
			return 0
		}
		used += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return used
}

// PeakRSS returns the largest resident set size of the process so far in
// bytes, or 0 if the system does not tell.
func PeakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	// Linux and the BSDs count kilobytes, Darwin bytes.
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss)
	}
	return int64(ru.Maxrss) * 1024
}
