// Package memlimit checks counts read from files and flags against the
// memory of the machine before anything is allocated for them, so that a
// typo or a corrupted header gives an error naming the size it would need
// instead of the runtime's fatal "out of memory".
package memlimit

import (
	"fmt"
	"math"
)

// Check returns an error if n items of bytesEach bytes each cannot fit in
// the machine's physical memory, or if n is negative. what names the items
// and where the count came from, e.g. `topology.txt header: nodes`.
func Check(what string, n, bytesEach int64) error {
	if n < 0 {
		return fmt.Errorf("%s: %d is negative", what, n)
	}
	total := Total()
	if bytesEach > 0 && n > total/bytesEach {
		need := "more than 8 EiB"
		if n <= math.MaxInt64/bytesEach {
			need = Bytes(n * bytesEach)
		}
		return fmt.Errorf("%s: %d would need %s (%d B each) but this machine has %s of memory", what, n, need, bytesEach, Bytes(total))
	}
	return nil
}

// Bytes formats a byte count with a binary unit, e.g. "1.5 GiB".
func Bytes(b int64) string {
	const units = "KMGTPE"
	if b < 1024 {
		return fmt.Sprintf("%d B", b)
	}
	v, i := float64(b)/1024, 0
	for v >= 1024 && i < len(units)-1 {
		v, i = v/1024, i+1
	}
	return fmt.Sprintf("%.1f %ciB", v, units[i])
}
