// Command framedump prints tailscope frames as Go's frame package reads them,
// as JSON, for readers in other languages to compare against
// (python/tests/test_frames.py compares pyarrow, pandas and DuckDB with it).
//
// Usage:
//
//	framedump FILE...
//
// Output: one JSON object per line and file:
//
//	{"path": ..., "meta": {frame.Meta fields}, "columns": [{"name", "type", "values"}...]}
//
// int64 values are JSON integers (exact: the encoder prints them in full);
// float64 values are JSON numbers in the shortest form that reads back to the
// same float64, and NaN and the infinities, which JSON cannot hold, the
// strings "NaN", "Infinity" and "-Infinity".
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/tailscope/tailscope/lib/frame"
)

type column struct {
	Name   string `json:"name"`
	Type   string `json:"type"`
	Values []any  `json:"values"`
}

type dump struct {
	Path    string     `json:"path"`
	Meta    frame.Meta `json:"meta"`
	Columns []column   `json:"columns"`
}

// float returns v as a JSON-encodable value.
func float(v float64) any {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return v
}

// write reads the frame at path and writes its dump line to w.
func write(w io.Writer, path string) error {
	t, err := frame.ReadTable(path)
	if err != nil {
		return err
	}
	d := dump{Path: path, Meta: t.Meta}
	for _, c := range t.Columns {
		vals := make([]any, 0, c.Len())
		switch c.Type() {
		case "int64":
			for _, v := range c.Int64 {
				vals = append(vals, v)
			}
		case "float64":
			for _, v := range c.Float64 {
				vals = append(vals, float(v))
			}
		case "string":
			for _, v := range c.String {
				vals = append(vals, v)
			}
		default:
			return fmt.Errorf("%s: column %q has no valid type", path, c.Name)
		}
		d.Columns = append(d.Columns, column{c.Name, c.Type(), vals})
	}
	b, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: framedump FILE...")
		os.Exit(2)
	}
	for _, p := range os.Args[1:] {
		if err := write(os.Stdout, p); err != nil {
			fmt.Fprintln(os.Stderr, "framedump:", err)
			os.Exit(1)
		}
	}
}
