package main

import (
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/scenario"
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
// K in KB per link rate, rates in Mb/s, timers in us, RTT thresholds in
// ns, and the chosen algorithm's values in the keys the fork's
// algorithms share.
func TestForkConfig(t *testing.T) {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 2, HostBandwidth: 40 * topo.Gbps})
	if err != nil {
		t.Fatal(err)
	}
	rates := func(v40, v10 string) string { return "2 40000000000 " + v40 + " 10000000000 " + v10 }
	common := map[string]string{
		"ACK_HIGH_PRIO": "0", "PACKET_PAYLOAD_SIZE": "1000", "SIMULATOR_STOP_TIME": "1.500",
		"FCT_OUTPUT_FILE": "/x/fct.txt", "BUFFER_SIZE": "32768", "ENABLE_PFC": "1",
	}
	for _, c := range []struct {
		cc     string
		varWin bool
		want   map[string]string
	}{
		{"dctcp", false, map[string]string{
			"CC_MODE": "8", "EWMA_GAIN": "0.0625", "DCTCP_RATE_AI": "615Mb/s", "MIN_RATE": "1000Mb/s",
			"FIXED_WIN": "18000", "HAS_WIN": "1", "VAR_WIN": "0",
			"KMAX_MAP": rates("120", "30"), "KMIN_MAP": rates("120", "30"), "PMAX_MAP": rates("1.0", "1.0"),
		}},
		{"dctcp", true, map[string]string{"CC_MODE": "8", "FIXED_WIN": "18000", "HAS_WIN": "1", "VAR_WIN": "1"}},
		{"dcqcn", true, map[string]string{
			"CC_MODE": "1", "EWMA_GAIN": "0.00390625", "RATE_AI": "40Mb/s", "RATE_HAI": "100Mb/s", "MIN_RATE": "100Mb/s",
			"ALPHA_RESUME_INTERVAL": "55", "RP_TIMER": "55", "RATE_DECREASE_INTERVAL": "50", "FAST_RECOVERY_TIMES": "5",
			"CLAMP_TARGET_RATE": "1", "HAS_WIN": "0", "VAR_WIN": "0", "FIXED_WIN": "0",
			"KMIN_MAP": rates("5", "5"), "KMAX_MAP": rates("200", "200"), "PMAX_MAP": rates("0.01", "0.01"),
		}},
		{"timely", true, map[string]string{
			"CC_MODE": "7", "RATE_AI": "10Mb/s", "RATE_HAI": "50Mb/s", "MIN_RATE": "100Mb/s",
			"TIMELY_T_LOW": "50000", "TIMELY_T_HIGH": "500000", "TIMELY_BETA": "0.8", "HAS_WIN": "0",
		}},
		{"hpcc", false, map[string]string{
			"CC_MODE": "3", "RATE_AI": "50Mb/s", "MIN_RATE": "100Mb/s", "U_TARGET": "0.95", "MI_THRESH": "5",
			"HAS_WIN": "1", "VAR_WIN": "1", "FIXED_WIN": "18000", "FAST_REACT": "1",
		}},
	} {
		cfg := netcfg.Default()
		cfg.CC, cfg.DCTCP.VarWin, cfg.HPCC.WindowBytes = c.cc, c.varWin, 18000
		if err := forkCanRun(cfg); err != nil {
			t.Fatal(err)
		}
		text := forkConfig(net, cfg, func(s string) string { return "/x/" + s }, 1.5)
		got := map[string]string{}
		for _, line := range strings.Split(text, "\n") {
			if k, v, ok := strings.Cut(line, " "); ok {
				if _, dup := got[k]; dup {
					t.Errorf("%s: key %s twice", c.cc, k)
				}
				got[k] = v
			}
		}
		for _, want := range []map[string]string{common, c.want} {
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s var_win %v: %s is %q, want %q", c.cc, c.varWin, k, got[k], v)
				}
			}
		}
	}
}

// Parameters the fork hard-codes or cannot express are refused.
func TestForkCanRun(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*netcfg.Config)
		err  string
	}{
		{"timely N", func(c *netcfg.Config) { c.CC, c.TIMELY.HAISteps = "timely", 3 }, "5 steps"},
		{"timely min RTT", func(c *netcfg.Config) { c.CC, c.TIMELY.MinRTTNanos = "timely", 10_000 }, "min RTT"},
		{"dcqcn Kmin", func(c *netcfg.Config) { c.CC, c.DCQCN.KminBytes = "dcqcn", 5500 }, "whole KB"},
		{"dcqcn ok", func(c *netcfg.Config) { c.CC, c.DCQCN.KminBytes = "dcqcn", 20_000 }, ""},
		{"dctcp ignores timely", func(c *netcfg.Config) { c.TIMELY.HAISteps = 3 }, ""},
		{"pfc", func(c *netcfg.Config) { c.Buffer.SharedBytes, c.PFC.Enabled = 204800, true }, ""},
		{"shared buffer without pfc", func(c *netcfg.Config) { c.Buffer.SharedBytes = 204800 }, "PFC on"},
		{"buffer not in KiB", func(c *netcfg.Config) { c.Buffer.SharedBytes, c.PFC.Enabled = 200_000, true }, "whole KiB"},
		{"pfc headroom", func(c *netcfg.Config) { c.Buffer.SharedBytes, c.PFC.Enabled, c.PFC.HeadroomBytes = 204800, true, 9000 }, "computes its headroom"},
		{"per-port buffer", func(c *netcfg.Config) { c.BufferBytes = 20_000 }, "no per-port buffer"},
	} {
		cfg := netcfg.Default()
		c.edit(&cfg)
		err := forkCanRun(cfg)
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
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

// A bad -network block is refused by name before anything runs.
func TestRunNetworkErrors(t *testing.T) {
	fork := t.TempDir()
	bin := filepath.Join(fork, "build", "scratch")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "ns3.39-third-optimized"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args, err string }{
		{`-network {"dcqcn":{"bogus":1}}`, `unknown field "bogus"`},
		{`-cc dcqcn -network {"dcqcn":{"kmin_bytes":300000}}`, "kmin_bytes"},
		{`-cc reno`, `unknown congestion control "reno"`},
		{`-cc dctcp-window`, `-cc "dctcp-window"`},
		{`-cc timely -network {"timely":{"hai_steps":3}}`, "5 steps"},
		{`-sizes nosuch`, "-sizes"},
		{`-sigma -1`, "-sigma -1"},
		{`-program ../third`, `-program "../third"`},
		{`-program third-lean`, "ns3.39-third-lean-optimized"},
	} {
		args := append([]string{"-fork", fork, "-out", t.TempDir()}, strings.Fields(c.args)...)
		err := run(args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want one containing %q", c.args, err, c.err)
		}
	}
}

// With PFC the fork's BUFFER_SIZE is the shared buffer in KiB, and
// packetsim's headroom per port is the fork's per queue times its two
// lossless queues: 2 x (2 x 1048 + 3860 + 2500) B.
func TestForkPFC(t *testing.T) {
	net, err := topo.Dumbbell(topo.DumbbellSpec{Senders: 2, Receivers: 2})
	if err != nil {
		t.Fatal(err)
	}
	cfg := netcfg.Default()
	cfg.Buffer.SharedBytes, cfg.PFC.Enabled = 204800, true
	text := forkConfig(net, cfg, func(s string) string { return "/x/" + s }, 1.5)
	if !strings.Contains(text, "\nBUFFER_SIZE 200\n") || !strings.Contains(text, "\nENABLE_PFC 1\n") {
		t.Errorf("fork config lacks BUFFER_SIZE 200 or ENABLE_PFC 1:\n%s", text)
	}
	if got, want := forkHeadroom(cfg.ForkWire()).PFC.HeadroomBytes, int64(2*(2*1048+3860+2500)); got != want {
		t.Errorf("packetsim's headroom %d, want %d", got, want)
	}
	if got := forkHeadroom(netcfg.Default()).PFC.HeadroomBytes; got != 0 {
		t.Errorf("headroom %d without PFC, want 0 (unset)", got)
	}
}

// A run's directory is reused only when every input is the same byte for
// byte and the fork's run finished there.
func TestSameInputs(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	files := map[string]string{"config.txt": "CC_MODE 3\n", "flow.txt": "1\n0 0 1 3 100 1000 0.000000000\n"}
	for name, text := range files {
		if err := os.WriteFile(path(name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if sameInputs(files, path) {
		t.Error("reused a run that never finished (no complete.txt)")
	}
	if err := os.WriteFile(path("complete.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if !sameInputs(files, path) {
		t.Error("did not reuse a finished run with the same inputs")
	}
	other := map[string]string{"config.txt": "CC_MODE 7\n", "flow.txt": files["flow.txt"]}
	if sameInputs(other, path) {
		t.Error("reused a run with another config")
	}
	other = map[string]string{"config.txt": files["config.txt"], "flow.txt": files["flow.txt"], "topology.txt": "x"}
	if sameInputs(other, path) {
		t.Error("reused a run missing an input")
	}
}

// The fork-* presets are the model forkcmp -fork-rules compares with the
// fork: for each congestion control, the same configuration once
// resolved on the run's network.
func TestForkPresets(t *testing.T) {
	net, err := topo.ParkingLot(topo.ParkingLotSpec{Hops: 4, BackgroundHosts: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range []string{"dctcp", "dcqcn", "hpcc", "timely"} {
		cfg, err := config(cc, true, "")
		if err != nil {
			t.Fatal(err)
		}
		preset, err := netcfg.Preset("fork-" + cc)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := withForkRules(cfg, net), preset.Resolve(net.MaxHostDelay); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: forkcmp runs\n%+v\nthe preset is\n%+v", cc, got, want)
		}
	}
}

// The validation workload (WebServer sizes, log-normal arrivals of shape
// 2) builds the same flows as scenario.Validation's on the same fabric,
// and its runs get their own directory name.
func TestValidationWorkload(t *testing.T) {
	wl := workloadSpec{sizes: workload.SizeSpec{Dist: "webserver"}, sigma: 2}
	if got, want := wl.name(), "-webserver-sigma2"; got != want {
		t.Errorf("name %q, want %q", got, want)
	}
	if got, want := wl.String(), "webserver sizes, log-normal arrivals (sigma 2)"; got != want {
		t.Errorf("String %q, want %q", got, want)
	}
	def := workloadSpec{sizes: workload.SizeSpec{Dist: "empirical", File: "x.csv"}}
	if got := def.name(); got != "" {
		t.Errorf("the default workload's name is %q, want empty", got)
	}
	if got, want := def.String(), "log-uniform sizes, Poisson arrivals"; got != want {
		t.Errorf("the default workload is %q, want %q", got, want)
	}
	cfg, err := config("dctcp", true, "")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := build("meta32-2:1", 0.5, 300, 7, wl, cfg)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := scenario.Validation(scenario.ValidationFabric, 300, 0.5, 7)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := scenario.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Flows) != len(ref.Flows) {
		t.Fatalf("%d flows, validation has %d", len(sc.Flows), len(ref.Flows))
	}
	for i := range sc.Flows {
		a, b := sc.Flows[i], ref.Flows[i]
		if a.Src != b.Src || a.Dst != b.Dst || a.Size != b.Size || a.Start != b.Start {
			t.Fatalf("flow %d: %+v, validation has %+v", i, a, b)
		}
	}
}
