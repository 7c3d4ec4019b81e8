package summary_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/summary"
)

// CompareDirs against closed forms: the baseline's slowdowns are 2 in
// every flow, the estimate's 2.2 for flows up to 10KB and 1.5 above, so
// every percentile is known and the errors are +10% and -25%.
func TestCompareDirs(t *testing.T) {
	spec := scenario.Default()
	spec.Name = "small"
	spec.Workload.Flows = 400
	sc := mustBuild(t, spec)
	dir := t.TempDir()
	run := filepath.Join(dir, sc.ID)
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(est string, slowdown func(size int64) float64) {
		recs := make([]metrics.Record, len(sc.Flows))
		for i, f := range sc.Flows {
			s := slowdown(f.Size)
			recs[i] = metrics.Record{FlowID: f.ID, Size: f.Size, Ideal: 1000, FCT: int64(1000 * s), Slowdown: s}
		}
		if err := frame.WriteRecords(filepath.Join(run, est+".parquet"), recs, meta(sc, est)); err != nil {
			t.Fatal(err)
		}
	}
	write("packetsim", func(int64) float64 { return 2 })
	write("flowsim", func(size int64) float64 {
		if size <= 10_000 {
			return 2.2
		}
		return 1.5
	})
	bins := metrics.DefaultBins()
	// The run directory itself and the results directory holding it.
	for _, d := range []string{run, dir} {
		rows, err := summary.CompareDirs([]string{d}, "packetsim", bins)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != bins.Len()+1 {
			t.Fatalf("%d rows, want a row per bin and all", len(rows))
		}
		counts := make([]int, bins.Len())
		for _, f := range sc.Flows {
			counts[bins.Index(f.Size)]++
		}
		for i, r := range rows {
			want := 2.2
			if i >= 2 && i < bins.Len() { // 10KB-100KB, >100KB
				want = 1.5
			}
			if r.Bin == "all" {
				continue
			}
			if r.Estimator != "flowsim" || r.Baseline != "packetsim" || r.Bin != bins.Labels[i] || r.Flows != counts[i] {
				t.Errorf("row %d: %+v", i, r)
			}
			if counts[i] == 0 {
				continue
			}
			if math.Abs(r.P99-want) > 1e-9 || math.Abs(r.P50-want) > 1e-9 || math.Abs(r.P99Err-(want/2-1)) > 1e-9 || math.Abs(r.P50Err-(want/2-1)) > 1e-9 {
				t.Errorf("bin %s: p50 %g p99 %g errors %g %g, want %g and %+.2f", r.Bin, r.P50, r.P99, r.P50Err, r.P99Err, want, want/2-1)
			}
		}
		if !strings.Contains(rows[0].Scenario, "small") || !strings.Contains(rows[0].Scenario, "dctcp") || !strings.Contains(rows[0].Scenario, "load 50%") {
			t.Errorf("scenario named %q, want its name, CC and load", rows[0].Scenario)
		}
		var text bytes.Buffer
		if err := summary.WriteBinRows(&text, rows); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text.String(), "+10.0%") || !strings.Contains(text.String(), sc.ID) {
			t.Errorf("terminal table lacks the error or the scenario:\n%s", text.String())
		}
		if tb := summary.BinTable(rows); tb.Check() != nil || tb.Len() != len(rows) {
			t.Errorf("frame: %v, %d rows", tb.Check(), tb.Len())
		}
	}
	for _, c := range []struct {
		dirs     []string
		baseline string
		want     string
	}{
		{[]string{filepath.Join(dir, "missing")}, "packetsim", "no such file"},
		{[]string{run}, "ns3", "no ns3 records"},
		{[]string{t.TempDir()}, "packetsim", "holds no record frames"},
		{nil, "packetsim", "no directories"},
	} {
		if _, err := summary.CompareDirs(c.dirs, c.baseline, bins); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CompareDirs(%v, %s): %v, want an error saying %q", c.dirs, c.baseline, err, c.want)
		}
	}
}
