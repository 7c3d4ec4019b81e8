package pfs

import (
	"path/filepath"
	"testing"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/metrics"
)

// ReadChunk on a well-formed records frame with any chunk metadata returns
// a result with one position per record, or an error.
func FuzzReadChunk(f *testing.F) {
	f.Add(`{"index":1,"pos":[0,2],"hosts":[3],"bits":[[1,2]],"bin_ns":1000,"wall_s":0.5}`, uint8(2))
	f.Add(`{"pos":[]}`, uint8(0))
	f.Add(`{"pos":[0],"bits":[[1e400]]}`, uint8(1))
	f.Add(`null`, uint8(3))
	f.Fuzz(func(t *testing.T, extra string, n uint8) {
		recs := make([]metrics.Record, n)
		for i := range recs {
			recs[i] = metrics.Record{FlowID: i, Size: 1000, FCT: 2000, Ideal: 1000, Slowdown: 2}
		}
		p := filepath.Join(t.TempDir(), "chunk.parquet")
		if err := frame.WriteRecords(p, recs, frame.Meta{Extra: map[string]string{ExtraKey: extra}}); err != nil {
			return
		}
		r, err := ReadChunk(p)
		if err == nil && (len(r.Pos) != int(n) || len(r.Records) != int(n)) {
			t.Fatalf("%d records read with %d positions and %d records", n, len(r.Pos), len(r.Records))
		}
	})
}
