package topo

import (
	"bytes"
	"strings"
	"testing"
)

// A topology read from any text writes back and reads again to the same
// nodes and links.
func FuzzReadNS3(f *testing.F) {
	f.Add("3 1 2\n2\n0 2 10Gbps 1000ns 0\n1 2 10Gbps 1us 0\n")
	f.Add("999999999999 0 0\n")
	f.Add("2 0 1\n\n0 1 1e10bps 0.001ms\n")
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ReadNS3("fuzz", strings.NewReader(s))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := n.WriteNS3(&b); err != nil {
			t.Fatal(err)
		}
		m, err := ReadNS3("again", &b)
		if err != nil {
			t.Fatalf("written topology does not read back: %v\n%s", err, b.String())
		}
		if len(m.Nodes) != len(n.Nodes) || len(m.Links) != len(n.Links) {
			t.Fatalf("read back %d nodes %d links, wrote %d and %d", len(m.Nodes), len(m.Links), len(n.Nodes), len(n.Links))
		}
	})
}

func FuzzReadParsimonJSON(f *testing.F) {
	f.Add(`{"nodes":[{"id":0,"kind":"Host"},{"id":1,"kind":"Host"},{"id":2,"kind":"Switch"}],"links":[{"a":0,"b":2,"bandwidth":10000000000,"delay":1000},{"a":1,"b":2,"bandwidth":10000000000,"delay":1000}]}`)
	f.Add(`{"nodes":[],"links":[]}`)
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ReadParsimonJSON("fuzz", strings.NewReader(s))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := n.WriteParsimonJSON(&b); err != nil {
			t.Fatal(err)
		}
		if m, err := ReadParsimonJSON("again", &b); err != nil || len(m.Links) != len(n.Links) {
			t.Fatalf("written topology does not read back the same: %v", err)
		}
	})
}

// Rates and delays parse to positive (rates) or non-negative (delays)
// values, or an error.
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"10Gbps", "40000Mbps", "1e10bps", "0.5Tbps", "-1Gbps", "NaNbps", "1e400bps", "Gbps"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseRate(s); err == nil && v <= 0 {
			t.Fatalf("ParseRate(%q) = %d", s, v)
		}
	})
}

func FuzzParseDelay(f *testing.F) {
	for _, s := range []string{"1000ns", "1us", "0.001ms", "0ns", "-1ns", "1e30s", "NaNns"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseDelay(s); err == nil && v < 0 {
			t.Fatalf("ParseDelay(%q) = %d", s, v)
		}
	})
}
