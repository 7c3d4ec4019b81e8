// Package frame stores tailscope's tables (flows, topologies, FCT records and
// any later per-channel or per-scenario table) as Parquet (zstd) or Arrow IPC
// files, with the scenario's provenance in the schema metadata.
//
// A Table is a plain, non-generic column set so that notebooks running in the
// gophernotes interpreter (which cannot import arrow's generic API) can build
// and inspect frames. Typed functions (WriteRecords, ReadFlows, WriteTopology,
// ...) map the toolkit's structs to the column names of ARCHITECTURE.md.
package frame

import (
	"fmt"
	"html"
	"strconv"
	"strings"
)

// Version is the tailscope toolkit version recorded in every frame written
// with an empty Meta.Version.
const Version = "0.2.0"

// Column is one named column. Exactly one of Int64, Float64 and String is
// non-nil; an empty column holds an empty, non-nil slice (the constructors
// take care of that).
type Column struct {
	Name    string
	Int64   []int64
	Float64 []float64
	String  []string
}

// Int64Column returns an int64 column holding v (not copied).
func Int64Column(name string, v []int64) Column {
	if v == nil {
		v = []int64{}
	}
	return Column{Name: name, Int64: v}
}

// Float64Column returns a float64 column holding v (not copied).
func Float64Column(name string, v []float64) Column {
	if v == nil {
		v = []float64{}
	}
	return Column{Name: name, Float64: v}
}

// StringColumn returns a string column holding v (not copied).
func StringColumn(name string, v []string) Column {
	if v == nil {
		v = []string{}
	}
	return Column{Name: name, String: v}
}

// Type names the column's value type: "int64", "float64" or "string", or
// "invalid" when not exactly one slice is set.
func (c *Column) Type() string {
	n := 0
	t := "invalid"
	if c.Int64 != nil {
		n, t = n+1, "int64"
	}
	if c.Float64 != nil {
		n, t = n+1, "float64"
	}
	if c.String != nil {
		n, t = n+1, "string"
	}
	if n != 1 {
		return "invalid"
	}
	return t
}

// Len is the number of values in the column.
func (c *Column) Len() int {
	return max(len(c.Int64), len(c.Float64), len(c.String))
}

// cell formats row i for display.
func (c *Column) cell(i int) string {
	switch {
	case c.Int64 != nil:
		return strconv.FormatInt(c.Int64[i], 10)
	case c.Float64 != nil:
		return strconv.FormatFloat(c.Float64[i], 'g', -1, 64)
	}
	return c.String[i]
}

// Table is a set of equally long named columns plus provenance metadata.
type Table struct {
	Columns []Column
	Meta    Meta
}

// Len is the number of rows (0 for a table without columns).
func (t *Table) Len() int {
	if len(t.Columns) == 0 {
		return 0
	}
	return t.Columns[0].Len()
}

// Check reports the first structural problem: no columns, an empty or
// repeated name, a column with zero or several value slices, or columns of
// different lengths.
func (t *Table) Check() error {
	if err := t.check(); err != nil {
		return fmt.Errorf("frame: %w", err)
	}
	return nil
}

// check is Check without the package prefix, for WriteTable to name the
// file instead.
func (t *Table) check() error {
	if len(t.Columns) == 0 {
		return fmt.Errorf("table has no columns")
	}
	seen := make(map[string]bool, len(t.Columns))
	for i := range t.Columns {
		c := &t.Columns[i]
		switch {
		case c.Name == "":
			return fmt.Errorf("column %d has no name", i)
		case seen[c.Name]:
			return fmt.Errorf("two columns are named %q", c.Name)
		case c.Type() == "invalid":
			return fmt.Errorf("column %q must set exactly one of Int64, Float64, String", c.Name)
		case c.Len() != t.Columns[0].Len():
			return fmt.Errorf("column %q has %d rows but column %q has %d",
				c.Name, c.Len(), t.Columns[0].Name, t.Columns[0].Len())
		}
		seen[c.Name] = true
	}
	return nil
}

// Column returns the column called name, or an error listing the columns
// the table does have.
func (t *Table) Column(name string) (*Column, error) {
	c, err := t.column(name)
	if err != nil {
		return nil, fmt.Errorf("frame: %w", err)
	}
	return c, nil
}

// column and typed return errors without the package prefix, so that
// callers can put the file name in front.
func (t *Table) column(name string) (*Column, error) {
	for i := range t.Columns {
		if t.Columns[i].Name == name {
			return &t.Columns[i], nil
		}
	}
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return nil, fmt.Errorf("no column %q (columns: %s)", name, strings.Join(names, ", "))
}

func (t *Table) typed(name, want string) (*Column, error) {
	c, err := t.column(name)
	if err != nil {
		return nil, err
	}
	if got := c.Type(); got != want {
		return nil, fmt.Errorf("column %q is %s, want %s", name, got, want)
	}
	return c, nil
}

// Int64s returns the values of int64 column name (shared, not copied).
func (t *Table) Int64s(name string) ([]int64, error) {
	c, err := t.typed(name, "int64")
	if err != nil {
		return nil, fmt.Errorf("frame: %w", err)
	}
	return c.Int64, nil
}

// Float64s returns the values of float64 column name (shared, not copied).
func (t *Table) Float64s(name string) ([]float64, error) {
	c, err := t.typed(name, "float64")
	if err != nil {
		return nil, fmt.Errorf("frame: %w", err)
	}
	return c.Float64, nil
}

// Strings returns the values of string column name (shared, not copied).
func (t *Table) Strings(name string) ([]string, error) {
	c, err := t.typed(name, "string")
	if err != nil {
		return nil, fmt.Errorf("frame: %w", err)
	}
	return c.String, nil
}

// HTML renders the first n rows (all rows if n < 0) as an HTML table for a
// notebook cell; a caption says how many rows were left out. A malformed
// table renders as its Check error, so a cell shows the problem instead of
// panicking.
func (t *Table) HTML(n int) string {
	if err := t.Check(); err != nil {
		return "<p>" + html.EscapeString(err.Error()) + "</p>\n"
	}
	rows := t.Len()
	if n < 0 || n > rows {
		n = rows
	}
	var b strings.Builder
	b.WriteString("<table>\n")
	if n < rows {
		fmt.Fprintf(&b, "<caption>first %d of %d rows</caption>\n", n, rows)
	}
	b.WriteString("<thead><tr>")
	for i := range t.Columns {
		b.WriteString("<th>" + html.EscapeString(t.Columns[i].Name) + "</th>")
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for r := 0; r < n; r++ {
		b.WriteString("<tr>")
		for i := range t.Columns {
			b.WriteString("<td>" + html.EscapeString(t.Columns[i].cell(r)) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
	return b.String()
}
