package workload_test

import (
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

func TestCheck(t *testing.T) {
	n, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 2})
	if err != nil {
		t.Fatal(err)
	}
	f := func(id, src, dst int, size, start int64) workload.Flow {
		return workload.Flow{ID: id, Src: src, Dst: dst, Size: size, Start: start}
	}
	tests := []struct {
		name  string
		flows []workload.Flow
		want  string // "" = valid
	}{
		{"ok", []workload.Flow{f(0, 0, 2, 10, 0), f(1, 1, 3, 10, 5)}, ""},
		{"ok unordered ids", []workload.Flow{f(5, 0, 2, 10, 0), f(1, 1, 3, 10, 5), f(3, 1, 2, 1, 5)}, ""},
		{"zero size", []workload.Flow{f(0, 0, 2, 0, 0)}, "size 0"},
		{"negative start", []workload.Flow{f(0, 0, 2, 1, -1)}, "negative time"},
		{"unknown host", []workload.Flow{f(0, 0, 9, 1, 0)}, "destination 9 is not a host"},
		{"switch source", []workload.Flow{f(0, 4, 2, 1, 0)}, "source 4 is not a host"},
		{"self", []workload.Flow{f(0, 2, 2, 1, 0)}, "both host 2"},
		{"unsorted", []workload.Flow{f(0, 0, 2, 1, 9), f(1, 0, 2, 1, 3)}, "sorted by start"},
		{"duplicate ascending then back", []workload.Flow{f(1, 0, 2, 1, 0), f(2, 0, 2, 1, 0), f(1, 0, 3, 1, 0)}, "duplicate flow id 1"},
		{"duplicate equal", []workload.Flow{f(7, 0, 2, 1, 0), f(7, 0, 2, 1, 0)}, "duplicate flow id 7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := workload.Check(n, tc.flows)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Check = %v, want %q", err, tc.want)
			}
		})
	}
}
