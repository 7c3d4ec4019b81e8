package frame_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
)

// An estimator's records go to Parquet with their provenance; any Parquet
// reader can load them, and ReadRecords gets both back.
func ExampleWriteRecords() {
	dir, err := os.MkdirTemp("", "frame-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "records.parquet")

	recs := []metrics.Record{
		{FlowID: 0, Src: 1, Dst: 5, Size: 1000, Start: 0, FCT: 12_000, Ideal: 4_000, Slowdown: 3},
		{FlowID: 1, Src: 2, Dst: 6, Size: 50_000, Start: 300, FCT: 61_000, Ideal: 61_000, Slowdown: 1},
	}
	meta := frame.Meta{ScenarioID: "ws-40", Estimator: "parsimon", Spec: `{"load":0.4}`, Seed: 7}
	if err := frame.WriteRecords(path, recs, meta); err != nil {
		log.Fatal(err)
	}

	got, gotMeta, err := frame.ReadRecords(path)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(gotMeta.ScenarioID, gotMeta.Estimator, gotMeta.Seed, gotMeta.Version == frame.Version)
	for _, r := range got {
		fmt.Println(r.FlowID, r.Size, r.FCT, r.Slowdown)
	}

	// The same file as a generic table, e.g. for a notebook cell.
	t, err := frame.ReadTable(path)
	if err != nil {
		log.Fatal(err)
	}
	fct, err := t.Int64s("fct_ns")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.Len(), "rows; fct_ns:", fct)
	// Output:
	// ws-40 parsimon 7 true
	// 0 1000 12000 3
	// 1 50000 61000 1
	// 2 rows; fct_ns: [12000 61000]
}
