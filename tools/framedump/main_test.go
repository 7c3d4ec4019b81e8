package main

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/tailscope/tailscope/lib/frame"
)

// TestWrite writes frames in both formats with values JSON cannot hold
// directly, dumps them and decodes the dump.
func TestWrite(t *testing.T) {
	in := &frame.Table{
		Columns: []frame.Column{
			frame.Int64Column("i", []int64{math.MaxInt64, -1, 1<<53 + 1}),
			frame.Float64Column("f", []float64{math.NaN(), math.Inf(1), 0.1}),
			frame.StringColumn("s", []string{"", "a\"b", "ü"}),
		},
		Meta: frame.Meta{ScenarioID: "x", Seed: math.MaxUint64, Extra: map[string]string{"k": "v"}},
	}
	for _, name := range []string{"t.parquet", "t.arrow"} {
		path := filepath.Join(t.TempDir(), name)
		if err := frame.WriteTable(path, in); err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := write(&buf, path); err != nil {
			t.Fatal(err)
		}
		dec := json.NewDecoder(&buf)
		dec.UseNumber()
		var got struct {
			Meta    frame.Meta
			Columns []struct {
				Name, Type string
				Values     []any
			}
		}
		if err := dec.Decode(&got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.Meta.Seed != in.Meta.Seed || got.Meta.ScenarioID != "x" || got.Meta.Extra["k"] != "v" {
			t.Errorf("%s: meta %+v, want %+v", name, got.Meta, in.Meta)
		}
		want := [][]string{
			{"9223372036854775807", "-1", "9007199254740993"},
			{"NaN", "Infinity", "0.1"},
			{"", "a\"b", "ü"},
		}
		for j, c := range got.Columns {
			if c.Name != in.Columns[j].Name || c.Type != in.Columns[j].Type() {
				t.Errorf("%s: column %d is %s %s, want %s %s", name, j, c.Name, c.Type, in.Columns[j].Name, in.Columns[j].Type())
			}
			for i, v := range c.Values {
				var s string
				switch v := v.(type) {
				case json.Number:
					s = v.String()
				case string:
					s = v
				}
				if s != want[j][i] {
					t.Errorf("%s: %s[%d] = %v, want %s", name, c.Name, i, v, want[j][i])
				}
			}
		}
	}
}
