// Command samerecords checks that two record frames (Parquet or Arrow IPC,
// as 'tailscope run' writes them) hold the same FCT records, row for row:
// the check that an optimization left an estimator's results unchanged.
// Frame metadata (wall time, options, extra figures) may differ; it prints
// both frames' wall time and extra figures, one line each, so that a
// benchmark script can read them. It exits 0 when the records are
// identical and 1, naming the first difference, when not.
//
// Usage:
//
//	go run ./tools/samerecords OLD.parquet NEW.parquet
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/tailscope/tailscope/lib/frame"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: samerecords OLD NEW")
		os.Exit(2)
	}
	if err := same(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "samerecords:", err)
		os.Exit(1)
	}
}

func same(a, b string) error {
	ra, ma, err := frame.ReadRecords(a)
	if err != nil {
		return err
	}
	rb, mb, err := frame.ReadRecords(b)
	if err != nil {
		return err
	}
	fmt.Printf("old: %s\nnew: %s\n", figures(ma), figures(mb))
	if len(ra) != len(rb) {
		return fmt.Errorf("%s has %d records, %s %d", a, len(ra), b, len(rb))
	}
	for i := range ra {
		if ra[i] != rb[i] {
			return fmt.Errorf("record %d differs: %+v against %+v", i, ra[i], rb[i])
		}
	}
	fmt.Printf("%d records identical\n", len(ra))
	return nil
}

// figures is a frame's wall time and extra figures as key=value pairs.
func figures(m frame.Meta) string {
	kv := []string{fmt.Sprintf("wall_s=%.3f", m.WallSeconds)}
	for k, v := range m.Extra {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv[1:])
	return strings.Join(kv, " ")
}
