package main

import (
	"flag"
	"fmt"
	"runtime"

	"github.com/tailscope/tailscope/lib/frame"
)

func init() {
	register("version", "print the toolkit version and the commit it was built from (\"+dirty\": with uncommitted changes)", runVersion)
}

func runVersion(args []string) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Printf("tailscope %s (%s)\n", frame.Build(), runtime.Version())
	return nil
}
