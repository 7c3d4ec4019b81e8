package metrics

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Bins partitions flow sizes into bins by upper edges: bin 0 holds sizes
// s <= Edges[0], bin i holds Edges[i-1] < s <= Edges[i], and the last bin
// holds s > Edges[len(Edges)-1]. There is one more bin than edges; KB and
// MB are 1000 and 1000000 bytes, as in the papers.
type Bins struct {
	Edges  []int64  // strictly increasing, positive, bytes
	Labels []string // one per bin: len(Edges)+1
}

// NewBins checks edges and returns bins labelled "<=1KB", "1KB-10KB", ...,
// ">100KB" when labels is nil.
func NewBins(edges []int64, labels []string) (Bins, error) {
	b := Bins{Edges: edges, Labels: labels}
	if labels == nil {
		b.Labels = make([]string, len(edges)+1)
		for i := range b.Labels {
			switch {
			case len(edges) == 0:
				b.Labels[i] = "all"
			case i == 0:
				b.Labels[i] = "<=" + ByteSize(edges[0])
			case i == len(edges):
				b.Labels[i] = ">" + ByteSize(edges[i-1])
			default:
				b.Labels[i] = ByteSize(edges[i-1]) + "-" + ByteSize(edges[i])
			}
		}
	}
	if err := b.Check(); err != nil {
		return Bins{}, err
	}
	return b, nil
}

// mustBins is for the package's own fixed bins.
func mustBins(edges []int64, labels []string) Bins {
	b, err := NewBins(edges, labels)
	if err != nil {
		panic(err)
	}
	return b
}

// ParsimonBins are the four size bins of Parsimon's Fig. 7 and 10:
// <=1KB, 1KB-10KB, 10KB-100KB, >100KB.
func ParsimonBins() Bins { return mustBins([]int64{1_000, 10_000, 100_000}, nil) }

// NS3Bins are the three bins of Parsimon's Table 5 (ns-3 validation):
// <=10KB, 10KB-1MB, >1MB.
func NS3Bins() Bins { return mustBins([]int64{10_000, 1_000_000}, nil) }

// M3Bins are m3's ten feature-map size buckets (its Fig. 3 rows).
func M3Bins() Bins {
	return mustBins([]int64{250, 500, 750, 1_000, 2_000, 5_000, 7_500, 10_000, 50_000}, nil)
}

// M3OutputBins are the four buckets m3's model predicts: <=1KB, 1KB-10KB,
// 10KB-50KB, >50KB.
func M3OutputBins() Bins { return mustBins([]int64{1_000, 10_000, 50_000}, nil) }

// AllSizes is a single bin holding every flow.
func AllSizes() Bins { return mustBins(nil, nil) }

// DefaultBins are the size bins every command and study reports by
// default: the papers' four (ParsimonBins), <=1KB, 1KB-10KB, 10KB-100KB
// and >100KB. Commands take others with --bins (ParseBins). Methods that
// need bins of their own keep them where they are used: m3's model
// predicts M3OutputBins and reads M3Bins, the ns-3 validation reports
// NS3Bins as Parsimon's Table 5 does.
func DefaultBins() Bins { return ParsimonBins() }

// BinsUsage describes the values ParseBins reads, for a --bins flag's help.
const BinsUsage = `size bins: "parsimon" (the papers' four: <=1KB, 1KB-10KB, 10KB-100KB, >100KB), "ns3", "m3", "m3out" or "all", or upper edges such as 1KB,10KB,50KB`

// ParseBins reads size bins as a --bins flag gives them: a name
// (BinsByName), or comma-separated upper edges in bytes with an optional
// KB or MB (1000 and 1000000 bytes), such as "1KB,10KB,50KB", labelled
// as NewBins labels them.
func ParseBins(s string) (Bins, error) {
	if b, err := BinsByName(s); err == nil {
		return b, nil
	}
	var edges []int64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		mult := int64(1)
		num := f
		switch {
		case strings.HasSuffix(f, "MB"):
			mult, num = 1_000_000, strings.TrimSuffix(f, "MB")
		case strings.HasSuffix(f, "KB"):
			mult, num = 1_000, strings.TrimSuffix(f, "KB")
		case strings.HasSuffix(f, "B"):
			num = strings.TrimSuffix(f, "B")
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || !(v > 0) || v*float64(mult) >= 1e18 {
			return Bins{}, fmt.Errorf("metrics: size bins %q: %q is neither a name nor a size such as 10KB (%s)", s, f, BinsUsage)
		}
		edges = append(edges, int64(v*float64(mult)))
	}
	b, err := NewBins(edges, nil)
	if err != nil {
		return Bins{}, fmt.Errorf("metrics: size bins %q: %w", s, err)
	}
	return b, nil
}

// BinsByName returns "parsimon", "ns3", "m3", "m3out" or "all".
func BinsByName(name string) (Bins, error) {
	switch name {
	case "parsimon":
		return ParsimonBins(), nil
	case "ns3":
		return NS3Bins(), nil
	case "m3":
		return M3Bins(), nil
	case "m3out":
		return M3OutputBins(), nil
	case "all":
		return AllSizes(), nil
	}
	return Bins{}, fmt.Errorf("metrics: unknown size bins %q (known: parsimon, ns3, m3, m3out, all)", name)
}

// Check reports edges that are not positive and strictly increasing, or a
// label count that does not match.
func (b Bins) Check() error {
	for i, e := range b.Edges {
		if e <= 0 || (i > 0 && e <= b.Edges[i-1]) {
			return fmt.Errorf("metrics: bin edges must be positive and strictly increasing, got %v", b.Edges)
		}
	}
	if len(b.Labels) != len(b.Edges)+1 {
		return fmt.Errorf("metrics: %d bin edges need %d labels, got %d", len(b.Edges), len(b.Edges)+1, len(b.Labels))
	}
	return nil
}

// Len is the number of bins.
func (b Bins) Len() int { return len(b.Edges) + 1 }

// Index is the bin of a flow of size bytes.
func (b Bins) Index(size int64) int {
	return sort.Search(len(b.Edges), func(i int) bool { return size <= b.Edges[i] })
}

// ByteSize formats a byte count compactly: 250B, 1KB, 7.5KB, 1MB.
func ByteSize(n int64) string {
	switch {
	case n >= 1_000_000 && n%10_000 == 0:
		return strconv.FormatFloat(float64(n)/1e6, 'g', -1, 64) + "MB"
	case n >= 1_000 && n%10 == 0:
		return strconv.FormatFloat(float64(n)/1e3, 'g', -1, 64) + "KB"
	}
	return strconv.FormatInt(n, 10) + "B"
}

// ParsimonLoadEdges are the max-load bins of Parsimon's Fig. 8: up to 41%,
// 41% to 56%, above 56%.
func ParsimonLoadEdges() []float64 { return []float64{0.41, 0.56} }
