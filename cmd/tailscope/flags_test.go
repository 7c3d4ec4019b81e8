package main

import (
	"flag"
	"io"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tailscope/tailscope/lib/experiment"
)

func TestRangedFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // error substring, "" for accepted
	}{
		{[]string{"-flows", "0"}, ""},
		{[]string{"-flows", "20000"}, ""},
		{[]string{"-flows", "-5"}, `invalid value "-5" for flag -flows: want an integer >= 0`},
		{[]string{"-flows", "1e3"}, "want an integer >= 0"},
		{[]string{"-members", "65"}, "want an integer from 1 to 64"},
		{[]string{"-members", "64"}, ""},
		{[]string{"-seed", "-2"}, "want an integer >= -1"},
		{[]string{"-seed", "9223372036854775807"}, ""},
		{[]string{"-load", "0"}, ""},
		{[]string{"-load", "0.3"}, ""},
		{[]string{"-load", "NaN"}, "want a number in (0, 1), or 0 for the default"},
		{[]string{"-load", "-0.1"}, "want a number in (0, 1), or 0 for the default"},
		{[]string{"-load", "1"}, "want a number in (0, 1)"},
		{[]string{"-percentile", "100"}, ""},
		{[]string{"-percentile", "120"}, "want a number in (0, 100]"},
		{[]string{"-percentile", "0"}, "want a number in (0, 100]"},
		{[]string{"-lr", "+Inf"}, "want a number > 0"},
		{[]string{"-min-queue-ns", "0"}, ""},
		{[]string{"-min-queue-ns", "-1"}, "want a number >= 0"},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		flows := intFlag(fs, "flows", 7, 0, math.MaxInt, "flows")
		intFlag(fs, "members", 3, 1, 64, "members")
		int64Flag(fs, "seed", -1, -1, math.MaxInt64, "seed")
		load := floatFlag(fs, "load", 0.25, span{lo: 0, hi: 1, loOpen: true, hiOpen: true, zeroDefault: true}, "load")
		floatFlag(fs, "percentile", 99, span{lo: 0, hi: 100, loOpen: true}, "percentile")
		floatFlag(fs, "lr", 1e-3, positive, "lr")
		floatFlag(fs, "min-queue-ns", 0, nonNegative, "queue")
		if *flows != 7 || *load != 0.25 {
			t.Fatalf("defaults %d, %g; want 7, 0.25", *flows, *load)
		}
		err := fs.Parse(c.args)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}

func TestFloatsList(t *testing.T) {
	if v, err := floats("0.3, 0.6", unitOpen); err != nil || len(v) != 2 || v[1] != 0.6 {
		t.Errorf("floats: %v, %v", v, err)
	}
	for _, s := range []string{"0.3,1.5", "x", "NaN"} {
		if _, err := floats(s, unitOpen); err == nil || !strings.Contains(err.Error(), "want a number in (0, 1)") {
			t.Errorf("floats(%q): %v, want a range error", s, err)
		}
	}
}

func TestParseFlagsRefusesArguments(t *testing.T) {
	fs := flag.NewFlagSet("dscale", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	alphas := fs.String("alphas", "0.5", "")
	err := parseFlags(fs, []string{"run", "--alphas", "0"})
	if err == nil || !strings.Contains(err.Error(), `unexpected argument "run"`) {
		t.Errorf("error %v, want one naming the stray argument", err)
	}
	if err := parseFlags(fs, []string{"--alphas", "0.2"}); err != nil || *alphas != "0.2" {
		t.Errorf("flags only: %v, alphas %q", err, *alphas)
	}
}

// Every command that can send work to an executor takes the same flags,
// Slurm's included (pfs run and run had no --partition before).
func TestExecutorFlags(t *testing.T) {
	for _, c := range []struct {
		names []string
		args  []string
		want  experiment.Executor // nil: in-process
		err   string
	}{
		{[]string{"inproc", "local", "slurm"}, nil, nil, ""},
		{[]string{"inproc", "local", "slurm"}, []string{"-executor", "local"}, experiment.Local{Workers: 3}, ""},
		{[]string{"inproc", "local", "slurm"}, []string{"-executor", "slurm", "-partition", "p", "-time-limit", "1m", "-cpus-per-task", "2"},
			experiment.Slurm{Partition: "p", TimeLimit: time.Minute, CPUsPerTask: 2}, ""},
		{[]string{"inproc", "local", "slurm"}, []string{"-executor", "slurm", "-time-limit", "-1s"}, nil, "want a duration >= 0"},
		{[]string{"inproc", "local", "slurm"}, []string{"-executor", "bogus"}, nil, `unknown executor "bogus" (inproc, local, slurm)`},
		{[]string{"local", "slurm"}, []string{"-executor", "inproc"}, nil, `unknown executor "inproc" (local, slurm)`},
		{[]string{"local", "slurm"}, nil, experiment.Local{Workers: 3}, ""},
		{[]string{"", "local", "slurm"}, nil, nil, ""},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		choice := executorFlags(fs, "where tasks run", c.names...)
		if err := parseFlags(fs, c.args); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		got, err := choice.build(3)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v: error %v, want %q", c.args, err, c.err)
			}
		case err != nil:
			t.Errorf("%v: %v", c.args, err)
		case !reflect.DeepEqual(got, c.want):
			t.Errorf("%v: executor %#v, want %#v", c.args, got, c.want)
		}
	}
}

// m3 train refuses flags that do not fit together before it
// reads any data.
func TestM3TrainEncoderFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-encoder", "lstm"}, `bad -encoder "lstm": want pool, hops or pool+hops`},
		{[]string{"-context", "8"}, "-context and -encoder-hidden need -encoder hops or pool+hops"},
		{[]string{"-encoder", "pool", "-encoder-hidden", "16"}, "need -encoder hops"},
		{[]string{"-encoder", "hops", "-encoder-hidden", "16,0"}, `bad -encoder-hidden "16,0"`},
		{[]string{"-encoder", "hops", "-context", "0"}, "want an integer from 1 to 65536"},
		{[]string{"-network-target", "flows"}, `bad -network-target "flows": want network or paths`},
	} {
		if err := runM3Train(append([]string{"-data", t.TempDir()}, c.args...)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}
