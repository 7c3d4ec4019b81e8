package main

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// The size CDF forkcmp writes reads back as a distribution whose log is
// uniform: each decade of 100 B-1 MB holds a quarter of the draws.
func TestLogUniform(t *testing.T) {
	name := filepath.Join(t.TempDir(), "sizes.csv")
	if err := writeLogUniform(name, 100, 1_000_000); err != nil {
		t.Fatal(err)
	}
	d, err := workload.NewSizeDist(workload.SizeSpec{Dist: "empirical", File: name})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	const n = 200_000
	var decades [4]int
	for range n {
		s := d.Sample(r)
		if s < 100 || s > 1_000_000 {
			t.Fatalf("size %d outside 100 B-1 MB", s)
		}
		decades[min(int(math.Log10(float64(s)))-2, 3)]++
	}
	for i, c := range decades {
		if f := float64(c) / n; math.Abs(f-0.25) > 0.01 {
			t.Errorf("decade %d holds %.3f of the sizes, want 0.25", i, f)
		}
	}
}

// The fork's config carries packetsim's parameters in the fork's units:
// K in KB per link rate, rates in Mb/s, the window and VAR_WIN.
func TestForkConfig(t *testing.T) {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 2, HostBandwidth: 40 * topo.Gbps})
	if err != nil {
		t.Fatal(err)
	}
	for _, varWin := range []bool{false, true} {
		cfg := netcfg.Default()
		cfg.DCTCP.VarWin = varWin
		text := forkConfig(net, cfg, func(s string) string { return "/x/" + s }, 1.5)
		want := map[string]string{
			"CC_MODE": "8", "EWMA_GAIN": "0.0625", "DCTCP_RATE_AI": "615Mb/s", "MIN_RATE": "1000Mb/s",
			"FIXED_WIN": "18000", "HAS_WIN": "1", "ACK_HIGH_PRIO": "0", "PACKET_PAYLOAD_SIZE": "1000",
			"SIMULATOR_STOP_TIME": "1.500", "FCT_OUTPUT_FILE": "/x/fct.txt",
			"KMAX_MAP": "2 40000000000 120 10000000000 30", "KMIN_MAP": "2 40000000000 120 10000000000 30",
			"PMAX_MAP": "2 40000000000 1.0 10000000000 1.0",
		}
		want["VAR_WIN"] = "0"
		if varWin {
			want["VAR_WIN"] = "1"
		}
		got := map[string]string{}
		for _, line := range strings.Split(text, "\n") {
			if k, v, ok := strings.Cut(line, " "); ok {
				got[k] = v
			}
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("var_win %v: %s is %q, want %q", varWin, k, got[k], v)
			}
		}
	}
}

// readFCT takes the FCT column by flow ID and refuses malformed lines.
func TestReadFCT(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		text string
		want map[int]int64
		err  string
	}{
		{"3 0b000001 0b000101 10000 100 5000 2000 8123 7000\n0 0b000001 0b000201 10001 100 100 0 1650 1600\n",
			map[int]int64{3: 8123, 0: 1650}, ""},
		{"3 0b000001 0b000101 10000 100 5000 2000 8123\n", nil, "want 9 fields"},
		{"x 0b000001 0b000101 10000 100 5000 2000 8123 7000\n", nil, "bad id or FCT"},
	} {
		name := filepath.Join(dir, "fct.txt")
		if err := os.WriteFile(name, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := readFCT(name)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want one containing %q", c.text, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.text, err)
		case c.err == "" && len(got) != len(c.want):
			t.Errorf("%q: got %v, want %v", c.text, got, c.want)
		}
		for id, ns := range c.want {
			if got[id] != ns {
				t.Errorf("flow %d: FCT %d, want %d", id, got[id], ns)
			}
		}
	}
}
