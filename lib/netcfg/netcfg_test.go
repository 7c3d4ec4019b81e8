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
func TestWindowCapBytes(t *testing.T) {
	for _, tc := range []struct {
		cc     string
		set    func(*Config)
		window int64
	}{
		{"dctcp", func(c *Config) { c.DCTCP.WindowBytes = 12_000 }, 12_000},
		{"dctcp-window", func(c *Config) { c.DCTCP.WindowBytes = 12_000 }, 0}, // cwnd is unbounded
		{"dcqcn", func(c *Config) {}, 0},                                      // the paper's: rate only
		{"dcqcn", func(c *Config) { c.DCQCN.WindowBytes = 7_000 }, 7_000},
		{"timely", func(c *Config) { c.TIMELY.WindowBytes = 9_000 }, 9_000},
		{"hpcc", func(c *Config) {}, 0}, // one BDP: never below line rate
		{"hpcc", func(c *Config) { c.HPCC.WindowBytes = 5_000 }, 5_000},
	} {
		c := Default()
		c.CC = tc.cc
		c.DCQCN.WindowBytes, c.TIMELY.WindowBytes, c.HPCC.WindowBytes = 0, 0, 0
		tc.set(&c)
		if got := c.WindowCapBytes(); got != tc.window {
			t.Errorf("%s: WindowCapBytes = %d, want %d", tc.cc, got, tc.window)
		}
	}
}

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
		{"shared buffer", func(c *Config) { c.Buffer.SharedBytes = 200_000 }, ""},
		{"pfc", func(c *Config) { c.Buffer.SharedBytes, c.PFC.Enabled = 200_000, true }, ""},
		{"negative shared buffer", func(c *Config) { c.Buffer.SharedBytes = -1 }, "shared_bytes must be >= 0"},
		{"both buffers", func(c *Config) { c.Buffer.SharedBytes, c.BufferBytes = 200_000, 20_000 }, "are exclusive"},
		{"zero alpha", func(c *Config) { c.Buffer.SharedBytes, c.Buffer.Alpha = 200_000, 0 }, "buffer alpha must be positive"},
		{"pfc without buffer", func(c *Config) { c.PFC.Enabled = true }, "pfc needs a finite switch buffer"},
		{"negative headroom", func(c *Config) { c.Buffer.SharedBytes, c.PFC.Enabled, c.PFC.HeadroomBytes = 200_000, true, -1 }, "headroom_bytes"},
		{"g zero", func(c *Config) { c.DCTCP.G = 0 }, "dctcp g must be in (0,1]"},
		{"g above 1", func(c *Config) { c.DCTCP.G = 1.5 }, "dctcp g must be in (0,1]"},
		{"unknown CC", func(c *Config) { c.CC = "cubic" }, `unknown congestion control "cubic" (known: dctcp, dctcp-window, dcqcn, timely, hpcc)`},
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

// NS3 is Default with ns-3's wire sizes, window-based DCTCP, marking
// at enqueue (stock ns-3's RED) and FIFO host NICs, nothing else, and is
// valid.
func TestNS3(t *testing.T) {
	n := NS3()
	if err := n.Validate(); err != nil {
		t.Fatal(err)
	}
	if n.HeaderBytes != 20+32+2 || n.AckBytes != 20+32+2 || n.CC != "dctcp-window" || n.ECNMark != "enqueue" || !n.HostFIFO() {
		t.Errorf("NS3 header %d, ack %d, cc %s, marking at %s, host NIC %q; want 54, 54, dctcp-window, enqueue, fifo", n.HeaderBytes, n.AckBytes, n.CC, n.ECNMark, n.HostNIC)
	}
	d := Default()
	n.HeaderBytes, n.AckBytes, n.CC, n.ECNMark, n.HostNIC = d.HeaderBytes, d.AckBytes, d.CC, d.ECNMark, d.HostNIC
	if !reflect.DeepEqual(n, d) {
		t.Errorf("NS3 differs from Default in more than wire sizes, CC, marking point and host NIC:\n%+v\n%+v", n, d)
	}
}

// The host NIC's discipline: the default (round-robin) is left out of
// the JSON, so spelling it out names the same network; "fifo" is kept;
// anything else is refused by name; only FIFO NICs fail RoundRobinNICs.
func TestHostNIC(t *testing.T) {
	def, err := json.Marshal(Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		block    string
		fifo     bool
		sameJSON bool // as Default's
		err      string
	}{
		{`{}`, false, true, ""},
		{`{"host_nic":"round-robin"}`, false, true, ""},
		{`{"host_nic":"fifo"}`, true, false, ""},
		{`{"preset":"ns3"}`, true, false, ""},
		{`{"preset":"ns3","host_nic":"round-robin"}`, false, false, ""},
		{`{"host_nic":"FIFO"}`, false, false, `unknown host_nic "FIFO"`},
	} {
		t.Run(c.block, func(t *testing.T) {
			cfg := Default()
			if err := json.Unmarshal([]byte(c.block), &cfg); err != nil {
				t.Fatal(err)
			}
			err := cfg.Validate()
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Validate: %v, want an error containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.HostFIFO() != c.fifo {
				t.Errorf("HostFIFO %v, want %v", cfg.HostFIFO(), c.fifo)
			}
			rr := cfg.RoundRobinNICs("flowsim")
			if (rr != nil) != c.fifo || (rr != nil && !strings.Contains(rr.Error(), "flowsim")) {
				t.Errorf("RoundRobinNICs: %v", rr)
			}
			got, err := json.Marshal(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if (string(got) == string(def)) != c.sameJSON {
				t.Errorf("JSON %s, Default's %s: same %v, want %v", got, def, !c.sameJSON, c.sameJSON)
			}
			if c.fifo && !strings.Contains(string(got), `"host_nic":"fifo"`) {
				t.Errorf("JSON %s lacks host_nic", got)
			}
		})
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
		{"hpcc", func(c *Config) { c.HPCC.BaseRTTNanos = -2 }, "hpcc base_rtt_nanos must be >= 0"},
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

// The PFC headroom defaults to the fork's size: two full packets, 3860 B
// and twice the bandwidth-delay product (10 Gbps, 1 us: 2500 B).
func TestHeadroomFor(t *testing.T) {
	c := Default()
	if got, want := c.HeadroomFor(10_000_000_000, 1000), int64(2*1048+3860+2500); got != want {
		t.Errorf("default headroom %d, want %d", got, want)
	}
	c.PFC.HeadroomBytes = 5000
	if got := c.HeadroomFor(10_000_000_000, 1000); got != 5000 {
		t.Errorf("set headroom %d, want 5000", got)
	}
}

// A preset is its configuration spelled out: every preset validates, runs
// the congestion control it names at that algorithm's defaults, and a
// network block naming it (wherever "preset" stands) decodes to the
// preset with the block's other fields over it; unknown presets and
// fields are refused by name.
func TestPresets(t *testing.T) {
	for _, name := range Presets() {
		c, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil || PresetDoc(name) == "" {
			t.Errorf("preset %s: %v, doc %q", name, err, PresetDoc(name))
		}
		want := Default()
		switch name {
		case "ns3":
			want = NS3()
		case "fork-dctcp":
		case "fork-dcqcn":
			want.CC, want.DCQCN.DecreaseGrid, want.DCQCN.TimerOnly = "dcqcn", true, true
		case "fork-timely":
			want.CC, want.TIMELY.PerRTT = "timely", true
			want.HeaderBytes, want.AckBytes = 56, 60
		case "fork-hpcc":
			want.CC, want.HPCC.BaseRTTNanos, want.HPCC.QueueOverWindow, want.HPCC.WindowBytes = "hpcc", -1, true, 18000
			want.HeaderBytes, want.AckBytes = 90, 88
		default:
			want.CC = name
		}
		// The fork's rules are on in the fork presets that have rules of
		// their own (its DCTCP is the papers' default).
		if rules := strings.HasPrefix(name, "fork-") && name != "fork-dctcp"; c.ForkRules() != rules {
			t.Errorf("preset %s: ForkRules %v, want %v", name, c.ForkRules(), rules)
		}
		if r := c.WithForkRules(); r.ForkRules() != HasForkRules(c.CC) || strings.HasPrefix(name, "fork-") && !reflect.DeepEqual(r, c) {
			t.Errorf("preset %s under the fork's rules: %+v (HasForkRules %v)", name, r, HasForkRules(c.CC))
		}
		if !reflect.DeepEqual(c, want) {
			t.Errorf("preset %s = %+v, want %+v", name, c, want)
		}
	}
	want := Default()
	want.CC, want.HPCC.Eta, want.BufferBytes = "hpcc", 0.9, 200_000
	for _, block := range []string{
		`{"preset":"hpcc","hpcc":{"eta":0.9},"buffer_bytes":200000}`,
		`{"hpcc":{"eta":0.9},"buffer_bytes":200000,"preset":"hpcc"}`,
	} {
		c := NS3() // the preset replaces what was there
		if err := json.Unmarshal([]byte(block), &c); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c, want) {
			t.Errorf("%s:\n%+v\nwant\n%+v", block, c, want)
		}
	}
	for _, tc := range []struct{ block, want string }{
		{`{"preset":"tcp"}`, `unknown network preset "tcp"`},
		{`{"preset":3}`, "preset must be a name"},
		{`{"preset":"hpcc","hpc":{}}`, `unknown field "hpc"`},
		{`{"ecn":"enqueue"}`, `unknown field "ecn"`},
	} {
		c := Default()
		if err := json.Unmarshal([]byte(tc.block), &c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.block, err, tc.want)
		}
	}
}

// The fork's sizes on the wire: a 48 B data header and a 60 B ACK (46 B
// padded) plus the INT header, 42 B of 5 hop records and a hop count
// under HPCC, an 8 B timestamp under TIMELY.
func TestForkWire(t *testing.T) {
	for _, c := range []struct {
		cc          string
		header, ack int64
	}{
		{"dctcp", 48, 60}, {"dcqcn", 48, 60}, {"timely", 56, 60}, {"hpcc", 90, 88},
	} {
		cfg := Default()
		cfg.CC = c.cc
		got := cfg.ForkWire()
		if got.HeaderBytes != c.header || got.AckBytes != c.ack {
			t.Errorf("%s: header %d B, ACK %d B; want %d and %d", c.cc, got.HeaderBytes, got.AckBytes, c.header, c.ack)
		}
	}
}

// HPCC's NetworkBaseRTT stands for twice the network's longest host
// delay until resolved; other values and other CCs' blocks pass
// unchanged, without asking for the delay.
func TestResolve(t *testing.T) {
	cfg, err := Preset("fork-hpcc")
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("fork-hpcc: %v", err)
	}
	if err := cfg.CheckResolved(); err == nil || !strings.Contains(err.Error(), "base_rtt_nanos -1") {
		t.Errorf("unresolved fork-hpcc: err %v, want one naming base_rtt_nanos -1", err)
	}
	got := cfg.Resolve(func() int64 { return 3000 })
	if got.HPCC.BaseRTTNanos != 6000 || got.CheckResolved() != nil {
		t.Errorf("resolved T %d ns (err %v), want 6000", got.HPCC.BaseRTTNanos, got.CheckResolved())
	}
	asked := func() int64 { t.Error("asked for the delay with nothing to resolve"); return 0 }
	for _, c := range []Config{got, Default()} {
		if r := c.Resolve(asked); !reflect.DeepEqual(r, c) {
			t.Errorf("Resolve changed %+v", c)
		}
	}
	cfg.CC = "dctcp" // the hpcc block is not in use
	if err := cfg.CheckResolved(); err != nil {
		t.Errorf("dctcp with an unresolved hpcc block: %v", err)
	}
}

// Set changes exactly the field its JSON path names and validates the
// result; bad paths and values are refused, naming what is there.
func TestSet(t *testing.T) {
	base, _ := Preset("hpcc")
	for _, tc := range []struct {
		path, value string
		want        func(*Config)
	}{
		{"hpcc.eta", "0.9", func(c *Config) { c.HPCC.Eta = 0.9 }},
		{"hpcc.window_bytes", "20000", func(c *Config) { c.HPCC.WindowBytes = 20000 }},
		{"buffer_bytes", "200000", func(c *Config) { c.BufferBytes = 200000 }},
		{"cc", `"dcqcn"`, func(c *Config) { c.CC = "dcqcn" }},
		{"dctcp.var_win", "false", func(c *Config) { c.DCTCP.VarWin = false }},
	} {
		got, err := base.Set(tc.path, json.RawMessage(tc.value))
		if err != nil {
			t.Fatalf("%s = %s: %v", tc.path, tc.value, err)
		}
		want := base
		tc.want(&want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s = %s:\n%+v\nwant\n%+v", tc.path, tc.value, got, want)
		}
	}
	for _, tc := range []struct{ path, value, err string }{
		{"hpcc.etta", "0.9", `no field "hpcc.etta" in the network block (known in hpcc: ai_rate_bps, base_rtt_nanos, eta,`},
		{"hpc.eta", "0.9", `no field "hpc"`},
		{"hpcc", "0.9", "hpcc is a block, not a value"},
		{"cc.x", "1", "cc is a value, not a block"},
		{"hpcc.eta", `"high"`, "hpcc.eta = \"high\""},
		{"hpcc.eta", "1.5", "hpcc eta must be in (0,1]"},
		{"cc", `"reno"`, `unknown congestion control "reno"`},
	} {
		if _, err := base.Set(tc.path, json.RawMessage(tc.value)); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s = %s: err %v, want %q", tc.path, tc.value, err, tc.err)
		}
	}
}

// BufferKind names each kind of switch buffer, and Lossy says which
// drop packets.
func TestBufferKind(t *testing.T) {
	for _, c := range []struct {
		port, shared int64
		pfc          bool
		kind         string
		lossy        bool
	}{
		{0, 0, false, "infinite", false},
		{300_000, 0, false, "per-port", true},
		{0, 300_000, false, "shared", true},
		{0, 300_000, true, "shared+pfc", false},
	} {
		var cfg Config
		cfg.BufferBytes, cfg.Buffer.SharedBytes, cfg.PFC.Enabled = c.port, c.shared, c.pfc
		if got := cfg.BufferKind(); got != c.kind {
			t.Errorf("%+v: BufferKind() = %q, want %q", c, got, c.kind)
		}
		if got := cfg.Lossy(); got != c.lossy {
			t.Errorf("%s: Lossy() = %v, want %v", c.kind, got, c.lossy)
		}
	}
}
