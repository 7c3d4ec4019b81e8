package flowfile

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/tailscope/tailscope/lib/frame"
	"github.com/tailscope/tailscope/lib/workload"
)

// column is one named column of a table file: its values by row index.
type column struct {
	at func(i int) (int64, error)
}

// required and optional columns of the tabular formats.
var (
	requiredCols = []string{ColSrc, ColDst, ColSizeBytes, ColStartNs}
	optionalCols = []string{ColFlowID, ColClass}
)

// fromColumns builds the flows of a table of n rows whose columns are
// looked up by name; have lists the file's column names for errors.
func fromColumns(name string, n int, have []string, get func(col string) (column, bool)) (*File, error) {
	cols := map[string]column{}
	for _, c := range requiredCols {
		col, ok := get(c)
		if !ok {
			return nil, fmt.Errorf("flowfile: %s: missing column %q (the file has %s; required: %s; optional: %s)",
				name, c, quoteList(have), strings.Join(requiredCols, ", "), strings.Join(optionalCols, ", "))
		}
		cols[c] = col
	}
	ff := &File{Name: name, Flows: make([]workload.Flow, n)}
	for _, c := range optionalCols {
		if col, ok := get(c); ok {
			cols[c] = col
			ff.HasID = ff.HasID || c == ColFlowID
		}
	}
	for i := range ff.Flows {
		f := &ff.Flows[i]
		f.ID = i
		for _, c := range append(requiredCols, optionalCols...) {
			col, ok := cols[c]
			if !ok {
				continue
			}
			v, err := col.at(i)
			if err != nil {
				return nil, rowError(name, i+1, c, "%v", err)
			}
			if c != ColSizeBytes && c != ColStartNs && (v < math.MinInt32 || v > math.MaxInt32) {
				return nil, rowError(name, i+1, c, "%d is out of the range of ids", v)
			}
			switch c {
			case ColSrc:
				f.Src = int(v)
			case ColDst:
				f.Dst = int(v)
			case ColSizeBytes:
				f.Size = v
			case ColStartNs:
				f.Start = v
			case ColFlowID:
				f.ID = int(v)
			case ColClass:
				f.Class = int(v)
			}
		}
		if err := checkValues(name, i+1, *f, ColSizeBytes, ColStartNs); err != nil {
			return nil, err
		}
	}
	return ff, nil
}

func quoteList(names []string) string {
	if len(names) == 0 {
		return "no columns"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return "columns " + strings.Join(q, ", ")
}

// parseWhole reads a whole number written as an integer or as a float
// with no fraction ("1000", "1000.0", "1e6"), as pandas writes integer
// columns that held a missing value.
func parseWhole(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		if s == "" {
			return 0, errors.New("empty value")
		}
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return wholeFloat(v, strconv.Quote(s))
}

// wholeFloat converts a float that holds a whole number.
func wholeFloat(v float64, shown string) (int64, error) {
	switch {
	case math.IsNaN(v):
		return 0, fmt.Errorf("%s is not a number (NaN: a missing value?)", shown)
	case math.IsInf(v, 0) || v >= 1<<63 || v < -(1<<63):
		return 0, fmt.Errorf("%s is beyond the range of 64-bit integers", shown)
	case v != math.Trunc(v):
		return 0, fmt.Errorf("%s is not a whole number", shown)
	}
	return int64(v), nil
}

// readFrame reads a Parquet or Arrow file (frame.ReadTable: int64,
// float64 and string columns, as pandas writes them).
func readFrame(path, format string) (*File, error) {
	t, err := frame.ReadTable(path)
	if err != nil {
		// Also a frame with missing values: pandas writes NaN as null.
		return nil, fmt.Errorf("flowfile: %s: cannot read it as a %s file of flows: %w", path, format, err)
	}
	var have []string
	for _, c := range t.Columns {
		have = append(have, c.Name)
	}
	return fromColumns(path, t.Len(), have, func(name string) (column, bool) {
		c, err := t.Column(name)
		if err != nil {
			return column{}, false
		}
		switch {
		case c.Int64 != nil || c.Type() == "int64":
			return column{func(i int) (int64, error) { return c.Int64[i], nil }}, true
		case c.Float64 != nil || c.Type() == "float64":
			return column{func(i int) (int64, error) {
				return wholeFloat(c.Float64[i], strconv.FormatFloat(c.Float64[i], 'g', -1, 64))
			}}, true
		default:
			return column{func(i int) (int64, error) { return parseWhole(c.String[i]) }}, true
		}
	})
}

func readCSVFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("flowfile: %w", err)
	}
	defer f.Close()
	return ReadCSV(path, f)
}

// ReadCSV reads flows as CSV: a header line naming the columns (src,
// dst, size_bytes, start_ns, optional flow_id and class, in any order;
// other columns, such as a pandas index, are ignored), then one flow per
// line. Row numbers in errors count data rows from 1 (row n is line n+1).
func ReadCSV(name string, r io.Reader) (*File, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.ReuseRecord = false
	head, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("flowfile: %s: empty file: a CSV of flows starts with a header line (%s)", name, strings.Join(requiredCols, ","))
	}
	if err != nil {
		return nil, fmt.Errorf("flowfile: %s: not a CSV file: %w", name, err)
	}
	index := map[string]int{}
	for i, h := range head {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		head[i] = h
		if _, dup := index[h]; dup && h != "" {
			return nil, fmt.Errorf("flowfile: %s: column %q appears twice in the header", name, h)
		}
		index[h] = i
	}
	var rows [][]string
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("flowfile: %s row %d (line %d): %v", name, len(rows)+1, pe.StartLine, pe.Err)
			}
			return nil, fmt.Errorf("flowfile: %s: %w", name, err)
		}
		rows = append(rows, rec)
	}
	return fromColumns(name, len(rows), head, func(col string) (column, bool) {
		j, ok := index[col]
		if !ok {
			return column{}, false
		}
		return column{func(i int) (int64, error) { return parseWhole(rows[i][j]) }}, true
	})
}

func readForkFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("flowfile: %w", err)
	}
	defer f.Close()
	return ReadFork(path, f)
}

// Column names of the fork's flow.txt, as its errors name them.
var forkCols = []string{"id", "src", "dst", "pg", "dport", "size", "start_s"}

// ReadFork reads the fork's flow.txt: a first line with the number of
// flows, then one line per flow, "id src dst pg dport size start_s"
// (start in seconds, e.g. 0.000012345) or, as the original HPCC
// simulator writes it, the same without the id (flows are then numbered
// in file order). pg and dport (priority group and port) are not used.
func ReadFork(name string, r io.Reader) (*File, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	line := 0
	next := func() ([]string, bool) {
		for sc.Scan() {
			line++
			if f := strings.Fields(sc.Text()); len(f) > 0 {
				return f, true
			}
		}
		return nil, false
	}
	head, ok := next()
	if !ok {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("flowfile: %s: %w", name, err)
		}
		return nil, fmt.Errorf("flowfile: %s: empty file: the fork's flow.txt starts with the number of flows", name)
	}
	n, err := strconv.Atoi(head[0])
	if len(head) != 1 || err != nil || n < 0 {
		return nil, fmt.Errorf("flowfile: %s line %d: the fork's flow.txt starts with the number of flows, got %q: is this a flow.txt?", name, line, strings.Join(head, " "))
	}
	ff := &File{Name: name, idCol: "id"}
	for row := 1; ; row++ {
		f, ok := next()
		if !ok {
			break
		}
		if row > n {
			return nil, fmt.Errorf("flowfile: %s line %d: more flows than the %d the first line announces", name, line, n)
		}
		if row == 1 {
			if len(f) != 6 && len(f) != 7 {
				return nil, fmt.Errorf("flowfile: %s row 1 (line %d): %d fields; want 7 (%s) or 6 (without the id)", name, line, len(f), strings.Join(forkCols, " "))
			}
			ff.HasID = len(f) == 7
		}
		cols := forkCols
		if !ff.HasID {
			cols = forkCols[1:]
		}
		if len(f) != len(cols) {
			return nil, fmt.Errorf("flowfile: %s row %d (line %d): %d fields; want %d (%s), like the first row", name, row, line, len(f), len(cols), strings.Join(cols, " "))
		}
		fl := workload.Flow{ID: row - 1}
		for j, c := range cols {
			if c == "pg" || c == "dport" {
				continue
			}
			var v int64
			if c == "start_s" {
				v, err = parseSeconds(f[j])
			} else {
				v, err = parseWhole(f[j])
				if err == nil && c != "size" && (v < math.MinInt32 || v > math.MaxInt32) {
					err = fmt.Errorf("%d is out of the range of ids", v)
				}
			}
			if err != nil {
				return nil, rowError(name, row, c, "%v", err)
			}
			switch c {
			case "id":
				fl.ID = int(v)
			case "src":
				fl.Src = int(v)
			case "dst":
				fl.Dst = int(v)
			case "size":
				fl.Size = v
			case "start_s":
				fl.Start = v
			}
		}
		if err := checkValues(name, row, fl, "size", "start_s"); err != nil {
			return nil, err
		}
		ff.Flows = append(ff.Flows, fl)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("flowfile: %s: %w", name, err)
	}
	if len(ff.Flows) != n {
		return nil, fmt.Errorf("flowfile: %s: the first line announces %d flows, the file has %d", name, n, len(ff.Flows))
	}
	return ff, nil
}

// parseSeconds reads a time in seconds as nanoseconds, exactly for
// decimals of up to nine places ("0.000012345").
func parseSeconds(s string) (int64, error) {
	whole, frac, dot := strings.Cut(s, ".")
	if dot && len(frac) <= 9 && !strings.ContainsAny(s, "eE+") {
		w, err1 := strconv.ParseInt(whole, 10, 64)
		if whole == "" {
			w, err1 = 0, nil
		}
		fr, err2 := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		if err1 == nil && err2 == nil && fr >= 0 && !strings.HasPrefix(frac, "-") && w < math.MaxInt64/1_000_000_000 {
			if strings.HasPrefix(whole, "-") {
				return -(-w*1e9 + fr), nil
			}
			return w*1e9 + fr, nil
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number of seconds", s)
	}
	return wholeFloat(math.Round(v*1e9), strconv.Quote(s)+" s")
}

func readParsimonFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("flowfile: %w", err)
	}
	return ReadParsimon(path, bytes.NewReader(b))
}

// parsimonFlow is a flow of Parsimon's JSON flow list.
type parsimonFlow struct {
	ID    *json.Number `json:"id"`
	Src   *json.Number `json:"src"`
	Dst   *json.Number `json:"dst"`
	Size  *json.Number `json:"size"`
	Start *json.Number `json:"start"`
}

// ReadParsimon reads Parsimon's JSON flow list:
// [{"id":0,"src":0,"dst":5,"size":1000,"start":0}, ...] (bytes, ns).
func ReadParsimon(name string, r io.Reader) (*File, error) {
	dec := json.NewDecoder(r)
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('[') {
		return nil, fmt.Errorf("flowfile: %s: not a Parsimon flow list (a JSON array of {\"id\",\"src\",\"dst\",\"size\",\"start\"} objects)", name)
	}
	ff := &File{Name: name, HasID: true, idCol: "id"}
	for row := 1; dec.More(); row++ {
		var p parsimonFlow
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("flowfile: %s row %d: malformed JSON: %v", name, row, err)
		}
		od := json.NewDecoder(bytes.NewReader(raw))
		od.UseNumber()
		od.DisallowUnknownFields()
		if err := od.Decode(&p); err != nil {
			return nil, fmt.Errorf("flowfile: %s row %d: not a flow object {\"id\",\"src\",\"dst\",\"size\",\"start\"}: %v", name, row, err)
		}
		var fl workload.Flow
		for _, c := range []struct {
			col string
			v   *json.Number
			id  bool
			set func(int64)
		}{
			{"id", p.ID, true, func(v int64) { fl.ID = int(v) }},
			{"src", p.Src, true, func(v int64) { fl.Src = int(v) }},
			{"dst", p.Dst, true, func(v int64) { fl.Dst = int(v) }},
			{"size", p.Size, false, func(v int64) { fl.Size = v }},
			{"start", p.Start, false, func(v int64) { fl.Start = v }},
		} {
			if c.v == nil {
				return nil, rowError(name, row, c.col, "missing")
			}
			v, err := parseWhole(c.v.String())
			if err == nil && c.id && (v < math.MinInt32 || v > math.MaxInt32) {
				err = fmt.Errorf("%d is out of the range of ids", v)
			}
			if err != nil {
				return nil, rowError(name, row, c.col, "%v", err)
			}
			c.set(v)
		}
		if err := checkValues(name, row, fl, "size", "start"); err != nil {
			return nil, err
		}
		ff.Flows = append(ff.Flows, fl)
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim(']') {
		return nil, fmt.Errorf("flowfile: %s: the flow list does not end with ']'", name)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("flowfile: %s: more than one JSON value", name)
	}
	return ff, nil
}
