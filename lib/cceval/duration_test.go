package cceval

import (
	"context"
	"math"
	"testing"

	"github.com/tailscope/tailscope/lib/metrics"
)

func TestSplitPhases(t *testing.T) {
	recs := []metrics.Record{
		{FlowID: 0, Start: 0, FCT: 100}, {FlowID: 1, Start: 10, FCT: 100}, {FlowID: 2, Start: 50, FCT: 20},
		{FlowID: 3, Start: 200, FCT: 50}, {FlowID: 4, Start: 300, FCT: 100}, {FlowID: 5, Start: 250, FCT: 100},
	}
	// Active flows over [0, 300] average 320/300 ns: warm-up ends when
	// two flows are active (t = 10); the cool-down starts at the last
	// start, 300, and takes the flows finishing later.
	p := SplitPhases(recs)
	want := Phases{WarmUpEnd: 10, CoolDownStart: 300, End: 400, WarmUp: 1, Stable: 3, CoolDown: 2}
	if p != want {
		t.Errorf("phases %+v, want %+v", p, want)
	}
	if st := p.StableRecords(recs); len(st) != 3 || st[0].FlowID != 1 || st[2].FlowID != 3 {
		t.Errorf("stable flows %v", st)
	}
	if (SplitPhases(nil) != Phases{}) {
		t.Error("no records: phases not zero")
	}
}

// Short trials are mostly warm-up and cool-down; their share falls as
// trials grow, and so does the gap between the metric over all flows and
// over stable flows (Fig. 13a-b).
func TestDurationStudy(t *testing.T) {
	pts, err := DurationStudy(context.Background(), dumbbellSpec(1, 0.3), "packetsim", "", []int{10, 400}, "fct_p99", Config{Margin: 1e-9, MaxTrials: 25, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		t.Logf("%d flows (%.2f ms): %v, stable-only mean %.4g; flows warm-up %.1f%%, stable %.1f%%, cool-down %.1f%%; time %.1f%% / %.1f%% / %.1f%%",
			p.Flows, p.DurationNs/1e6, p.Result.Interval, p.StableMean, 100*p.WarmUp, 100*p.Stable, 100*p.CoolDown, 100*p.WarmUpTime, 100*p.StableTime, 100*p.CoolDownTime)
		if s := p.WarmUp + p.Stable + p.CoolDown; math.Abs(s-1) > 1e-9 || p.TotalFlows != 25*p.Flows {
			t.Errorf("%d flows: shares sum to %v, total flows %d", p.Flows, s, p.TotalFlows)
		}
	}
	short, long := pts[0], pts[1]
	if !(short.WarmUp+short.CoolDown > long.WarmUp+long.CoolDown) || !(long.Stable > 0.8) || !(short.CoolDownTime > long.CoolDownTime) {
		t.Errorf("phase shares do not shrink with trial length: %+v vs %+v", short, long)
	}
	if _, err := DurationStudy(context.Background(), dumbbellSpec(1, 0.3), "packetsim", "", []int{10}, "fct_mean", Config{}); err == nil {
		t.Error("a non-percentile metric: no error")
	}
}
