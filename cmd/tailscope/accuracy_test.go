package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/accuracy"
)

func TestNarrowParts(t *testing.T) {
	small, wide := accuracy.Sizes["small"], accuracy.Sizes["wide"]
	labels := func(ds []accuracy.Options) [][]string {
		var ls [][]string
		for _, d := range ds {
			ls = append(ls, accuracy.PartLabels(d))
		}
		return ls
	}
	for _, c := range []struct {
		name    string
		designs []accuracy.Options
		parts   []string
		want    [][]string
		err     string
	}{
		{"none named keeps all", []accuracy.Options{small, wide}, nil, [][]string{nil, accuracy.PartLabels(wide)}, ""},
		{"a design without parts stays whole", []accuracy.Options{small, wide}, []string{"pairs"}, [][]string{nil, {"pairs"}}, ""},
		{"design order kept", []accuracy.Options{wide}, []string{"pairs", "384"}, [][]string{{"384", "pairs"}}, ""},
		{"unknown part", []accuracy.Options{wide}, []string{"pair"}, nil, `no part "pair"`},
		{"no parts at all", []accuracy.Options{small}, []string{"pairs"}, nil, `no part "pairs"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := narrowParts(c.designs, c.parts)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ls := labels(got); !reflect.DeepEqual(ls, c.want) {
				t.Errorf("parts %v, want %v", ls, c.want)
			}
			if len(wide.Parts) != 5 {
				t.Errorf("narrowing changed the design it was given: %d parts", len(wide.Parts))
			}
		})
	}
}
