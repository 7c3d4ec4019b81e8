package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
)

// Numeric flags are defined with their accepted range, which the flag's
// help shows and a value outside it is refused with, when the flag is
// parsed: a typo or a NaN never runs with a default instead.

// rangedInt is an integer flag accepting lo..hi.
type rangedInt[T int | int64] struct {
	p      *T
	lo, hi T
}

func (f *rangedInt[T]) String() string {
	if f.p == nil {
		return ""
	}
	return strconv.FormatInt(int64(*f.p), 10)
}

func (f *rangedInt[T]) Set(s string) error {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || T(v) < f.lo || T(v) > f.hi || int64(T(v)) != v {
		return fmt.Errorf("want %s", f.text())
	}
	*f.p = T(v)
	return nil
}

func (f *rangedInt[T]) text() string {
	if int64(f.hi) == math.MaxInt64 {
		return fmt.Sprintf("an integer >= %d", f.lo)
	}
	return fmt.Sprintf("an integer from %d to %d", f.lo, f.hi)
}

// intFlag defines an int flag accepting lo..hi.
func intFlag(fs *flag.FlagSet, name string, def, lo, hi int, usage string) *int {
	return defineInt(fs, name, def, lo, hi, usage)
}

// int64Flag defines an int64 flag accepting lo..hi.
func int64Flag(fs *flag.FlagSet, name string, def, lo, hi int64, usage string) *int64 {
	return defineInt(fs, name, def, lo, hi, usage)
}

func defineInt[T int | int64](fs *flag.FlagSet, name string, def, lo, hi T, usage string) *T {
	p := new(T)
	*p = def
	f := &rangedInt[T]{p, lo, hi}
	fs.Var(f, name, usage+" ["+f.text()+"]")
	return p
}

// span is the range of a float flag: lo to hi, each end included unless
// open. With zeroDefault, 0 is accepted too and means "the default".
type span struct {
	lo, hi         float64
	loOpen, hiOpen bool
	zeroDefault    bool
}

var (
	unitOpen    = span{lo: 0, hi: 1, loOpen: true, hiOpen: true} // (0, 1)
	positive    = span{lo: 0, hi: math.Inf(1), loOpen: true, hiOpen: true}
	nonNegative = span{lo: 0, hi: math.Inf(1), hiOpen: true}
)

func (s span) contains(v float64) bool {
	if s.zeroDefault && v == 0 {
		return true
	}
	return (v > s.lo || !s.loOpen && v == s.lo) && (v < s.hi || !s.hiOpen && v == s.hi)
}

func (s span) String() string {
	var t string
	switch {
	case math.IsInf(s.hi, 1) && s.loOpen:
		t = fmt.Sprintf("a number > %g", s.lo)
	case math.IsInf(s.hi, 1):
		t = fmt.Sprintf("a number >= %g", s.lo)
	default:
		l, r := "[", "]"
		if s.loOpen {
			l = "("
		}
		if s.hiOpen {
			r = ")"
		}
		t = fmt.Sprintf("a number in %s%g, %g%s", l, s.lo, s.hi, r)
	}
	if s.zeroDefault {
		t += ", or 0 for the default"
	}
	return t
}

// rangedFloat is a float64 flag accepting the numbers in a span.
type rangedFloat struct {
	p *float64
	s span
}

func (f *rangedFloat) String() string {
	if f.p == nil {
		return ""
	}
	return strconv.FormatFloat(*f.p, 'g', -1, 64)
}

func (f *rangedFloat) Set(v string) error {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || !f.s.contains(x) {
		return fmt.Errorf("want %s", f.s)
	}
	*f.p = x
	return nil
}

// floatFlag defines a float64 flag accepting the numbers in s.
func floatFlag(fs *flag.FlagSet, name string, def float64, s span, usage string) *float64 {
	p := &def
	fs.Var(&rangedFloat{p, s}, name, usage+" ["+s.String()+"]")
	return p
}

// parseFlags parses a command's flags and refuses leftover arguments: the
// flag package stops at the first one, so "tailscope dscale run --alphas 0"
// would otherwise run with every flag after "run" silently ignored.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q: %s takes flags only (flags after it would be ignored)", fs.Arg(0), fs.Name())
	}
	return nil
}
