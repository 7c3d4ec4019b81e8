package progress

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Plain lines: throttled to one per interval plus the last, ETA from the
// rate of the tasks run (skipped ones excluded), failures counted.
func TestProgressLines(t *testing.T) {
	var b strings.Builder
	p := NewLine(&b, "sweep")
	if p.terminal {
		t.Fatal("a strings.Builder is not a terminal")
	}
	clock := time.Unix(0, 0)
	p.now = func() time.Time { return clock }
	p.Interval = 10 * time.Second
	p.Progress(2, 10, "2 already done") // a resumed run
	steps := []struct {
		after  time.Duration
		failed int
	}{
		{5 * time.Second, 0},  // 3/10 after 5 s: throttled (5 s since the start line)
		{5 * time.Second, 0},  // 4/10 at 10 s: 2 ran in 10 s, 6 left: ETA 30 s
		{20 * time.Second, 0}, // 5/10 at 30 s: 3 in 30 s, 5 left: ETA 50 s
		{1 * time.Second, 1},
		{1 * time.Second, 1},
		{1 * time.Second, 1},
		{1 * time.Second, 1},
		{1 * time.Second, 1}, // 10/10: always reported
	}
	for i, s := range steps {
		clock = clock.Add(s.after)
		what := ""
		if s.failed > 0 {
			what = fmt.Sprintf("%d failed", s.failed)
		}
		p.Progress(3+i, 10, what)
	}
	want := "sweep 2/10 done, 2 already done, ETA ?\n" +
		"sweep 4/10 done, ETA 30s\n" +
		"sweep 5/10 done, ETA 50s\n" +
		"sweep 10/10 done, 1 failed, ETA 0s\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// On a terminal the bar is redrawn in place after every task.
func TestProgressBar(t *testing.T) {
	var b strings.Builder
	p := NewLine(&b, "sweep")
	p.terminal = true
	clock := time.Unix(0, 0)
	p.now = func() time.Time { return clock }
	p.Progress(0, 3, "")
	for i := 0; i < 3; i++ {
		clock = clock.Add(time.Minute)
		p.Progress(i+1, 3, "")
	}
	frames := strings.Split(b.String(), "\r")[1:]
	if len(frames) != 4 {
		t.Fatalf("%d bar frames, want 4: %q", len(frames), b.String())
	}
	if !strings.HasPrefix(frames[1], "sweep [==========                    ] 1/3, ETA 2m0s") {
		t.Errorf("frame after one task %q", frames[1])
	}
	if !strings.HasPrefix(frames[3], "sweep [==============================] 3/3, ETA 0s") || !strings.HasSuffix(frames[3], "\n") {
		t.Errorf("last frame %q", frames[3])
	}
	var nilp *Line
	nilp.Progress(1, 2, "") // a nil reporter is silent, not a crash
	Report(nil, 1, 2, "")
}

// With work, the ETA follows the work done, not the units: after a small
// unit, a large one left is not taken for another small one.
func TestProgressWork(t *testing.T) {
	for _, c := range []struct {
		name string
		// units of work 1, 99: the first done in 10 s
		report func(p *Line)
		want   string
	}{
		{"units", func(p *Line) { p.Progress(1, 2, "") }, "sweep 1/2 done, ETA 10s\n"},
		{"work", func(p *Line) { p.ProgressWork(1, 2, 1, 100, "") }, "sweep 1/2 done, ETA 16m30s\n"},
		{"through ReportWork", func(p *Line) { ReportWork(p, 1, 2, 1, 100, "") }, "sweep 1/2 done, ETA 16m30s\n"},
		{"a plain Reporter", func(p *Line) { ReportWork(Func(p.Progress), 1, 2, 1, 100, "") }, "sweep 1/2 done, ETA 10s\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			p := NewLine(&b, "sweep")
			clock := time.Unix(0, 0)
			p.now = func() time.Time { return clock }
			p.Progress(0, 2, "")
			clock = clock.Add(10 * time.Second)
			c.report(p)
			if got := strings.SplitAfterN(b.String(), "\n", 2)[1]; got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
