package experiment

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Progress reports how far a sweep is. On a terminal it redraws one bar
// with the ETA in place; elsewhere (notebooks, CI logs, files) it writes
// plain lines such as "sweep 12/48 done, ETA 3m10s", at most one per
// Interval plus a final one, so logs stay short. A nil *Progress reports
// nothing.
type Progress struct {
	// Label starts every report ("sweep").
	Label string
	// Interval is the least time between plain lines (default 10 s).
	Interval time.Duration

	w        io.Writer
	terminal bool
	now      func() time.Time // a clock, replaceable in tests

	mu                  sync.Mutex
	total, done, failed int
	skipped             int
	start, last         time.Time
}

// NewProgress reports to w; it draws a bar when w is a terminal.
func NewProgress(w io.Writer, label string) *Progress {
	p := &Progress{Label: label, Interval: 10 * time.Second, w: w, now: time.Now}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.terminal = true
		}
	}
	return p
}

// Start begins a run of total tasks, skipped of which were already done
// (they count as done but not toward the ETA).
func (p *Progress) Start(total, skipped int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.done, p.skipped, p.failed = total, skipped, skipped, 0
	p.start, p.last = p.now(), time.Time{}
	if skipped > 0 {
		fmt.Fprintf(p.w, "%s: %d/%d already done, skipped\n", p.Label, skipped, total)
	}
	p.report(false)
}

// Step records one finished task (failed when err is not nil).
func (p *Progress) Step(err error) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if err != nil {
		p.failed++
	}
	p.report(p.done == p.total)
}

// Finish ends the report (a newline after a bar).
func (p *Progress) Finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.terminal {
		fmt.Fprintln(p.w)
	}
}

// eta extrapolates the rate of the tasks run so far (skipped ones took no
// time) to the tasks left.
func (p *Progress) eta(now time.Time) string {
	ran, left := p.done-p.skipped, p.total-p.done
	if left == 0 {
		return "0s"
	}
	if ran == 0 {
		return "?"
	}
	d := time.Duration(float64(now.Sub(p.start)) / float64(ran) * float64(left))
	return d.Round(time.Second).String()
}

func (p *Progress) report(final bool) {
	now := p.now()
	failed := ""
	if p.failed > 0 {
		failed = fmt.Sprintf(", %d failed", p.failed)
	}
	if p.terminal {
		const width = 30
		fill := 0
		if p.total > 0 {
			fill = width * p.done / p.total
		}
		fmt.Fprintf(p.w, "\r%s [%s%s] %d/%d%s, ETA %s   ", p.Label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill),
			p.done, p.total, failed, p.eta(now))
		return
	}
	if !final && !p.last.IsZero() && now.Sub(p.last) < p.Interval {
		return
	}
	p.last = now
	fmt.Fprintf(p.w, "%s %d/%d done%s, ETA %s\n", p.Label, p.done, p.total, failed, p.eta(now))
}
