// Command cmprecords checks that two FCT record frames hold the same
// records, value for value (slowdowns bit for bit), and the same
// estimator counts in their metadata (events, packet_hops, ...): the
// check an optimization of an estimator must pass. Timing metadata is
// ignored. It exits with status 1 at the first difference.
//
//	go run ./scripts/bench/cmprecords old.parquet new.parquet
package main

import (
	"fmt"
	"os"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/scripts/bench/internal/records"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: cmprecords a.parquet b.parquet")
		os.Exit(2)
	}
	if err := compare(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "cmprecords:", err)
		os.Exit(1)
	}
}

func compare(a, b string) error {
	ra, ma, err := frame.ReadRecords(a)
	if err != nil {
		return err
	}
	rb, mb, err := frame.ReadRecords(b)
	if err != nil {
		return err
	}
	if err := records.Same(ra, rb); err != nil {
		return err
	}
	for k, v := range ma.Extra {
		if w, ok := mb.Extra[k]; ok && w != v {
			return fmt.Errorf("metadata %s: %s against %s", k, v, w)
		}
	}
	if ma.Spec != mb.Spec || ma.Seed != mb.Seed || ma.Options != mb.Options {
		return fmt.Errorf("frames are of different runs (spec, seed or options differ)")
	}
	fmt.Printf("%d records identical; metadata counts agree\n", len(ra))
	return nil
}
