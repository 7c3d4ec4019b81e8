package metrics

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestParseBins(t *testing.T) {
	for _, c := range []struct {
		in     string
		edges  []int64
		labels []string
		err    string
	}{
		{"parsimon", []int64{1_000, 10_000, 100_000}, []string{"<=1KB", "1KB-10KB", "10KB-100KB", ">100KB"}, ""},
		{"m3out", []int64{1_000, 10_000, 50_000}, []string{"<=1KB", "1KB-10KB", "10KB-50KB", ">50KB"}, ""},
		{"1KB,10KB,50KB", []int64{1_000, 10_000, 50_000}, []string{"<=1KB", "1KB-10KB", "10KB-50KB", ">50KB"}, ""},
		{"500B, 2.5KB,1MB", []int64{500, 2_500, 1_000_000}, []string{"<=500B", "500B-2.5KB", "2.5KB-1MB", ">1MB"}, ""},
		{"10000", []int64{10_000}, []string{"<=10KB", ">10KB"}, ""},
		{"10KB,1KB", nil, nil, "strictly increasing"},
		{"papers", nil, nil, "neither a name nor a size"},
		{"-1KB", nil, nil, "neither a name nor a size"},
	} {
		t.Run(c.in, func(t *testing.T) {
			b, err := ParseBins(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(b.Edges, c.edges) || !slices.Equal(b.Labels, c.labels) {
				t.Errorf("got %v %q, want %v %q", b.Edges, b.Labels, c.edges, c.labels)
			}
		})
	}
}

// The default bins are the papers' four.
func TestDefaultBins(t *testing.T) {
	if got := DefaultBins().Labels; !slices.Equal(got, []string{"<=1KB", "1KB-10KB", "10KB-100KB", ">100KB"}) {
		t.Errorf("DefaultBins labels %q", got)
	}
}

// The Python companion labels its bins as DefaultBins does, so that its
// tables and the command line's join on the labels.
func TestPythonCompanionLabels(t *testing.T) {
	b, err := os.ReadFile("../../notebooks/python/companion.ipynb")
	if err != nil {
		t.Skip("no companion notebook:", err)
	}
	text := string(b)
	for _, l := range DefaultBins().Labels {
		if !strings.Contains(text, `'`+l+`'`) || !strings.Contains(text, `\"`+l+`\"`) {
			t.Errorf("the companion's bins have no %q", l)
		}
	}
}
