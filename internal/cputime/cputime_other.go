//go:build !unix

package cputime

import "time"

// Used is 0: the system does not tell.
func Used() time.Duration { return 0 }

// PeakRSS is 0: the system does not tell.
func PeakRSS() int64 { return 0 }
