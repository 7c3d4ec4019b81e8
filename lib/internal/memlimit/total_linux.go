package memlimit

import (
	"math"
	"syscall"
)

// Total is the machine's physical memory in bytes (math.MaxInt64 if the
// system does not tell).
func Total() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil || si.Totalram == 0 {
		return math.MaxInt64
	}
	t := uint64(si.Totalram) * uint64(si.Unit)
	if t > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(t)
}
