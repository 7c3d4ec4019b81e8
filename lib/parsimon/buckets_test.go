package parsimon

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// seq returns the sizes lo..hi, each once.
func seq(lo, hi int64) []int64 {
	var s []int64
	for v := lo; v <= hi; v++ {
		s = append(s, v)
	}
	return s
}

// rep returns n copies of v.
func rep(v int64, n int) []int64 {
	s := make([]int64, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func TestBucketBoundaries(t *testing.T) {
	tests := []struct {
		name   string
		sizes  []int64
		b      int
		x      float64
		bounds [][2]int64 // [lower, upper) per bucket
		counts []int
	}{
		{
			// 1..100 closes the first bucket (100 records, 1 <= round(100/2));
			// the second starts at 101 and needs round(max/2) >= 101, which
			// 201 first meets (100.5 rounds half away from zero): 101..201.
			name: "1..250 once each", sizes: seq(1, 250), b: 100, x: 2,
			bounds: [][2]int64{{1, 101}, {101, 202}, {202, 251}},
			counts: []int{100, 101, 49},
		},
		{
			// 150 records of 5 are B-full but 5 > round(5/2) = 3: the bucket
			// stays open until 10 (round(10/2) = 5) and then absorbs every
			// other 10.
			name: "absorb equal sizes", sizes: append(append(rep(5, 150), rep(10, 50)...), rep(40, 3)...), b: 100, x: 2,
			bounds: [][2]int64{{5, 11}, {11, 41}},
			counts: []int{200, 3},
		},
		{
			// B = 1, x = 1: every distinct size is a bucket; the gap
			// between 3 and 7 belongs to the bucket of 7.
			name: "B=1 x=1", sizes: []int64{7, 3, 3, 1}, b: 1, x: 1,
			bounds: [][2]int64{{1, 2}, {2, 4}, {4, 8}},
			counts: []int{1, 2, 1},
		},
		{
			name: "fewer than B", sizes: []int64{1000, 50, 20_000}, b: 100, x: 2,
			bounds: [][2]int64{{50, 20_001}},
			counts: []int{3},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			delays := make([]float64, len(tc.sizes))
			for i, s := range tc.sizes {
				delays[i] = float64(s) // so each bucket's content is checkable
			}
			bk, err := NewBuckets(tc.sizes, delays, tc.b, tc.x)
			if err != nil {
				t.Fatal(err)
			}
			var bounds [][2]int64
			var counts []int
			for i := range bk.Lower {
				bounds = append(bounds, [2]int64{bk.Lower[i], bk.Upper[i]})
				counts = append(counts, len(bk.Delays[i]))
				for _, d := range bk.Delays[i] {
					if int64(d) < bk.Lower[i] || int64(d) >= bk.Upper[i] {
						t.Errorf("bucket %d [%d,%d) holds the record of size %g", i, bk.Lower[i], bk.Upper[i], d)
					}
				}
			}
			if !reflect.DeepEqual(bounds, tc.bounds) || !reflect.DeepEqual(counts, tc.counts) {
				t.Errorf("buckets %v with %v records, want %v with %v", bounds, counts, tc.bounds, tc.counts)
			}
		})
	}
}

// TestBucketOrder checks that the buckets hold the delays by size, ties
// in record order: Sample draws by position, so the order is part of a
// run's results. Sizes of 2^32 bytes and more take another sort.
func TestBucketOrder(t *testing.T) {
	for _, base := range []int64{1, 1 << 32} {
		// Many ties over a few sizes, in an order a sort would disturb.
		sizes, delays := make([]int64, 500), make([]float64, 500)
		for i := range sizes {
			sizes[i], delays[i] = base+int64(i*7919%11), float64(i)
		}
		bk, err := NewBuckets(sizes, delays, 100, 2)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for _, b := range bk.Delays {
			for _, d := range b {
				got = append(got, int(d))
			}
		}
		if len(got) != len(sizes) {
			t.Fatalf("sizes from %d: buckets hold %d records of %d", base, len(got), len(sizes))
		}
		for k := 1; k < len(got); k++ {
			i, j := got[k-1], got[k]
			if sizes[i] > sizes[j] || sizes[i] == sizes[j] && i > j {
				t.Fatalf("sizes from %d: record %d (size %d) follows record %d (size %d)", base, j, sizes[j], i, sizes[i])
			}
		}
	}
}

func TestBucketLookup(t *testing.T) {
	bk, err := NewBuckets(seq(1, 250), make([]float64, 250), 100, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		size int64
		want int
	}{{-5, 0}, {1, 0}, {100, 0}, {101, 1}, {201, 1}, {202, 2}, {250, 2}, {1 << 40, 2}} {
		if got := bk.Bucket(c.size); got != c.want {
			t.Errorf("Bucket(%d) = %d, want %d", c.size, got, c.want)
		}
	}
	// Sample draws from the right bucket, covering it uniformly.
	delays := make([]float64, 250)
	for i := range delays {
		delays[i] = float64(i + 1)
	}
	bk, _ = NewBuckets(seq(1, 250), delays, 100, 2)
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[float64]int{}
	for i := 0; i < 20_000; i++ {
		d := bk.Sample(150, r)
		if d < 101 || d > 201 {
			t.Fatalf("size 150 drew %g from outside its bucket [101,202)", d)
		}
		seen[d]++
	}
	if len(seen) != 101 {
		t.Errorf("drew %d distinct values of the bucket's 101", len(seen))
	}
}

func TestBucketErrors(t *testing.T) {
	for _, c := range []struct {
		name   string
		sizes  []int64
		delays []float64
		b      int
		x      float64
	}{
		{"empty", nil, nil, 100, 2},
		{"length mismatch", []int64{1, 2}, []float64{0}, 100, 2},
		{"B = 0", []int64{1}, []float64{0}, 0, 2},
		{"x < 1", []int64{1}, []float64{0}, 100, 0.5},
	} {
		if _, err := NewBuckets(c.sizes, c.delays, c.b, c.x); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}
