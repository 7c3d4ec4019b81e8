// Package progress is how tailscope's long runs say how far they are: every
// Options struct and sweep takes a Reporter, which receives how many units
// of how many are done and what they are, and Line renders those reports
// as one line (a bar redrawn in place on a terminal, throttled plain lines
// in logs and notebooks).
//
// A report is one call, Progress(done, total, what), so that any front end
// can draw it as a single updating line: a notebook widget, a terminal bar,
// a log line.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Reporter receives how far a run is: done of total units (total 0 when
// the run does not know it in advance) and what is being done, e.g.
// "link sims" or "member 2 epoch 7: train 0.0311 val 0.0342". Runs call it
// from one goroutine at a time.
type Reporter interface {
	Progress(done, total int, what string)
}

// Func makes a function a Reporter.
type Func func(done, total int, what string)

// Progress calls f.
func (f Func) Progress(done, total int, what string) { f(done, total, what) }

// Report calls r.Progress unless r is nil, so that a run given no
// Reporter reports nothing.
func Report(r Reporter, done, total int, what string) {
	if r != nil {
		r.Progress(done, total, what)
	}
}

// Weighed is a Reporter that also takes how much work the units done
// and all the units hold (a sweep's flows, say), so that its ETA does
// not take a unit of a million flows for one of a thousand.
type Weighed interface {
	Reporter
	ProgressWork(done, total int, work, totalWork float64, what string)
}

// ReportWork reports done of total units holding work of totalWork to r:
// through ProgressWork if r is Weighed, else as Report does.
func ReportWork(r Reporter, done, total int, work, totalWork float64, what string) {
	if w, ok := r.(Weighed); ok {
		w.ProgressWork(done, total, work, totalWork, what)
		return
	}
	Report(r, done, total, what)
}

// Line renders reports as one line. On a terminal it redraws a bar with
// the ETA in place; elsewhere (notebooks, CI logs, files) it writes plain
// lines such as "sweep 12/48 done, ETA 3m10s", at most one per Interval
// plus the last, so logs stay short. The ETA extrapolates the rate since
// the first report, of the work done if the reports say how much
// (ProgressWork), else of the units: units already done then (a resumed
// run's) took no time. A nil *Line reports nothing.
type Line struct {
	// Label starts every report ("sweep").
	Label string
	// Interval is the least time between plain lines (default 10 s).
	Interval time.Duration

	w        io.Writer
	terminal bool
	now      func() time.Time // a clock, replaceable in tests

	mu          sync.Mutex
	started     bool
	done0       float64 // units (or work) done at the first report
	start, last time.Time
}

// NewLine reports to w; it draws a bar when w is a terminal.
func NewLine(w io.Writer, label string) *Line {
	l := &Line{Label: label, Interval: 10 * time.Second, w: w, now: time.Now}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			l.terminal = true
		}
	}
	return l
}

// Progress renders one report. The first one starts the clock of the ETA;
// the one with done == total is always written and ends a bar's line.
func (l *Line) Progress(done, total int, what string) {
	l.ProgressWork(done, total, float64(done), float64(total), what)
}

// ProgressWork is Progress with the ETA drawn from the work done rather
// than the units.
func (l *Line) ProgressWork(done, total int, work, totalWork float64, what string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	first := !l.started
	if first {
		l.started, l.done0, l.start = true, work, now
	}
	final := total > 0 && done >= total
	counts := fmt.Sprintf("%d/%d", done, total)
	if total <= 0 {
		counts = fmt.Sprint(done)
	}
	if what != "" {
		what = ", " + what
	}
	if l.terminal {
		const width = 30
		fill := 0
		if total > 0 {
			fill = width * min(done, total) / total
		}
		fmt.Fprintf(l.w, "\r%s [%s%s] %s%s, ETA %s   ", l.Label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill),
			counts, what, l.eta(now, work, totalWork, final))
		if final {
			fmt.Fprintln(l.w)
		}
		return
	}
	if !first && !final && now.Sub(l.last) < l.Interval {
		return
	}
	l.last = now
	fmt.Fprintf(l.w, "%s %s done%s, ETA %s\n", l.Label, counts, what, l.eta(now, work, totalWork, final))
}

// eta extrapolates the rate of the work done since the first report to
// the work left.
func (l *Line) eta(now time.Time, done, total float64, final bool) string {
	ran, left := done-l.done0, total-done
	switch {
	case final || total > 0 && left <= 0:
		return "0s"
	case total <= 0 || ran <= 0:
		return "?"
	}
	d := time.Duration(float64(now.Sub(l.start)) / ran * left)
	return d.Round(time.Second).String()
}
