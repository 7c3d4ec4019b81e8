package estimator

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
)

func TestParseOptions(t *testing.T) {
	for _, c := range []struct {
		name    string
		options string
		names   []string
		want    map[string]string
		err     string
	}{
		{"empty", "", []string{"m3", "packetsim"}, map[string]string{"m3": "", "packetsim": ""}, ""},
		{"empty object", "{}", []string{"m3"}, map[string]string{"m3": ""}, ""},
		{"keyed", `{"m3": {"model":"table4-pfc"}, "parsimon":{"bucket_size":50}}`, []string{"m3", "parsimon", "packetsim"},
			map[string]string{"m3": `{"model":"table4-pfc"}`, "parsimon": `{"bucket_size":50}`, "packetsim": ""}, ""},
		{"flat, one estimator", `{"model":"table4-pfc"}`, []string{"m3"}, map[string]string{"m3": `{"model":"table4-pfc"}`}, ""},
		{"keyed, one estimator", `{"m3":{"model":"none"}}`, []string{"m3"}, map[string]string{"m3": `{"model":"none"}`}, ""},
		{"flat, two estimators", `{"window_cap":true}`, []string{"flowsim", "packetsim"}, nil, `accepted: --options {"flowsim":{"window_cap":true}}`},
		{"estimator not run", `{"m3":{}}`, []string{"packetsim"}, nil, "options for m3, which is not run"},
		{"not an object", `[1]`, []string{"packetsim"}, nil, "want a JSON object keyed by estimator name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseOptions(c.options, c.names)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one saying %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

// KeyedOptions round-trips through ParseOptions.
func TestKeyedOptionsRoundTrip(t *testing.T) {
	in := map[string]string{"m3": `{"model": "none"}`, "packetsim": "", "flowsim": `{"window_cap":true}`}
	text := KeyedOptions(in)
	if want := `{"flowsim":{"window_cap":true},"m3":{"model":"none"}}`; text != want {
		t.Fatalf("KeyedOptions = %s, want %s", text, want)
	}
	got, err := ParseOptions(text, []string{"m3", "packetsim", "flowsim"})
	if err != nil {
		t.Fatal(err)
	}
	if got["m3"] != `{"model":"none"}` || got["flowsim"] != `{"window_cap":true}` || got["packetsim"] != "" {
		t.Errorf("round trip: %v", got)
	}
}

// m3's refusal of a network its model was not trained on names the
// embedded models that were, as keyed options.
func TestM3RefusalNamesOptions(t *testing.T) {
	var r *OptionsRefusal
	err := Models("m3", "", hpccNetwork(t))
	if !errors.As(err, &r) || r.Estimator != "m3" || len(r.Alternatives) == 0 {
		t.Fatalf("Models(m3, hpcc) = %v, want an OptionsRefusal with alternatives", err)
	}
	for _, alt := range r.Alternatives {
		o, err := ParseOptions(alt, []string{"m3"})
		if err != nil {
			t.Fatal(err)
		}
		if err := Models("m3", o["m3"], hpccNetwork(t)); err != nil {
			t.Errorf("alternative %s refused: %v", alt, err)
		}
	}
}

// hpccNetwork is the hpcc preset as estimators get it.
func hpccNetwork(t *testing.T) netcfg.Config {
	t.Helper()
	c, err := netcfg.Preset("hpcc")
	if err != nil {
		t.Fatal(err)
	}
	return smallIn(t, c).Spec.Network
}
