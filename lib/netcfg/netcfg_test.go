package netcfg

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Packet counts and wire bytes follow from the payload and header sizes:
// ceil(size/1000) packets of 48 B headers with the default model.
func TestPacketsAndWireBytes(t *testing.T) {
	c := Default()
	for _, tc := range []struct {
		size, packets, wire int64
	}{
		{0, 0, 0},
		{1, 1, 1 + 48},
		{999, 1, 999 + 48},
		{1000, 1, 1000 + 48},
		{1001, 2, 1001 + 2*48},
		{1_000_000, 1000, 1_000_000 + 1000*48},
	} {
		if p, w := c.Packets(tc.size), c.WireBytes(tc.size); p != tc.packets || w != tc.wire {
			t.Errorf("size %d: %d packets, %d wire bytes; want %d and %d", tc.size, p, w, tc.packets, tc.wire)
		}
	}
}

// The marking threshold scales with the port rate (3 KB per Gbps, the
// papers' 30 KB at 10G and 120 KB at 40G) unless one is set for all.
func TestKBytesFor(t *testing.T) {
	fixed := Default()
	fixed.KBytes = 65_000
	for _, tc := range []struct {
		cfg  Config
		bps  int64
		want int64
	}{
		{Default(), 10e9, 30_000},
		{Default(), 40e9, 120_000},
		{Default(), 100e9, 300_000},
		{fixed, 10e9, 65_000},
		{fixed, 100e9, 65_000},
	} {
		if got := tc.cfg.KBytesFor(tc.bps); got != tc.want {
			t.Errorf("K at %d bps (k_bytes %d): %d, want %d", tc.bps, tc.cfg.KBytes, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(c *Config)
		want   string // error substring, "" for valid
	}{
		{"default", func(c *Config) {}, ""},
		{"window-based", func(c *Config) { c.CC = "dctcp-window" }, ""},
		{"one K", func(c *Config) { c.KBytesPerGbps, c.KBytes = 0, 30_000 }, ""},
		{"no payload", func(c *Config) { c.PayloadBytes = 0 }, "payload_bytes must be positive, got 0"},
		{"negative header", func(c *Config) { c.HeaderBytes = -1 }, "header_bytes must be >= 0"},
		{"no ack", func(c *Config) { c.AckBytes = 0 }, "ack_bytes > 0"},
		{"no K", func(c *Config) { c.KBytesPerGbps = 0 }, "set k_bytes or k_bytes_per_gbps"},
		{"negative buffer", func(c *Config) { c.BufferBytes = -5 }, "buffer_bytes must be >= 0"},
		{"g zero", func(c *Config) { c.DCTCP.G = 0 }, "dctcp g must be in (0,1]"},
		{"g above 1", func(c *Config) { c.DCTCP.G = 1.5 }, "dctcp g must be in (0,1]"},
		{"unknown CC", func(c *Config) { c.CC = "cubic" }, `unknown congestion control "cubic" (known: dctcp, dctcp-window)`},
	} {
		c := Default()
		tc.change(&c)
		err := c.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// NS3 is Default with ns-3's wire sizes and window-based DCTCP, nothing
// else, and is valid.
func TestNS3(t *testing.T) {
	n := NS3()
	if err := n.Validate(); err != nil {
		t.Fatal(err)
	}
	if n.HeaderBytes != 20+32+2 || n.AckBytes != 20+32+2 || n.CC != "dctcp-window" {
		t.Errorf("NS3 header %d, ack %d, cc %s; want 54, 54, dctcp-window", n.HeaderBytes, n.AckBytes, n.CC)
	}
	d := Default()
	n.HeaderBytes, n.AckBytes, n.CC = d.HeaderBytes, d.AckBytes, d.CC
	if !reflect.DeepEqual(n, d) {
		t.Errorf("NS3 differs from Default in more than wire sizes and CC:\n%+v\n%+v", n, d)
	}
}

// A config survives JSON (scenario specs carry it), and a partial object
// changes only what it names.
func TestJSON(t *testing.T) {
	for _, c := range []Config{Default(), NS3()} {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back Config
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back, c) {
			t.Errorf("round trip of %s:\n%+v\nwant\n%+v", b, back, c)
		}
	}
	c := Default()
	if err := json.Unmarshal([]byte(`{"k_bytes":65000,"dctcp":{"g":0.5}}`), &c); err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.KBytes, want.DCTCP.G = 65000, 0.5
	if !reflect.DeepEqual(c, want) {
		t.Errorf("partial object:\n%+v\nwant\n%+v", c, want)
	}
}
