package netcfg

import (
	"encoding/json"
	"strings"
	"testing"
)

// Every congestion control validates with its defaults, and a bad
// parameter of the chosen one is refused with an error naming it; the
// parameters of the others are not looked at.
func TestValidateCC(t *testing.T) {
	for _, cc := range CCs {
		c := Default()
		c.CC = cc
		if err := c.Validate(); err != nil {
			t.Errorf("%s with defaults: %v", cc, err)
		}
	}
	cases := []struct {
		cc   string
		set  func(*Config)
		want string
	}{
		{"dcqcn", func(c *Config) { c.DCQCN.KminBytes = 300_000 }, "dcqcn kmin_bytes must be in [0, kmax_bytes = 200000]"},
		{"dcqcn", func(c *Config) { c.DCQCN.KmaxBytes = 0 }, "dcqcn kmax_bytes must be positive"},
		{"dcqcn", func(c *Config) { c.DCQCN.Pmax = 1.5 }, "dcqcn pmax must be in (0,1]"},
		{"dcqcn", func(c *Config) { c.DCQCN.G = 0 }, "dcqcn g must be positive"},
		{"dcqcn", func(c *Config) { c.DCQCN.CNPIntervalNanos = -1 }, "dcqcn cnp_interval_nanos must be positive"},
		{"dcqcn", func(c *Config) { c.DCQCN.RateTimerNanos = 0 }, "dcqcn rate_timer_nanos must be positive"},
		{"dcqcn", func(c *Config) { c.DCQCN.FastRecoverySteps = -1 }, "dcqcn fast_recovery_steps must be >= 0"},
		{"dcqcn", func(c *Config) { c.DCQCN.WindowBytes = -1 }, "dcqcn window_bytes must be >= 0"},
		{"timely", func(c *Config) { c.TIMELY.THighNanos = 40_000 }, "timely thigh_nanos must exceed tlow_nanos = 50000"},
		{"timely", func(c *Config) { c.TIMELY.Beta = 2 }, "timely beta must be in (0,1]"},
		{"timely", func(c *Config) { c.TIMELY.SegmentBytes = 0 }, "timely segment_bytes must be positive"},
		{"timely", func(c *Config) { c.TIMELY.MinRTTNanos = 0 }, "timely min_rtt_nanos must be positive"},
		{"hpcc", func(c *Config) { c.HPCC.Eta = 0 }, "hpcc eta must be in (0,1]"},
		{"hpcc", func(c *Config) { c.HPCC.MaxStage = -2 }, "hpcc max_stage must be >= 0"},
		{"hpcc", func(c *Config) { c.HPCC.AIRateBps = 0 }, "hpcc ai_rate_bps must be positive"},
		{"hpcc", func(c *Config) { c.HPCC.WindowBytes = -5 }, "hpcc window_bytes must be >= 0"},
	}
	for _, tc := range cases {
		c := Default()
		c.CC = tc.cc
		tc.set(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.cc, err, tc.want)
		}
		c.CC = "dctcp"
		if err := c.Validate(); err != nil {
			t.Errorf("dctcp with a bad %s parameter: %v", tc.cc, err)
		}
	}
}

// The whole configuration survives JSON, which carries it in scenarios,
// frame provenance and `tailscope gen --print-spec`.
func TestJSONRoundTrip(t *testing.T) {
	c := Default()
	c.CC = "hpcc"
	c.DCQCN.KminBytes, c.TIMELY.TLowNanos, c.HPCC.Eta, c.HPCC.WindowBytes = 20_000, 40_000, 0.8, 15_000
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back != c {
		t.Errorf("round trip changed the config:\n%+v\n%+v", c, back)
	}
	for _, key := range []string{`"dcqcn":{"kmin_bytes":20000`, `"timely":{"tlow_nanos":40000`, `"hpcc":{"eta":0.8`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON %s lacks %s", b, key)
		}
	}
}
