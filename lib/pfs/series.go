package pfs

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/tailscope/tailscope/lib/metrics"
)

// Series is the bytes each destination host received per time bin.
type Series struct {
	BinNs int64
	Hosts []int
	// Bytes[i][b] is what Hosts[i] received in bin b, [b*BinNs,
	// (b+1)*BinNs); rows may differ in length (missing bins are 0).
	Bytes [][]float64
	row   map[int]int
}

// newSeries makes an empty series over hosts (duplicates, from hosts
// with several links, count once).
func newSeries(bin int64, hosts []int) *Series {
	s := &Series{BinNs: bin, row: map[int]int{}}
	for _, h := range hosts {
		if _, ok := s.row[h]; !ok {
			s.row[h] = len(s.Hosts)
			s.Hosts = append(s.Hosts, h)
		}
	}
	s.Bytes = make([][]float64, len(s.Hosts))
	return s
}

// add adds bits[i] (per bin) to host hosts[i]'s row.
func (s *Series) add(hosts []int, bits [][]float64) error {
	for i, h := range hosts {
		r, ok := s.row[h]
		if !ok {
			return fmt.Errorf("series has no host %d", h)
		}
		row := s.Bytes[r]
		for len(row) < len(bits[i]) {
			row = append(row, 0)
		}
		for b, x := range bits[i] {
			row[b] += x / 8
		}
		s.Bytes[r] = row
	}
	return nil
}

// Bins is the number of bins up to the last one with traffic.
func (s *Series) Bins() int {
	n := 0
	for _, r := range s.Bytes {
		n = max(n, len(r))
	}
	return n
}

// Total is the bytes all hosts received per bin.
func (s *Series) Total() []float64 {
	t := make([]float64, s.Bins())
	for _, r := range s.Bytes {
		for b, x := range r {
			t[b] += x
		}
	}
	return t
}

// Rate turns per-bin bytes into bytes per second.
func (s *Series) Rate(bytes []float64) []float64 {
	out := make([]float64, len(bytes))
	for i, x := range bytes {
		out[i] = x * 1e9 / float64(s.BinNs)
	}
	return out
}

// Accuracy is a decomposed run set against the serial one.
type Accuracy struct {
	// RMSE is the root mean square, over bins, of the error in the bytes
	// per second all destinations received (the pfs paper's metric);
	// NRMSE divides it by the serial run's mean rate. HostRMSE is the
	// same over every (destination, bin).
	RMSE, NRMSE, HostRMSE float64
	// P50 and P99 compare FCT-slowdown percentiles per size bin.
	P50, P99 metrics.Comparison
}

// Compare measures est against the serial run base. Bins run from the
// first bin with traffic in either to the last.
func Compare(est, base *Result, bins metrics.Bins) (Accuracy, error) {
	a, b := est.Received, base.Received
	if a.BinNs != b.BinNs {
		return Accuracy{}, fmt.Errorf("pfs: series with %d ns and %d ns bins cannot be compared", a.BinNs, b.BinNs)
	}
	if err := bins.Check(); err != nil {
		return Accuracy{}, err
	}
	ta, tb := a.Rate(a.Total()), b.Rate(b.Total())
	n := max(len(ta), len(tb))
	at := func(xs []float64, i int) float64 {
		if i < len(xs) {
			return xs[i]
		}
		return 0
	}
	first := n
	for i := 0; i < n; i++ {
		if at(ta, i) != 0 || at(tb, i) != 0 {
			first = i
			break
		}
	}
	var acc Accuracy
	var se, mean float64
	for i := first; i < n; i++ {
		d := at(ta, i) - at(tb, i)
		se += d * d
		mean += at(tb, i)
	}
	if bins := n - first; bins > 0 {
		acc.RMSE = math.Sqrt(se / float64(bins))
		mean /= float64(bins)
		acc.NRMSE = acc.RMSE / mean
	}
	rows := map[int][2][]float64{}
	for i, h := range a.Hosts {
		rows[h] = [2][]float64{a.Rate(a.Bytes[i]), nil}
	}
	for i, h := range b.Hosts {
		r := rows[h]
		r[1] = b.Rate(b.Bytes[i])
		rows[h] = r
	}
	var hse float64
	cells := 0
	// Sum in host order: a map's order would change the last bits of the
	// sum from run to run.
	for _, h := range slices.Sorted(maps.Keys(rows)) {
		r := rows[h]
		for i := first; i < n; i++ {
			d := at(r[0], i) - at(r[1], i)
			hse += d * d
		}
		cells += n - first
	}
	if cells > 0 {
		acc.HostRMSE = math.Sqrt(hse / float64(cells))
	}
	acc.P50 = metrics.Compare(est.Records, base.Records, bins, 50)
	acc.P99 = metrics.Compare(est.Records, base.Records, bins, 99)
	return acc, nil
}
