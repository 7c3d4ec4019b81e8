package scenario

import (
	"reflect"
	"strings"
	"testing"
)

// A spec parsed from any JSON encodes to JSON that parses to the same spec.
func FuzzParse(f *testing.F) {
	f.Add(Default().JSON())
	f.Add(`{"name":"x","topology":{"preset":"meta32-1:1"},"workload":{"flows":-5},"seed":1}`)
	f.Add(`{"seed":18446744073709551615,"network":{"mtu":0}}`)
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		back, err := Parse(strings.NewReader(spec.JSON()))
		if err != nil {
			t.Fatalf("canonical JSON does not parse: %v\n%s", err, spec.JSON())
		}
		if !reflect.DeepEqual(back, spec) && back.JSON() != spec.JSON() {
			t.Fatalf("round trip changed the spec:\n%s\n%s", spec.JSON(), back.JSON())
		}
	})
}
