package frame

import (
	"path/filepath"
	"testing"
)

// Writing and reading 100k FCT records, the size of a mid-sized scenario.
func BenchmarkRecords(b *testing.B) {
	recs := testRecords(100_000)
	meta := testMeta()
	for _, ext := range exts {
		path := filepath.Join(b.TempDir(), "records"+ext)
		b.Run("write"+ext, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := WriteRecords(path, recs, meta); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(recs)*b.N)/b.Elapsed().Seconds(), "records/s")
		})
		b.Run("read"+ext, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, _, err := ReadRecords(path); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(recs)*b.N)/b.Elapsed().Seconds(), "records/s")
		})
	}
}
