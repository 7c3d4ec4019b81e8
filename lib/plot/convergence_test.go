package plot

import (
	"math"
	"strings"
	"testing"
)

// TestStudyFigures draws the study figures from plain data and checks
// that malformed data is refused by name.
func TestStudyFigures(t *testing.T) {
	var trace CIMetric
	trace.Name, trace.Title, trace.Trials, trace.Forecast = "fct_p99", "fct_p99: 900 ± 9", 420, 380
	for n := 2; n <= 420; n++ {
		trace.N, trace.Relative = append(trace.N, n), append(trace.Relative, 0.2/math.Sqrt(float64(n)))
	}
	rows := []CIRow{{Label: "narrow", Mean: 900, Half: 9, Trials: 420, Forecast: 380}, {Label: "wide", Mean: 1100, Half: 11, Trials: 1500}}
	var durs []DurationPoint
	for i, n := range []int{10, 100, 1000} {
		w := 0.3 / float64(i+1)
		durs = append(durs, DurationPoint{Flows: n, Mean: 50 + 20*float64(i), Half: 3, Trials: 4000 / (i + 1),
			StableMean: 60 + 18*float64(i), WarmUp: w, CoolDown: w, Stable: 1 - 2*w, TotalFlows: n * 4000 / (i + 1)})
	}
	tail := []TailMethod{{"model-free", 100, 1, 24000, 0}, {"renewal-reward", 120, 1.2, 30000, 0}, {"importance sampling", 121, 1.2, 9000, 600}}
	var pts []DecompositionPoint
	for i, c := range []float64{2, 4, 8} {
		pts = append(pts, DecompositionPoint{X: c, Workers: 2, SerialSeconds: 10, PrepSeconds: 0.5, WallSeconds: 6 - float64(i),
			CriticalSeconds: 10 / c, SumSeconds: 11, NRMSE: 0.01 * c, P50Error: 0.002 * c, P99Error: -0.01 * c})
	}
	queues := []QueuePanel{{Title: "channel 3: a -> b", Names: []string{"original", "replica"}, Queues: [][]float64{{0, 1500, 3000, 9000}, {0, 3000}}}}
	for _, tc := range []struct {
		name string
		make func() (*Figure, error)
	}{
		{"cceval_trace", func() (*Figure, error) { return CITrace([]CIMetric{trace}, 0.02, nil) }},
		{"cceval_by_label", func() (*Figure, error) { return CIByLabel("fct_p99", 0.95, rows) }},
		{"cceval_durations", func() (*Figure, error) { return Durations(durs, "fct_p99") }},
		{"cceval_tail", func() (*Figure, error) { return TailComparison(0.99, "fct", tail) }},
		{"pfs_curves", func() (*Figure, error) { return PFSCurves("temporal", "temporal chunks", pts) }},
		{"pfs_received", func() (*Figure, error) {
			return ReceivedSeries("received", []string{"serial"}, []Rate{{BinNs: 1000, BytesPerSec: []float64{1e9, 2e9, 1e9}}})
		}},
		{"queue_cdfs", func() (*Figure, error) { return QueueCDFs(queues) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := tc.make()
			if err != nil {
				t.Fatal(err)
			}
			saveBoth(t, f, tc.name)
		})
	}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{second(CITrace([]CIMetric{trace}, 0.02, []string{"nope"})), "none of the metrics"},
		{second(CITrace([]CIMetric{{Name: "x", N: []int{2}}}, 0.02, nil)), "1 trial counts, 0 half-widths"},
		{second(CIByLabel("x", 0.95, nil)), "no rows"},
		{second(Durations(nil, "x")), "no points"},
		{second(TailComparison(0.99, "fct", nil)), "incomplete"},
		{second(PFSCurves("t", "x", nil)), "no points"},
		{second(ReceivedSeries("t", []string{"a", "b"}, []Rate{{}})), "one name per series"},
		{second(QueueCDFs([]QueuePanel{{Title: "c", Names: []string{"a"}}})), "1 names, 0 queues"},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("error %v, want it to mention %q", tc.err, tc.want)
		}
	}
}
