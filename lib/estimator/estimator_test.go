package estimator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/flowsim"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/m3"
	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/progress"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

func small(t *testing.T) *scenario.Scenario { return smallIn(t, netcfg.Default()) }

// smallIn is the small scenario under the network configuration cfg.
func smallIn(t *testing.T, cfg netcfg.Config) *scenario.Scenario {
	s := scenario.Default()
	s.Network = cfg
	s.Topology = scenario.Topology{Dumbbell: &topo.DumbbellSpec{Senders: 4, Receivers: 4}}
	s.Workload = workload.Spec{Flows: 300, Components: []workload.Component{{
		Pairs: [][2]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}}, Sizes: workload.SizeSpec{Dist: "webserver"},
		Arrival: workload.Arrival{Process: "poisson"}, MaxLoad: 0.4,
	}}}
	sc, err := scenario.Build(s)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestRunAndWrite(t *testing.T) {
	for _, name := range Names() {
		switch name {
		case "ns3":
			continue // needs the ns-3 installation; lib/ns3 tests it
		}
		sc := small(t)
		if name == "parsimon-ns3" {
			sc = smallIn(t, netcfg.NS3()) // what stock ns-3 runs
		}
		t.Run(name, func(t *testing.T) {
			res, err := Run(context.Background(), name, sc, "")
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Records) != len(sc.Flows) {
				t.Fatalf("%d records for %d flows", len(res.Records), len(sc.Flows))
			}
			for i, r := range res.Records {
				f := sc.Flows[i]
				if r.FlowID != f.ID || r.Size != f.Size || r.Start != f.Start {
					t.Fatalf("record %d = %+v does not match flow %+v", i, r, f)
				}
				if r.FCT < r.Ideal || r.Slowdown < 1 {
					t.Fatalf("record %d finishes faster than its ideal: %+v", i, r)
				}
			}
			path := filepath.Join(t.TempDir(), name+".parquet")
			if err := res.Write(path, sc); err != nil {
				t.Fatal(err)
			}
			back, meta, err := frame.ReadRecords(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(back) != len(res.Records) || meta.Estimator != name || meta.ScenarioID != sc.ID || meta.Spec != sc.Given().JSON() {
				t.Errorf("frame read back: %d records, meta %+v", len(back), meta)
			}
		})
	}
}

// A frame records the spec as given, so that running it again is the
// same scenario: under the fork's HPCC, whose T stands for the network's
// until the scenario is built, its spec has the frame's scenario ID and
// still says so, while the run had T resolved.
func TestFrameSpecIsGiven(t *testing.T) {
	cfg, err := netcfg.Preset("fork-hpcc")
	if err != nil {
		t.Fatal(err)
	}
	sc := smallIn(t, cfg)
	if sc.Spec.Network.HPCC.BaseRTTNanos <= 0 {
		t.Fatalf("built T %d, want it resolved", sc.Spec.Network.HPCC.BaseRTTNanos)
	}
	res, err := Run(context.Background(), "flowsim", sc, "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "flowsim.parquet")
	if err := res.Write(path, sc); err != nil {
		t.Fatal(err)
	}
	_, meta, err := frame.ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := scenario.Parse(strings.NewReader(meta.Spec))
	if err != nil {
		t.Fatal(err)
	}
	if spec.ID() != meta.ScenarioID || spec.Network.HPCC.BaseRTTNanos != netcfg.NetworkBaseRTT {
		t.Errorf("frame spec has ID %s and T %d, want the frame's %s and %d", spec.ID(), spec.Network.HPCC.BaseRTTNanos, meta.ScenarioID, netcfg.NetworkBaseRTT)
	}
}

func TestRunErrors(t *testing.T) {
	sc := small(t)
	for _, tc := range []struct{ name, opts, want string }{
		{"nosuch", "", "unknown estimator \"nosuch\""},
		{"packetsim", `{"bogus":1}`, "unknown field \"bogus\""},
		{"packetsim", `{`, "bad options"},
		{"m3", `{"model":"no/such/file.model"}`, "no/such/file.model"},
		{"m3", `{"samples":-1}`, "samples"},
	} {
		_, err := Run(context.Background(), tc.name, sc, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%s, %s): err = %v, want %q", tc.name, tc.opts, err, tc.want)
		}
	}
}

// The m3 adapter passes its options through: the embedded model by
// default, flowSim alone with model "none", seed 0 meaning the scenario's
// seed, and a model file by path, each the same as calling m3.Run.
func TestM3Options(t *testing.T) {
	sc := small(t)
	model, err := m3.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	other, err := m3.EmbeddedModel("table4-pfc")
	if err != nil {
		t.Fatal(err)
	}
	if other.Digest() == model.Digest() {
		t.Fatalf("embedded table4-pfc has the default's digest %s", model.Digest())
	}
	path := filepath.Join(t.TempDir(), "copy.model")
	if err := model.Save(path); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		opts  string
		model *m3.Model
		seed  uint64
	}{
		{"", model, sc.Spec.Seed},
		{`{"model":"none","samples":50,"seed":9}`, nil, 9},
		{`{"model":"` + path + `","samples":50}`, model, sc.Spec.Seed},
	} {
		res, err := Run(context.Background(), "m3", sc, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		o := m3.Options{Seed: tc.seed, Model: tc.model}
		if strings.Contains(tc.opts, "samples") {
			o.Samples = 50
		}
		want, err := m3.Run(context.Background(), sc.Net, sc.Flows, sc.Spec.Network, o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Records, want.Records) {
			t.Errorf("options %s: records differ from m3.Run with %+v", tc.opts, o)
		}
		if res.Extra["paths"] != strconv.Itoa(want.Paths) || res.Extra["paths_simulated"] != strconv.Itoa(want.Simulated) {
			t.Errorf("options %s: extra %v, want %d paths, %d simulated", tc.opts, res.Extra, want.Paths, want.Simulated)
		}
		// The records alone take a heap of 72 bytes per flow; the process
		// holds at least that resident.
		heap, rss := int64(res.Timings["heap_bytes"]), int64(res.Timings["peak_rss_bytes"])
		if min := int64(72 * len(sc.Flows)); heap < min || (runtime.GOOS == "linux" && rss < min) {
			t.Errorf("options %s: heap %d bytes, peak RSS %d bytes for %d records", tc.opts, heap, rss, len(sc.Flows))
		}
	}
}

// Parsimon's backend option picks the link-level backend: linksim by
// default, packetsim on request, each giving what parsimon.Run gives with
// that backend, and named in the provenance.
func TestParsimonBackend(t *testing.T) {
	sc := small(t)
	for _, tc := range []struct {
		name, opts string
		backend    parsimon.Backend
		cluster    bool
		provenance string
	}{
		{"parsimon", "", parsimon.LinkSim, false, `"backend":"linksim"`},
		{"parsimon", `{"backend":"packetsim"}`, parsimon.Packetsim, false, `"backend":"packetsim"`},
		{"parsimon-c", `{"backend":"packetsim"}`, parsimon.Packetsim, true, `"backend":"packetsim"`},
	} {
		res, err := Run(context.Background(), tc.name, sc, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		want, err := parsimon.Run(context.Background(), sc.Net, sc.Flows, sc.Spec.Network, parsimon.Options{Seed: sc.Spec.Seed, Backend: tc.backend, Cluster: tc.cluster})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(res.Records, want.Records) {
			t.Errorf("%s %s: records differ from parsimon.Run with the chosen backend", tc.name, tc.opts)
		}
		if !strings.Contains(res.Options, tc.provenance) {
			t.Errorf("%s %s: provenance %s does not name the backend (%s)", tc.name, tc.opts, res.Options, tc.provenance)
		}
	}
	for _, tc := range []struct{ name, opts, want string }{
		{"parsimon", `{"backend":"nosuch"}`, `unknown link-level backend "nosuch"`},
		{"parsimon", `{"backend":"ns3"}`, "is the estimator parsimon-ns3"},
		{"parsimon-ns3", `{"backend":"linksim"}`, "parsimon-ns3 runs the ns3 backend"},
	} {
		_, err := Run(context.Background(), tc.name, sc, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%s, %s): err = %v, want %q", tc.name, tc.opts, err, tc.want)
		}
	}
}

// Stream on a scenario whose flows were never drawn (scenario.BuildNet)
// writes the frame Run and Write would: the same records, options and
// counts; bad options fail before a frame is left behind. Estimators that
// do not stream write the records Run gives, with their extra metadata
// and timings, from a scenario with its flows, and refuse one without.
func TestStream(t *testing.T) {
	built := small(t)
	want, err := Run(context.Background(), "packetsim", built, `{"host_fifo":true}`)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenario.BuildNet(built.Spec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "packetsim.parquet")
	res, err := Stream(context.Background(), "packetsim", sc, `{"host_fifo":true}`, path)
	if err != nil {
		t.Fatal(err)
	}
	got, meta, err := frame.ReadRecords(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want.Records) || res.Streamed != len(got) || len(res.Records) != 0 {
		t.Errorf("streamed %d records (%d reported), Run gave %d; they differ or were also kept", len(got), res.Streamed, len(want.Records))
	}
	if meta.Options != want.Options || !reflect.DeepEqual(meta.Extra, want.Extra) || meta.ScenarioID != built.ID {
		t.Errorf("frame meta %+v, want options %s and extra %v of scenario %s", meta, want.Options, want.Extra, built.ID)
	}
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	if _, err := Stream(context.Background(), "packetsim", sc, `{"bogus":1}`, bad); err == nil || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("bad options: %v", err)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Errorf("a failed Stream left %s", bad)
	}
	if Streams("flowsim") {
		t.Errorf("flowsim claims to stream")
	}
	if _, err := Stream(context.Background(), "flowsim", sc, "", bad); err == nil || !strings.Contains(err.Error(), "needs the scenario's flows") {
		t.Errorf("flowsim without flows: %v", err)
	}
	for _, name := range []string{"flowsim", "m3", "parsimon", "parsimon-c"} {
		want, err := Run(context.Background(), name, built, "")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), name+".parquet")
		res, err := Stream(context.Background(), name, built, "", path)
		if err != nil {
			t.Fatal(err)
		}
		got, meta, err := frame.ReadRecords(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(built.Flows) || !reflect.DeepEqual(got, want.Records) || res.Streamed != len(got) || len(res.Records) != 0 {
			t.Errorf("%s: streamed %d records (%d reported), Run gave %d; they differ or were also kept", name, len(got), res.Streamed, len(want.Records))
		}
		if meta.Options != want.Options || !reflect.DeepEqual(meta.Extra, want.Extra) || !slices.Equal(slices.Sorted(maps.Keys(meta.Timings)), slices.Sorted(maps.Keys(want.Timings))) {
			t.Errorf("%s: frame meta %+v, want options %s, extra %v and timings %v", name, meta, want.Options, want.Extra, want.Timings)
		}
	}
}

// Two runs of the same scenario, estimator and options write byte-identical
// frames (their wall times, which differ, go to the run logs).
func TestRerunsWriteIdenticalFrames(t *testing.T) {
	sc := small(t)
	for _, name := range []string{"packetsim", "flowsim", "m3", "parsimon"} {
		var frames [2][]byte
		for i := range frames {
			res, err := Run(context.Background(), name, sc, "")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), name+".parquet")
			if err := res.Write(path, sc); err != nil {
				t.Fatal(err)
			}
			if frames[i], err = os.ReadFile(path); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(frames[0], frames[1]) {
			t.Errorf("%s: two runs wrote different frames", name)
		}
	}
}

func TestCheck(t *testing.T) {
	if err := Check("packetsim", "flowsim"); err != nil {
		t.Error(err)
	}
	for _, names := range [][]string{nil, {"packetsim", "bogus"}, {""}} {
		if err := Check(names...); err == nil {
			t.Errorf("Check(%q) accepted", names)
		}
	}
}

// Resolve gives the options a run records: strict, re-encoded, with
// Parsimon's default backend, sparse bucket size and window_once named.
func TestResolve(t *testing.T) {
	for _, tc := range []struct{ name, opts, want, err string }{
		{"parsimon", "", `{"backend":"linksim","sparse_bucket_size":5,"window_once":true}`, ""},
		{"parsimon", `{"backend":"packetsim", "workers":2}`, `{"backend":"packetsim","workers":2,"sparse_bucket_size":5,"window_once":true}`, ""},
		{"parsimon", `{"sparse_bucket_size":-1}`, "", "sparse_bucket_size -1"},
		{"parsimon-ns3", "", `{"backend":"ns3","sparse_bucket_size":5,"window_once":true}`, ""},
		{"parsimon-ns3", `{"backend":"linksim"}`, "", "parsimon-ns3 runs the ns3 backend"},
		{"flowsim", ` { "host_rate_bps" : 5 } `, `{"host_rate_bps":5}`, ""},
		{"packetsim", "", `{}`, ""},
		{"flowsim", `{"bogus":1}`, "", "unknown field"},
		{"pfs-chunk", "", "", `unknown estimator "pfs-chunk"`},
	} {
		got, err := Resolve(tc.name, tc.opts)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s %s: error %v, want %q", tc.name, tc.opts, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s %s: %v", tc.name, tc.opts, err)
		case got != tc.want:
			t.Errorf("%s %s: resolved %s, want %s", tc.name, tc.opts, got, tc.want)
		}
	}
}

// afterChecks is a context that is done from its n-th Done call on: it
// cancels a run in the middle, at a point counted in the run's own checks.
type afterChecks struct {
	context.Context
	n      int
	closed chan struct{}
}

func newAfterChecks(n int) *afterChecks {
	c := make(chan struct{})
	close(c)
	return &afterChecks{Context: context.Background(), n: n, closed: c}
}

func (c *afterChecks) Done() <-chan struct{} {
	if c.n--; c.n <= 0 {
		return c.closed
	}
	return nil
}

func (c *afterChecks) Err() error {
	if c.n <= 0 {
		return context.Canceled
	}
	return nil
}

// packetsim checks its context on every record it emits, so a cancelled
// run ends early with the context's error and Stream leaves no frame.
func TestCancelStopsStreamingEstimator(t *testing.T) {
	built := small(t)
	const after = 50 // of 300 flows
	_, err := Run(newAfterChecks(after), "packetsim", built, "")
	if err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
		t.Fatalf("Run with a context cancelled after %d records: err %v", after, err)
	}
	sc, err := scenario.BuildNet(built.Spec)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "packetsim.parquet")
	if _, err := Stream(newAfterChecks(after), "packetsim", sc, "", path); err == nil || !strings.Contains(err.Error(), context.Canceled.Error()) {
		t.Fatalf("Stream with a context cancelled after %d records: err %v", after, err)
	}
	if _, err := os.Stat(path); err == nil {
		t.Errorf("a cancelled Stream left %s", path)
	}
	// The same checks, never cancelling, count the records: one per record.
	counting := newAfterChecks(1 << 30)
	res, err := Run(counting, "packetsim", built, "")
	if err != nil {
		t.Fatal(err)
	}
	if emitted := 1<<30 - counting.n; emitted < len(res.Records) {
		t.Errorf("%d context checks for %d records: a cancel could go unseen for several records", emitted, len(res.Records))
	}
}

// Parsimon's progress reports go where the context says, ending with every
// link simulation done.
func TestWithProgress(t *testing.T) {
	sc := small(t)
	var last string
	got := progress.Func(func(done, total int, what string) { last = fmt.Sprintf("%d/%d %s", done, total, what) })
	res, err := Run(WithProgress(context.Background(), got), "parsimon", sc, "")
	if err != nil {
		t.Fatal(err)
	}
	sims := res.Extra["link_sims"]
	if want := sims + "/" + sims + " link sims"; last != want {
		t.Errorf("last progress report %q, want %q", last, want)
	}
}

// parsimon and parsimon-c run every congestion control with their default
// link-level backend (linksim), each giving records of its own: a
// controller that were not applied would leave them equal to DCTCP's.
func TestParsimonEveryCC(t *testing.T) {
	base := small(t)
	for _, name := range []string{"parsimon", "parsimon-c"} {
		var dctcp []metrics.Record
		for _, cc := range netcfg.CCs {
			spec := base.Spec
			spec.Network.CC = cc
			sc, err := scenario.Build(spec)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), name, sc, "")
			if err != nil {
				t.Fatalf("%s under %s: %v", name, cc, err)
			}
			if len(res.Records) != len(sc.Flows) {
				t.Fatalf("%s under %s: %d records for %d flows", name, cc, len(res.Records), len(sc.Flows))
			}
			if cc == "dctcp" {
				dctcp = res.Records
			} else if reflect.DeepEqual(res.Records, dctcp) {
				t.Errorf("%s under %s: the same records as under dctcp", name, cc)
			}
		}
	}
}

// Every estimator models the configuration asked or refuses it by name,
// over estimators x configurations (each preset, and finite buffers): the
// table says which refuse; Parsimon's linksim backend answers for itself,
// so its row is checked against a run of parsimon.Run with that backend
// (refused iff the run fails). Every accepted run that needs no ns-3
// installation is run and gives records; a refused one fails as
// Models said, before running.
func TestModels(t *testing.T) {
	buffered := netcfg.Default()
	buffered.BufferBytes = 200_000
	shared := netcfg.Default()
	shared.Buffer.SharedBytes, shared.PFC.Enabled = 200_000, true
	// The host NIC's discipline apart from the rest of the ns3 preset.
	ns3RoundRobin, dctcpFIFO := netcfg.NS3(), netcfg.Default()
	ns3RoundRobin.HostNIC, dctcpFIFO.HostNIC = netcfg.HostNICRoundRobin, netcfg.HostNICFIFO
	configs := map[string]netcfg.Config{"buffer 200KB": buffered, "shared 200KB pfc": shared,
		"ns3 round-robin": ns3RoundRobin, "dctcp fifo": dctcpFIFO}
	for _, p := range netcfg.Presets() {
		c, _ := netcfg.Preset(p)
		// As estimators get it: resolved on the scenario's network.
		configs[p] = smallIn(t, c).Spec.Network
	}
	// refuses lists, per estimator, the configurations it refuses and
	// the words its refusal must contain.
	fifoRefusal := map[string]string{"ns3": `host_nic "fifo"`, "dctcp fifo": `host_nic "fifo"`}
	m3Refusal := map[string]string{"ns3": `host_nic "fifo"`, "ns3 round-robin": "dctcp-window", "dctcp fifo": `host_nic "fifo"`, "dcqcn": "dcqcn", "timely": "timely", "hpcc": "hpcc", "buffer 200KB": "buffer_bytes 200000", "shared 200KB pfc": "shared_bytes 200000",
		"fork-dcqcn": "dcqcn", "fork-timely": "timely", "fork-hpcc": "hpcc"}
	ns3Refusal := map[string]string{"dctcp": `not congestion control "dctcp"`, "dcqcn": `"dcqcn"`, "timely": `"timely"`, "hpcc": `"hpcc"`, "buffer 200KB": `"dctcp"`, "shared 200KB pfc": `"dctcp"`,
		"fork-dctcp": `not congestion control "dctcp"`, "fork-dcqcn": `"dcqcn"`, "fork-timely": `"timely"`, "fork-hpcc": `"hpcc"`,
		"ns3 round-robin": "host NIC is a FIFO", "dctcp fifo": `not congestion control "dctcp"`}
	refuses := map[string]map[string]string{
		"m3": m3Refusal, "ns3": ns3Refusal, "parsimon-ns3": ns3Refusal,
		"flowsim": fifoRefusal, "pfs": fifoRefusal,
	}
	for _, name := range Names() {
		for cname, cfg := range configs {
			t.Run(name+"/"+cname, func(t *testing.T) {
				err := Models(name, "", cfg)
				want, refused := refuses[name][cname]
				if name == "parsimon" || name == "parsimon-c" {
					sc := smallIn(t, cfg)
					_, runErr := parsimon.Run(context.Background(), sc.Net, sc.Flows, cfg, parsimon.Options{Seed: 1, Backend: parsimon.LinkSim, Progress: progress.Func(func(int, int, string) {})})
					refused, want = runErr != nil, "linksim"
				}
				switch {
				case refused && (err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "estimator "+name)):
					t.Fatalf("Models = %v, want a refusal naming %s and %q", err, name, want)
				case !refused && err != nil:
					t.Fatalf("Models = %v, want nil", err)
				}
				if (name == "ns3" || name == "parsimon-ns3") && !refused {
					return // runs ns-3: TestRunAndWrite and lib/ns3 do
				}
				sc := smallIn(t, cfg)
				res, runErr := Run(context.Background(), name, sc, "")
				switch {
				case refused && (runErr == nil || runErr.Error() != err.Error()):
					t.Errorf("Run = %v, want the refusal %v", runErr, err)
				case !refused && runErr != nil:
					t.Errorf("Run: %v", runErr)
				case !refused && len(res.Records) == 0:
					t.Errorf("Run gave no records")
				}
			})
		}
	}
	// The default model's refusals of what the embedded "table4-pfc"
	// model's space covers name it. On the small scenario both lie
	// outside its training ranges (the hpcc preset's rate AI, the
	// default K over a dumbbell's short round trip): it refuses them by
	// the entry before any simulation, and answers them anyway.
	for _, c := range []struct{ name, entry string }{{"hpcc", "hpcc_ai_rate/1Gbps"}, {"shared 200KB pfc", "ecn_k_first/bdp"}} {
		err := Models("m3", "", configs[c.name])
		if err == nil || !strings.Contains(err.Error(), `{"m3":{"model":"table4-pfc"}}`) {
			t.Errorf("m3 on %s: refusal %v names no embedded model that answers", c.name, err)
		}
		sc := smallIn(t, configs[c.name])
		var r *Refusal
		if _, err := Run(context.Background(), "m3", sc, `{"model":"table4-pfc","samples":20}`); !errors.As(err, &r) || !strings.Contains(err.Error(), c.entry) {
			t.Errorf("m3 with table4-pfc on %s: %v, want a refusal naming %s", c.name, err, c.entry)
		}
		res, err := Run(context.Background(), "m3", sc, `{"model":"table4-pfc","samples":20,"answer_anyway":true}`)
		if err != nil || len(res.Records) == 0 {
			t.Errorf("m3 with table4-pfc on %s, answering anyway: %v", c.name, err)
		}
	}
	// The fork's TIMELY only the "table4-fork" model answers.
	forkTIMELY, _ := netcfg.Preset("fork-timely")
	if err := Models("m3", "", forkTIMELY); err == nil || !strings.Contains(err.Error(), `options {"m3":{"model":"table4-fork"}}`) || strings.Contains(err.Error(), "table4-pfc") {
		t.Errorf("m3 on fork-timely: refusal %v does not name table4-fork alone", err)
	}
	if err := Models("m3", `{"model":"table4-fork"}`, forkTIMELY); err != nil {
		t.Errorf("m3 with table4-fork on fork-timely: %v", err)
	}
	// m3 §5.4's setting as m3 ran it: table4-fork answers, table4-pfc
	// refuses HPCC under the fork's rules by name.
	whatifFork, err := scenario.BuildNet(scenario.WhatIfHPCCFork(1000, 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := Models("m3", `{"model":"table4-fork"}`, whatifFork.Spec.Network); err != nil {
		t.Errorf("m3 with table4-fork on whatif-hpcc-fork: %v", err)
	}
	if err := Models("m3", `{"model":"table4-pfc"}`, whatifFork.Spec.Network); err == nil || !strings.Contains(err.Error(), "hpcc") {
		t.Errorf("m3 with table4-pfc on whatif-hpcc-fork: %v, want a refusal naming hpcc", err)
	}
	if err := Models("m3", `{"model":"table4-pfc"}`, configs["buffer 200KB"]); err == nil || !strings.Contains(err.Error(), "buffer_bytes 200000") {
		t.Errorf("m3 with table4-pfc on per-port buffers: %v, want a refusal", err)
	}
	// m3 with model "none" is flowSim alone: it answers every
	// configuration and says what it models.
	res, err := Run(context.Background(), "m3", smallIn(t, configs["hpcc"]), `{"model":"none","samples":20}`)
	if err != nil || res.Extra["network_model"] != (flowsim.Options{}).NetworkModel() {
		t.Errorf("m3 without a model on HPCC: %v, extra %v", err, res.Extra)
	}
}

// The m3 options resolve with the digest of the model they name, so that
// a study's results of one model are never taken for another's: the
// embedded model's by default, none for flowSim alone, a file's by path;
// a digest given by hand must match.
func TestM3ResolvesModelDigest(t *testing.T) {
	model, err := m3.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	other, err := m3.EmbeddedModel("table4-pfc")
	if err != nil {
		t.Fatal(err)
	}
	if other.Digest() == model.Digest() {
		t.Fatalf("embedded table4-pfc has the default's digest %s", model.Digest())
	}
	path := filepath.Join(t.TempDir(), "copy.model")
	if err := model.Save(path); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ opts, want, err string }{
		{"", `{"model_digest":"` + model.Digest() + `"}`, ""},
		{`{"model":"none"}`, `{"model":"none"}`, ""},
		{`{"model":"` + path + `"}`, `{"model":"` + path + `","model_digest":"` + model.Digest() + `"}`, ""},
		{`{"model":"table4-pfc"}`, `{"model":"table4-pfc","model_digest":"` + other.Digest() + `"}`, ""},
		{`{"model_digest":"sha256:0000000000000000"}`, "", "does not match"},
	} {
		got, err := Resolve("m3", tc.opts)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.opts, err, tc.err)
			}
		case err != nil || got != tc.want:
			t.Errorf("%s: resolved %s (%v), want %s", tc.opts, got, err, tc.want)
		}
	}
	if !strings.HasPrefix(model.Digest(), "sha256:") {
		t.Errorf("digest %q", model.Digest())
	}
}

// A model that records its training ranges reports the paths it
// extrapolated on in the frame's metadata: all of them when every range
// excludes the scenario's inputs, none when every range covers them; a
// model without ranges reports nothing.
func TestM3OutsideTraining(t *testing.T) {
	sc := small(t)
	base, err := m3.DefaultModel()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := mustRunM3(t, sc, base)["paths_outside_training"]; ok {
		t.Error("a model without ranges reports paths outside them")
	}
	names := base.Info.SpecNames
	if names == nil {
		names = m3.LegacySpecNames
	}
	for _, tc := range []struct {
		r       [2]float64
		outside func(simulated string) string
	}{
		{[2]float64{-1e9, 1e9}, func(string) string { return "0" }},
		{[2]float64{1e9, 1e9}, func(sim string) string { return sim }},
	} {
		m := *base
		m.Info.SpecRange = make([][2]float64, len(names))
		for i := range names {
			m.Info.SpecRange[i] = tc.r
		}
		extra := mustRunM3(t, sc, &m)
		if (extra[ExtraTrainingRange] != "") != (tc.r[0] > 0) {
			t.Errorf("ranges %v: training-range refusal %q", tc.r, extra[ExtraTrainingRange])
		}
		if got, want := extra["paths_outside_training"], tc.outside(extra["paths_simulated"]); got != want {
			t.Errorf("ranges %v: %s paths outside, want %s of %s", tc.r, got, want, extra["paths_simulated"])
		}
	}
}

// The what-if preset (m3 §5.4) lies inside what the embedded table4-pfc
// model was trained on, every path of it: HPCC's rate AI in Table 4's
// range, not the HPCC fork's 50 Mbps, which lies outside on every path.
func TestM3WhatIfInsideTable4(t *testing.T) {
	for _, tc := range []struct {
		ai      int64
		outside func(simulated string) string
	}{
		{scenario.WhatIfHPCC(1, 1).Network.HPCC.AIRateBps, func(string) string { return "0" }},
		{netcfg.Default().HPCC.AIRateBps, func(sim string) string { return sim }},
	} {
		res := runWhatIfM3(t, func(n *netcfg.Config) { n.HPCC.AIRateBps = tc.ai })
		if got, want := res.Extra["paths_outside_training"], tc.outside(res.Extra["paths_simulated"]); got != want {
			t.Errorf("rate AI %d bps: %q of %s paths outside the training ranges, want %q", tc.ai, got, res.Extra["paths_simulated"], want)
		}
	}
}

// HPCC does not read ECN marks, so neither may m3's embedded table4-pfc
// model: its records under the what-if preset are the same at any
// threshold (its model reads the threshold only where the CC does).
func TestM3HPCCIgnoresK(t *testing.T) {
	var first []metrics.Record
	for _, k := range []int64{0, 5_000, 20_000} { // 0: netcfg's 3 KB per Gbps
		res := runWhatIfM3(t, func(n *netcfg.Config) { n.KBytes = k })
		if first == nil {
			first = res.Records
		} else if !reflect.DeepEqual(res.Records, first) {
			t.Errorf("K %d bytes: m3's records differ from those at netcfg's K", k)
		}
	}
}

// runWhatIfM3 runs m3 with the embedded table4-pfc model on 2,000 flows
// of the what-if preset, its network changed by edit.
func runWhatIfM3(t *testing.T, edit func(*netcfg.Config)) *Result {
	t.Helper()
	spec := scenario.WhatIfHPCC(2000, 1)
	edit(&spec.Network)
	sc, err := scenario.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(Measuring(context.Background()), "m3", sc, `{"model":"table4-pfc","samples":50}`)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// m3 refuses, before any simulation, a network whose spec entries lie
// outside its model's training ranges, naming the entry, the parameter
// it comes from and the range, unless told to answer anyway (then the
// frame says so) or measuring; inside the ranges it answers. The plain
// hpcc preset's rate AI (50 Mbps) lies outside table4-pfc's HPCC range
// (Table 4's 0.5-1 Gbps).
func TestM3RefusesOutsideTraining(t *testing.T) {
	spec := scenario.WhatIfHPCC(300, 1)
	hpcc, err := netcfg.Preset("hpcc")
	if err != nil {
		t.Fatal(err)
	}
	spec.Network.HPCC.AIRateBps = hpcc.HPCC.AIRateBps
	sc, err := scenario.Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	const opts = `{"model":"table4-pfc","samples":20}`
	_, err = Run(context.Background(), "m3", sc, opts)
	var r *Refusal
	if !errors.As(err, &r) {
		t.Fatalf("m3 on rate AI %d bps: error %v, want a refusal", hpcc.HPCC.AIRateBps, err)
	}
	for _, want := range []string{"hpcc_ai_rate/1Gbps = 0.05", "hpcc.ai_rate_bps", "trained on 0.5..", "packetsim", AnswerAnyway} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not name %q", err, want)
		}
	}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		opts string
	}{
		{"answer anyway", context.Background(), `{"model":"table4-pfc","samples":20,"answer_anyway":true}`},
		{"measuring", Measuring(context.Background()), opts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(tc.ctx, "m3", sc, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.Extra["answered_anyway"] != "true" || !strings.Contains(res.Extra[ExtraTrainingRange], "hpcc.ai_rate_bps") {
				t.Errorf("answered_anyway %q, %s %q", res.Extra["answered_anyway"], ExtraTrainingRange, res.Extra[ExtraTrainingRange])
			}
		})
	}
	inside := runWhatIfM3(t, func(*netcfg.Config) {})
	if inside.Extra[ExtraTrainingRange] != "" {
		t.Errorf("the what-if preset, inside the ranges: %s %q", ExtraTrainingRange, inside.Extra[ExtraTrainingRange])
	}
}

// mustRunM3 runs the m3 estimator on sc with model m, saved to a file,
// answering anyway outside its training ranges, and returns its frame
// metadata.
func mustRunM3(t *testing.T, sc *scenario.Scenario, m *m3.Model) map[string]string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.model")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), "m3", sc, `{"model":"`+path+`","samples":50,"answer_anyway":true}`)
	if err != nil {
		t.Fatal(err)
	}
	return res.Extra
}

// packetsim models every network at any number of workers, HPCC over
// buffers that lose packets among them, and refuses a negative count.
func TestModelsPacketsimWorkers(t *testing.T) {
	perPort := netcfg.Default()
	perPort.BufferBytes, perPort.DCTCP.MinRTONanos = 100_000, 1_000_000
	shared := netcfg.Default()
	shared.Buffer.SharedBytes, shared.DCTCP.MinRTONanos = 300_000, 1_000_000
	pfc := shared
	pfc.PFC.Enabled = true
	hpccPerPort, hpccPFC := perPort, pfc
	hpccPerPort.CC, hpccPFC.CC = "hpcc", "hpcc"
	for _, c := range []struct {
		name, options string
		cfg           netcfg.Config
		refuse        string // "" when modelled
	}{
		{"one worker, per-port buffer", `{"workers":1}`, perPort, ""},
		{"two workers, infinite buffers", `{"workers":2}`, netcfg.Default(), ""},
		{"two workers, PFC", `{"workers":2}`, pfc, ""},
		{"two workers, per-port buffer", `{"workers":2}`, perPort, ""},
		{"four workers, shared buffer without PFC", `{"workers":4}`, shared, ""},
		{"two workers, HPCC, per-port buffer", `{"workers":2}`, hpccPerPort, ""},
		{"negative workers", `{"workers":-1}`, perPort, "workers must be >= 0"},
		{"two workers, HPCC, PFC", `{"workers":2}`, hpccPFC, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := Models("packetsim", c.options, c.cfg)
			switch {
			case c.refuse == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.refuse != "" && (err == nil || !strings.Contains(err.Error(), c.refuse)):
				t.Fatalf("error %v, want one naming %q", err, c.refuse)
			}
		})
	}
}
