package ns3

import (
	"testing"

	"github.com/tailscope/tailscope/lib/progress"
)

// The scenario program's progress lines become reports of flows done of
// all, with the rest of the line as what.
func TestReportLine(t *testing.T) {
	for _, tc := range []struct {
		line        string
		done, total int
		what        string
	}{
		{"progress sim_ns=1500000 done=120/2000 events=88123 wall_s=3.5", 120, 2000, "sim_ns=1500000 events=88123 wall_s=3.5"},
		{"progress done=0/7", 0, 7, ""},
		{"progress sim_ns=9", 0, 0, "sim_ns=9"},
	} {
		var got [3]any
		reportLine(progress.Func(func(done, total int, what string) { got = [3]any{done, total, what} }), tc.line)
		if want := [3]any{tc.done, tc.total, tc.what}; got != want {
			t.Errorf("%q: reported %v, want %v", tc.line, got, want)
		}
	}
	reportLine(nil, "progress done=1/2") // no reporter: nothing happens
}
