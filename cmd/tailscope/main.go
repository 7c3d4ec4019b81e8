// Command tailscope generates scenarios, runs FCT estimators and writes
// their results as Parquet frames. Every subcommand is a thin shell over the
// library calls the notebooks make.
//
// Usage:
//
//	tailscope <command> [flags]
//
// Run "tailscope help" for the list of commands.
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
)

// command is one subcommand; each lives in its own file and registers
// itself from init.
type command struct {
	summary string
	run     func(args []string) error
}

var commands = map[string]command{}

func register(name, summary string, run func(args []string) error) {
	if _, dup := commands[name]; dup {
		panic("tailscope: command registered twice: " + name)
	}
	commands[name] = command{summary, run}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: tailscope <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(os.Stderr, "\nRun \"tailscope <command> -h\" for a command's flags.")
}

func main() {
	if len(os.Args) < 2 || os.Args[1] == "help" || os.Args[1] == "-h" || os.Args[1] == "--help" {
		usage()
		if len(os.Args) < 2 {
			os.Exit(2)
		}
		return
	}
	c, ok := commands[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "tailscope: unknown command %q\n\n", os.Args[1])
		usage()
		os.Exit(2)
	}
	if err := c.run(os.Args[2:]); err != nil {
		removeEmptyCreated()
		if err == flag.ErrHelp {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "tailscope "+os.Args[1]+":", err)
		os.Exit(1)
	}
}
