package nb

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tailscope/tailscope/lib/progress"
)

// Line shows progress as one line redrawn in place: every complete line
// written to it replaces the one shown before ("\r", the new text, blanks
// over what is left of a longer old one), which JupyterLab, nbconvert's
// output and terminals all render as a single updating line. The library
// reports progress as plain lines; a Line turns any of those reporters
// into one line of a cell's output. A line containing "warning:" is not
// progress: it stays, above the progress line, so that a warning written
// to a progress writer (Parsimon's about sparse links) is not overwritten.
type Line struct {
	// Prefix starts every line shown, e.g. "parsimon (2/3): ".
	Prefix string

	w     io.Writer
	buf   []byte
	width int // length of the line shown, 0 if none
}

// NewLine returns a Line drawing on w (a cell's os.Stdout).
func NewLine(w io.Writer) *Line { return &Line{w: w} }

// Write implements io.Writer: complete lines are shown, a partial one is
// kept until its newline.
func (l *Line) Write(p []byte) (int, error) {
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		s := string(bytes.TrimRight(l.buf[:i], "\r"))
		l.buf = l.buf[i+1:]
		if strings.Contains(s, "warning:") {
			l.keep(s)
			continue
		}
		l.Show(s)
	}
	return len(p), nil
}

// Reporter returns a progress.Reporter drawing on l: the library's progress
// reports (progress.Line's plain lines, at most a few a second) become
// the one updating line, each starting with label.
func (l *Line) Reporter(label string) progress.Reporter {
	r := progress.NewLine(l, label)
	r.Interval = 250 * time.Millisecond
	return r
}

// Show replaces the line shown with Prefix and s.
func (l *Line) Show(s string) {
	s = l.Prefix + s
	pad := max(0, l.width-len(s))
	fmt.Fprintf(l.w, "\r%s%s", s, strings.Repeat(" ", pad))
	l.width = len(s)
}

// keep shows s on a line of its own that later lines do not replace.
func (l *Line) keep(s string) {
	pad := max(0, l.width-len(s))
	fmt.Fprintf(l.w, "\r%s%s\n", s, strings.Repeat(" ", pad))
	l.width = 0
}

// Close ends the line, leaving its last text in place.
func (l *Line) Close() error {
	if len(l.buf) > 0 {
		l.Show(string(l.buf))
		l.buf = nil
	}
	if l.width > 0 {
		fmt.Fprintln(l.w)
		l.width = 0
	}
	return nil
}
