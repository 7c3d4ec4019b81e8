package atlas

import (
	"strings"
	"testing"
)

func TestDirectionLine(t *testing.T) {
	s := &Summary{Bins: []string{"<=1KB", ">1KB", AllBin}, Directions: []Direction{
		{Estimator: "m3", Field: "timely.tlow_nanos", Changes: []string{"timely.tlow_nanos=25000"}, Bin: "<=1KB", Clear: 5, Right: 5},
		{Estimator: "m3", Field: "timely.tlow_nanos", Changes: []string{"timely.tlow_nanos=25000"}, Bin: ">1KB", Clear: 13, Right: 1},
		{Estimator: "m3", Field: "timely.tlow_nanos", Changes: []string{"timely.tlow_nanos=25000"}, Bin: AllBin, Clear: 12, Right: 5},
		{Estimator: "m3", Field: "cc", Changes: []string{"cc=hpcc"}, Bin: AllBin, Clear: 30, Right: 27},
		{Estimator: "m3", Field: "k_bytes", Changes: []string{"k_bytes=60000"}, Bin: AllBin, Clear: 4, Right: 4},
	}}
	for _, c := range []struct {
		field string
		want  []string
		not   string
	}{
		{"timely.tlow_nanos", []string{"5 of the 12", "not trustworthy", ">1KB (1 of 13)"}, "<=1KB"},
		// 27 of 30 is exactly the goal.
		{"cc", []string{"27 of the 30", "is trustworthy"}, "not"},
		{"k_bytes", []string{"4 of the 4", "too few"}, "trustworthy"},
		{"hpcc.eta", []string{"in none of its counterfactual pairs", "unknown"}, "of the"},
	} {
		got := DirectionLine("m3", c.field, s.DirectionsOf("m3", c.field))
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", c.field, got, w)
			}
		}
		if strings.Contains(got, c.not) {
			t.Errorf("%s: %q says %q", c.field, got, c.not)
		}
	}
	if ds := s.DirectionsOf("m3", "timely.tlow_nanos"); len(ds) != 3 || ds[0].Bin != "<=1KB" || ds[2].Bin != AllBin {
		t.Errorf("DirectionsOf: %+v, want the three bins in order", ds)
	}
}
