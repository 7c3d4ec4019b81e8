package nb

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tailscope/tailscope/lib/estimator"
	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/scenario"
	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// stopped runs f and returns the message of the *Error it stopped with,
// or "" if it returned normally.
func stopped(t *testing.T, f func()) (msg string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			var e *Error
			err, ok := r.(error)
			if !ok || !errors.As(err, &e) {
				t.Fatalf("stopped with %T %v, want *Error", r, r)
			}
			msg = e.Error()
		}
	}()
	f()
	return ""
}

func openBook(t *testing.T, scale string) *Book {
	t.Setenv("TAILSCOPE_SCALE", scale)
	t.Setenv("TAILSCOPE_OUT", t.TempDir())
	return Open("test-book")
}

func TestOpenAndPick(t *testing.T) {
	for i, scale := range Scales {
		b := openBook(t, scale)
		if fi, err := os.Stat(b.Dir); err != nil || !fi.IsDir() {
			t.Fatalf("%s: book directory %s: %v", scale, b.Dir, err)
		}
		if got := b.Pick(10, 20, 30); got != 10*(i+1) {
			t.Errorf("%s: Pick = %d", scale, got)
		}
		if got := b.PickFloat(0.5, 1.5, 2.5); got != 0.5+float64(i) {
			t.Errorf("%s: PickFloat = %g", scale, got)
		}
		if !strings.Contains(b.HTML(), "<b>"+scale+"</b>") {
			t.Errorf("%s: HTML %q", scale, b.HTML())
		}
	}
	t.Setenv("TAILSCOPE_SCALE", "huge")
	if msg := stopped(t, func() { Open("x") }); !strings.Contains(msg, `"huge"`) || !strings.Contains(msg, "ci, quick, paper") {
		t.Errorf("unknown scale: %q", msg)
	}
}

func TestCheck(t *testing.T) {
	if msg := stopped(t, func() { Check(nil) }); msg != "" {
		t.Errorf("Check(nil) stopped with %q", msg)
	}
	cause := errors.New("estimator flowsim: bad options")
	if msg := stopped(t, func() { Check(cause) }); msg != cause.Error() {
		t.Errorf("Check stopped with %q, want the error's own message", msg)
	}
}

// render is what a terminal or JupyterLab shows for text with carriage
// returns: each "\r" moves back to the start of the line, and what follows
// overwrites it.
func render(s string) string {
	var lines []string
	cur := []rune{}
	col := 0
	for _, r := range s {
		switch r {
		case '\n':
			lines = append(lines, strings.TrimRight(string(cur), " "))
			cur, col = cur[:0], 0
		case '\r':
			col = 0
		default:
			if col < len(cur) {
				cur[col] = r
			} else {
				cur = append(cur, r)
			}
			col++
		}
	}
	if len(cur) > 0 {
		lines = append(lines, strings.TrimRight(string(cur), " "))
	}
	return strings.Join(lines, "\n")
}

func TestLineShowsOneLine(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		want   string
	}{
		{"nothing", nil, ""},
		{"one", []string{"link sims 1/3\n"}, "link sims 1/3"},
		{"shorter replaces longer", []string{"link sims 10/300, ETA 3s\n", "done\n"}, "done"},
		{"split writes", []string{"sweep 1/", "2 done\nsweep 2/2 done\n"}, "sweep 2/2 done"},
		{"unfinished last line", []string{"a\n", "partial"}, "partial"},
		{"carriage returns kept out", []string{"bar 1\r\n", "bar 2\r\n"}, "bar 2"},
		{"warnings stay", []string{"link sims 1/9\n", "parsimon: warning: sparse\n", "link sims 9/9\n"}, "parsimon: warning: sparse\nlink sims 9/9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			l := NewLine(&out)
			for _, w := range tc.writes {
				l.Write([]byte(w))
			}
			l.Close()
			if got := render(out.String()); got != tc.want {
				t.Errorf("shows %q (raw %q), want %q", got, out.String(), tc.want)
			}
			if n, want := strings.Count(out.String(), "\n"), strings.Count(tc.want, "\n")+1; n > want {
				t.Errorf("%d newlines in %q, want at most %d", n, out.String(), want)
			}
		})
	}
}

func dumbbell(t *testing.T, seed uint64) scenario.Spec {
	s := scenario.Default()
	s.Name = "nb-test"
	s.Seed = seed
	s.Topology = scenario.Topology{Dumbbell: &topo.DumbbellSpec{Senders: 4, Receivers: 4}}
	s.Workload = workload.Spec{Flows: 300, Components: []workload.Component{{
		Pairs: [][2]int{{0, 4}, {1, 5}, {2, 6}, {3, 7}}, Sizes: workload.SizeSpec{Dist: "webserver"},
		Arrival: workload.Arrival{Process: "poisson"}, MaxLoad: 0.4,
	}}}
	return s
}

// Runs are the estimators' own results, written as frames; figures and
// comparisons come from them.
func TestRun(t *testing.T) {
	b := openBook(t, "ci")
	sc := b.Build(dumbbell(t, 1))
	runs := b.RunEach(sc, []Estimator{{Name: "packetsim"}, {Label: "fifo", Name: "packetsim", Options: `{"host_fifo":true}`}, {Name: "flowsim"}})
	for i, l := range []string{"packetsim", "fifo", "flowsim"} {
		name, opts := []string{"packetsim", "packetsim", "flowsim"}[i], []string{"", `{"host_fifo":true}`, ""}[i]
		want, err := estimator.Run(context.Background(), name, sc, opts)
		if err != nil {
			t.Fatal(err)
		}
		got, meta, err := frame.ReadRecords(filepath.Join(b.Dir, l+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want.Records) || !reflect.DeepEqual(runs.Records(l), want.Records) || meta.Estimator != l {
			t.Errorf("%s: frame (%d records, estimator %q) or result differ from a direct run", l, len(got), meta.Estimator)
		}
		if !strings.Contains(runs.HTML(), "<td>"+l+"</td>") {
			t.Errorf("HTML lacks run %s", l)
		}
	}
	c := runs.Compare("flowsim", "packetsim", 99)
	if len(c.Labels) != runs.Bins.Len() {
		t.Errorf("comparison over %d bins, want %d", len(c.Labels), runs.Bins.Len())
	}
	rows := runs.Summaries("packetsim", 99)
	if len(rows) != 2 || rows[0].Estimator != "fifo" || rows[1].Estimator != "flowsim" {
		t.Errorf("summaries %+v", rows)
	}
	fig := runs.SlowdownCDF(0.9)
	png := fig.SimpleRender()["image/png"].([]byte)
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) || fig.Path != filepath.Join(b.Dir, "slowdown_cdf.png") {
		t.Errorf("figure %s: not a PNG", fig.Path)
	}
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"unknown estimator", func() { b.Run(sc, "ns4") }, `unknown estimator "ns4"`},
		{"bad options", func() { b.RunEach(sc, []Estimator{{Name: "flowsim", Options: `{"bogus":1}`}}) }, "bogus"},
		{"label twice", func() { b.Run(sc, "flowsim", "flowsim") }, `label "flowsim" appears twice`},
		{"no scenario", func() { b.Run(nil, "flowsim") }, "no scenario"},
		{"unknown label", func() { runs.Records("m3") }, `no run labelled "m3"`},
	} {
		if msg := stopped(t, tc.f); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: stopped with %q, want %q", tc.name, msg, tc.want)
		}
	}
}

// An interrupt cancels the context handed out so far, and only that one.
func TestInterrupt(t *testing.T) {
	before := Context()
	if before.Err() != nil {
		t.Fatal("the cell context is done before any interrupt")
	}
	Interrupt()
	if before.Err() == nil {
		t.Error("Interrupt left the running cell's context alive")
	}
	if Context().Err() != nil {
		t.Error("the context after an interrupt is done too")
	}
	b := openBook(t, "ci")
	sc := b.Build(dumbbell(t, 1))
	if _, err := estimator.Run(before, "packetsim", sc, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("packetsim under an interrupted context: %v", err)
	}
}

// A sweep resumes where it stopped, and its summaries cover every
// scenario and estimator but the baseline.
func TestSweep(t *testing.T) {
	b := openBook(t, "ci")
	specs := []scenario.Spec{dumbbell(t, 1), dumbbell(t, 2)}
	sw := b.Sweep("", specs[:1], "packetsim", "flowsim")
	if sw.Ran != 2 || sw.Skipped != 0 {
		t.Errorf("first sweep %+v", sw.Report)
	}
	sw = b.Sweep("", specs, "packetsim", "flowsim")
	if sw.Ran != 2 || sw.Skipped != 2 {
		t.Errorf("extended sweep %+v", sw.Report)
	}
	rows := sw.Summaries("packetsim", 99)
	if len(rows) != 2 || rows[0].Estimator != "flowsim" || rows[0].ScenarioID == rows[1].ScenarioID {
		t.Errorf("summaries %+v", rows)
	}
	if msg := stopped(t, func() { b.Sweep("sub", specs, "ns4") }); !strings.Contains(msg, `unknown estimator "ns4"`) {
		t.Errorf("unknown estimator: %q", msg)
	}
}
