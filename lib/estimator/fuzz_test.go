package estimator

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/tailscope/tailscope/lib/dscale"
	"github.com/tailscope/tailscope/lib/flowsim"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/ns3"
	"github.com/tailscope/tailscope/lib/packetsim"
	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/pfs"
)

// optionTypes returns a fresh value of every estimator's options type.
func optionTypes() []any {
	return []any{&flowsim.Options{}, &m3.Options{}, &ns3.Options{}, &packetsim.Options{}, &parsimon.Options{},
		&parsimonCOptions{}, &dscale.EstimateOptions{}, &pfs.Options{}, &pfs.ChunkOptions{}}
}

// Options decode strictly into every estimator's options or fail; what
// decodes encodes and decodes again to the same value.
func FuzzOptions(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"stop_at_ns":1000000}`, `{"clusters":true,"bucket":10}`, `{"samples":-1}`,
		`{"workers":1e99}`, `{"unknown":1}`, `[1]`, `{"chunks":4,"workers":2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range optionTypes() {
			if err := decode([]byte(s), v); err != nil {
				continue
			}
			again := reflect.New(reflect.TypeOf(v).Elem()).Interface()
			if err := json.Unmarshal([]byte(encode(v)), again); err != nil {
				t.Fatalf("%T: %s decodes but its encoding %s does not: %v", v, s, encode(v), err)
			}
			if encode(again) != encode(v) {
				t.Fatalf("%T: %s round trips to %s", v, encode(v), encode(again))
			}
		}
	})
}
