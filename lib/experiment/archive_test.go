package experiment

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tailscope/tailscope/lib/frame"
)

// An archive written is read back as it was; a directory without one, or
// none, holds nothing; a rewrite replaces the rows and leaves no
// temporary file behind.
func TestArchive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "archive")
	for _, d := range []string{"", dir} {
		tab, costs, err := ReadArchive(d, "rows.parquet")
		if err != nil || tab != nil || costs != nil {
			t.Errorf("ReadArchive(%q) before writing: %v, %v, %v; want nothing", d, tab, costs, err)
		}
	}
	for _, n := range []int{3, 1} {
		ids := make([]string, n)
		v := make([]float64, n)
		costs := map[string]Cost{}
		for i := range ids {
			ids[i] = string(rune('a' + i))
			v[i] = float64(i) / 2
			costs[ids[i]+"/packetsim"] = Cost{WallSeconds: float64(i + 1), CPUSeconds: float64(i) + 0.5}
		}
		want := &frame.Table{Columns: []frame.Column{frame.StringColumn("scenario_id", ids), frame.Float64Column("error", v)}}
		if err := WriteArchive(dir, "rows.parquet", want, costs); err != nil {
			t.Fatal(err)
		}
		got, gotCosts, err := ReadArchive(dir, "rows.parquet")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Columns, want.Columns) {
			t.Errorf("%d rows: read back %v, want %v", n, got.Columns, want.Columns)
		}
		if !reflect.DeepEqual(gotCosts, costs) {
			t.Errorf("%d rows: costs %v, want %v", n, gotCosts, costs)
		}
		if _, err := os.Stat(filepath.Join(dir, ".tmp-rows.parquet")); !os.IsNotExist(err) {
			t.Errorf("%d rows: a temporary file is left: %v", n, err)
		}
	}
}
