package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/tailscope/tailscope/lib/ns3"
)

func init() {
	register("ns3", "check the ns-3 installation and build the ns-3 scenario program", runNS3)
}

func runNS3(args []string) error {
	fs := flag.NewFlagSet("ns3", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: tailscope ns3 check|build [-program path]\n\n"+
			"check: report whether ns-3 (libns3-dev) is installed\n"+
			"build: build the scenario program (run scenarios with `tailscope run -estimator ns3`)")
		fs.PrintDefaults()
	}
	prog := fs.String("program", ns3.DefaultProgram(), "where to build the scenario program")
	if len(args) == 0 {
		fs.Usage()
		return errors.New("ns3: name a subcommand: check or build")
	}
	sub := args[0]
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if err := ns3.Available(); err != nil {
		return err
	}
	v, err := ns3.Version()
	if err != nil {
		return err
	}
	switch sub {
	case "check":
		fmt.Printf("ns-3 %s is installed\n", v)
	case "build":
		built, err := ns3.Build(*prog)
		if err != nil {
			return err
		}
		state := "up to date"
		if built {
			state = "built"
		}
		fmt.Fprintf(os.Stderr, "ns3: %s (ns-3 %s): %s\n", *prog, v, state)
	default:
		fs.Usage()
		return fmt.Errorf("ns3: unknown subcommand %q (want check or build)", sub)
	}
	return nil
}
