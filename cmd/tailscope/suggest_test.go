package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// shellWords splits a command line as a POSIX shell does, for the
// quoting commandLine uses: bare words and single-quoted strings.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			cur.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '\\':
			// only in '\'' sequences, which this parser reads as ' then \' then '
			inWord = true
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unterminated quote in %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// runLine runs a printed "tailscope <command> ..." line in process.
func runLine(t *testing.T, line string) error {
	t.Helper()
	w := shellWords(t, line)
	if len(w) < 2 || w[0] != "tailscope" {
		t.Fatalf("suggested %q: not a tailscope command", line)
	}
	c, ok := commands[w[1]]
	if !ok {
		t.Fatalf("suggested %q: unknown command %q", line, w[1])
	}
	return c.run(w[2:])
}

// Every refusal that recommends a command recommends one that runs as
// printed.
func TestSuggestedCommandsRun(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string // in the refusal
	}{
		// The default m3 model was trained on DCTCP; the preset is HPCC.
		{"m3 model", []string{"run", "-spec", "whatif-hpcc", "-estimator", "packetsim,m3"}, "not trained on congestion control hpcc"},
		{"flat options, two estimators", []string{"run", "-estimator", "flowsim,packetsim", "--options", `{"window_cap":true}`}, "not keyed by estimator name"},
		{"executor", []string{"run", "-estimator", "flowsim", "--executor", "local"}, "only the Parsimon variants split into tasks"},
		{"sweep, flat options", []string{"sweep", "-n", "1", "-estimators", "flowsim,packetsim", "--options", `{"window_cap":true}`}, "not keyed by estimator name"},
		{"whatif, flat options", []string{"whatif", "-spec", "default", "-param", "k_bytes_per_gbps", "-values", "2000,4000",
			"-estimators", "packetsim,flowsim", "--options", `{"window_cap":true}`}, "not keyed by estimator name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append(c.args[1:], "-flows", "100", "-out", out)
			err := commands[c.args[0]].run(args)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one saying %q", err, c.want)
			}
			_, after, ok := strings.Cut(err.Error(), "run instead:\n")
			if !ok {
				t.Fatalf("refusal %q recommends no command", err)
			}
			for _, line := range strings.Split(after, "\n") {
				line = strings.TrimSpace(line)
				if err := runLine(t, line); err != nil {
					t.Errorf("suggested %q: %v", line, err)
				}
			}
		})
	}
}

func TestWithFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-spec", "x", "--options", "{}"}, `tailscope run -spec x --options '{"a":1}'`},
		{[]string{"-options={}", "-flows", "3"}, `tailscope run -flows 3 --options '{"a":1}'`},
		{[]string{"-out", "a b"}, `tailscope run -out 'a b' --options '{"a":1}'`},
	} {
		got := commandLine("run", withFlag(c.args, "options", `{"a":1}`))
		if got != c.want {
			t.Errorf("%q: got %s, want %s", c.args, got, c.want)
		}
		if w := shellWords(t, got); w[len(w)-1] != `{"a":1}` {
			t.Errorf("%s splits into %q", got, w)
		}
	}
}
