package parsimon

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Default bucketing parameters (Parsimon §3.3): at least B records per
// bucket, and a bucket's largest size at least X times its lower bound.
const (
	DefaultBucketSize  = 100
	DefaultBucketRatio = 2.0
	// DefaultSparseBucketSize is the B of a sparse channel, one with
	// fewer than B records (Options.SparseBucketSize): of 5, 10, 20, 50
	// and 100 (the published bucketing), 5 gave the smallest mean p99
	// error over size bins on a tuning half of the accuracy atlas's
	// scenarios (docs/explanation/parsimon.md).
	DefaultSparseBucketSize = 5
)

// DefaultWindowOnce is Options.WindowOnce's default: charged once per
// path, the window's delay brought Parsimon's p99 error down in every
// size bin of the accuracy atlas's window-limited scenarios
// (docs/explanation/parsimon.md).
const DefaultWindowOnce = true

// Buckets is one channel's distribution of packet-normalized delay, split
// by flow size into contiguous buckets [Lower[i], Upper[i]) with
// Lower[i+1] == Upper[i].
type Buckets struct {
	Lower, Upper []int64
	// Delays holds each bucket's packet-normalized delays (ns per packet),
	// in order of flow size. NewBuckets lays them out in one array of
	// exactly the records' length: a run holds them for every channel of
	// every flow's path until its convolution.
	Delays [][]float64
}

// NewBuckets buckets packet-normalized delays by flow size (sizes[i] goes
// with delays[i]): records are sorted by size and fill the current bucket
// until it holds at least b records and its lower bound is at most
// round(largest size / x); records of that same largest size still join
// it, then the next bucket starts at largest+1. Leftovers form the last
// bucket. The first bucket's lower bound is the smallest size.
func NewBuckets(sizes []int64, delays []float64, b int, x float64) (*Buckets, error) {
	switch {
	case len(sizes) != len(delays):
		return nil, fmt.Errorf("parsimon: %d sizes but %d delays", len(sizes), len(delays))
	case len(sizes) == 0:
		return nil, fmt.Errorf("parsimon: no records to bucket")
	case len(sizes) > math.MaxUint32:
		return nil, fmt.Errorf("parsimon: %d records to bucket; at most %d are supported", len(sizes), uint64(math.MaxUint32))
	case b < 1:
		return nil, fmt.Errorf("parsimon: bucket size B = %d; it must be >= 1", b)
	case !(x >= 1):
		return nil, fmt.Errorf("parsimon: bucket ratio x = %g; it must be >= 1", x)
	}
	order := byStableSize(sizes)
	all := make([]float64, len(order))
	for k, i := range order {
		all[k] = delays[i]
	}
	size := func(k int) int64 { return sizes[order[k]] }
	bk := &Buckets{}
	lower := size(0)
	first := 0 // the current bucket is all[first:i]
	for i := 0; i < len(order); {
		s := size(i)
		i++
		if i-first < b || lower > int64(math.Round(float64(s)/x)) {
			continue
		}
		for i < len(order) && size(i) == s {
			i++
		}
		bk.Lower, bk.Upper, bk.Delays = append(bk.Lower, lower), append(bk.Upper, s+1), append(bk.Delays, all[first:i:i])
		lower, first = s+1, i
	}
	if first < len(order) {
		bk.Lower, bk.Upper, bk.Delays = append(bk.Lower, lower), append(bk.Upper, size(len(order)-1)+1), append(bk.Delays, all[first:])
	}
	return bk, nil
}

// byStableSize returns the positions of sizes in order of size, ties in
// order of position: a stable sort, done as a plain sort of the distinct
// keys size<<32 | position when every size is under 2^32 bytes (as
// flows are; 2.5 times as fast as sort.SliceStable, and most of
// bucketing's time), else a stable sort.
func byStableSize(sizes []int64) []uint32 {
	order := make([]uint32, len(sizes))
	keys := make([]uint64, len(sizes))
	for i, s := range sizes {
		if s < 0 || s >= 1<<32 {
			for i := range order {
				order[i] = uint32(i)
			}
			slices.SortStableFunc(order, func(a, b uint32) int { return cmp.Compare(sizes[a], sizes[b]) })
			return order
		}
		keys[i] = uint64(s)<<32 | uint64(i)
	}
	slices.Sort(keys)
	for k, key := range keys {
		order[k] = uint32(key)
	}
	return order
}

// Bucket returns the index of the bucket for a flow of size bytes: the one
// whose range holds it, the first for smaller sizes, the last for larger.
func (b *Buckets) Bucket(size int64) int {
	i := sort.Search(len(b.Upper), func(i int) bool { return b.Upper[i] > size })
	return min(i, len(b.Upper)-1)
}

// Sample draws a packet-normalized delay uniformly from the bucket of a
// flow of size bytes.
func (b *Buckets) Sample(size int64, r *rand.Rand) float64 {
	d := b.Delays[b.Bucket(size)]
	return d[r.IntN(len(d))]
}
