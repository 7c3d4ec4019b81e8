package main

import (
	"bufio"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var (
	cliHeading = regexp.MustCompile(`^#{3,4} ([a-z0-9-]+(?: [a-z0-9-]+)?)$`)
	cliFlag    = regexp.MustCompile(`^  -([a-z0-9-]+)`)
)

// cliDocFlags reads the command line reference: for each section titled
// with a command (and verb), the flags its code block lists.
func cliDocFlags(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open("../../docs/reference/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc := map[string][]string{}
	section, inCode := "", false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := cliHeading.FindStringSubmatch(line); m != nil {
			section = m[1]
			continue
		}
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
			continue
		}
		if m := cliFlag.FindStringSubmatch(line); inCode && m != nil && section != "" {
			doc[section] = append(doc[section], m[1])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return doc
}

// helpFlags runs a command with -h and returns the flags its usage lists.
func helpFlags(t *testing.T, args []string) []string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	done := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(r)
		done <- b
	}()
	runErr := commands[args[0]].run(append(args[1:], "-h"))
	os.Stderr = stderr
	w.Close()
	out := <-done
	if runErr == nil {
		t.Fatalf("tailscope %s -h returned no error", strings.Join(args, " "))
	}
	var flags []string
	for _, line := range strings.Split(string(out), "\n") {
		if m := cliFlag.FindStringSubmatch(line); m != nil {
			flags = append(flags, m[1])
		}
	}
	return flags
}

// The command line reference lists every flag each command takes, and no
// flag it does not: its code blocks are checked against each command's
// own -h.
func TestCLIReferenceFlags(t *testing.T) {
	doc := cliDocFlags(t)
	for section, want := range doc {
		args := strings.Fields(section)
		if _, ok := commands[args[0]]; !ok {
			t.Errorf("docs/reference/cli.md: section %q names no command", section)
			continue
		}
		t.Run(section, func(t *testing.T) {
			got := helpFlags(t, args)
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("docs/reference/cli.md lists flags\n%v\nbut tailscope %s -h lists\n%v", want, section, got)
			}
		})
	}
	for name := range commands {
		found := false
		for section := range doc {
			found = found || strings.Fields(section)[0] == name
		}
		if !found && name != "version" {
			t.Errorf("docs/reference/cli.md has no flags of command %q", name)
		}
	}
}
