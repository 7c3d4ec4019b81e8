package parsimon

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Default bucketing parameters (Parsimon §3.3): at least B records per
// bucket, and a bucket's largest size at least X times its lower bound.
const (
	DefaultBucketSize  = 100
	DefaultBucketRatio = 2.0
)

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
	case b < 1:
		return nil, fmt.Errorf("parsimon: bucket size B = %d; it must be >= 1", b)
	case !(x >= 1):
		return nil, fmt.Errorf("parsimon: bucket ratio x = %g; it must be >= 1", x)
	}
	idx := make([]int, len(sizes))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return sizes[idx[i]] < sizes[idx[j]] })
	all := make([]float64, len(idx))
	for k, i := range idx {
		all[k] = delays[i]
	}
	bk := &Buckets{}
	lower := sizes[idx[0]]
	first := 0 // the current bucket is all[first:i]
	for i := 0; i < len(idx); {
		s := sizes[idx[i]]
		i++
		if i-first < b || lower > int64(math.Round(float64(s)/x)) {
			continue
		}
		for i < len(idx) && sizes[idx[i]] == s {
			i++
		}
		bk.Lower, bk.Upper, bk.Delays = append(bk.Lower, lower), append(bk.Upper, s+1), append(bk.Delays, all[first:i:i])
		lower, first = s+1, i
	}
	if first < len(idx) {
		bk.Lower, bk.Upper, bk.Delays = append(bk.Lower, lower), append(bk.Upper, sizes[idx[len(idx)-1]]+1), append(bk.Delays, all[first:])
	}
	return bk, nil
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
