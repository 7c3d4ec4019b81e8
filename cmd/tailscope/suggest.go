package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/tailscope/tailscope/lib/estimator"
)

// Refusals that know what would be accepted end in whole commands to run
// instead, built from the command's own arguments, so that each works as
// printed (TestSuggestedCommandsRun runs them).

// suggestOptions turns an estimator.OptionsRefusal in err into an error
// ending in the commands to run instead: cmd's args with --options
// replaced by given merged with each alternative. Other errors pass
// through.
func suggestOptions(cmd string, args []string, given map[string]string, err error) error {
	var r *estimator.OptionsRefusal
	if !errors.As(err, &r) || len(r.Alternatives) == 0 {
		return err
	}
	var cmds []string
	for _, alt := range r.Alternatives {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(alt), &m) != nil {
			return err
		}
		merged := map[string]string{}
		for k, v := range given {
			merged[k] = v
		}
		for k, v := range m {
			merged[k] = string(v)
		}
		cmds = append(cmds, commandLine(cmd, withFlag(args, "options", estimator.KeyedOptions(merged))))
	}
	return fmt.Errorf("%w\nrun instead:\n  %s", err, strings.Join(cmds, "\n  "))
}

// suggestFlag is err ending in the command to run instead: cmd's args
// with flag name set to value (name "": args as they are).
func suggestFlag(cmd string, args []string, name, value string, err error) error {
	if name != "" {
		args = withFlag(args, name, value)
	}
	return fmt.Errorf("%w\nrun instead:\n  %s", err, commandLine(cmd, args))
}

// withoutFlag is args with every setting of the string flag name removed.
func withoutFlag(args []string, name string) []string {
	w := withFlag(args, name, "")
	return w[:len(w)-2]
}

// withFlag is args with every setting of the string flag name removed
// and "--name value" appended.
func withFlag(args []string, name, value string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		bare := strings.TrimLeft(a, "-")
		if strings.HasPrefix(a, "-") && bare == name {
			i++ // and its value
			continue
		}
		if strings.HasPrefix(a, "-") && strings.HasPrefix(bare, name+"=") {
			continue
		}
		out = append(out, a)
	}
	return append(out, "--"+name, value)
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./,:=@%+-]+$`)

// commandLine is the tailscope command cmd with args, quoted for a POSIX
// shell.
func commandLine(cmd string, args []string) string {
	parts := []string{"tailscope", cmd}
	for _, a := range args {
		if shellSafe.MatchString(a) {
			parts = append(parts, a)
		} else {
			parts = append(parts, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
		}
	}
	return strings.Join(parts, " ")
}
