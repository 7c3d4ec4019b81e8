// Package flowfile reads the flows a researcher brings, and writes flows
// in the formats of other tools: Parquet or Arrow frames (columns src,
// dst, size_bytes, start_ns, optional flow_id and class, as "tailscope
// gen" writes them and as pandas or R write them), CSV with the same
// columns, the fork's flow.txt (the HPCC-style ns-3 simulator of the
// Parsimon and m3 studies) and Parsimon's JSON flow list.
//
// Every problem of a file is an error naming the file, the row (1-based,
// data rows in file order) and the column, found before any simulation
// starts. Load applies a workload spec's transforms (host remapping, a
// time window, the first N flows, scaling to a target max load) and
// checks the flows against the network, so that every estimator accepts
// them.
package flowfile

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tailscope/tailscope/lib/topo"
	"github.com/tailscope/tailscope/lib/workload"
)

// Formats lists the format names Read accepts.
func Formats() []string { return []string{"parquet", "arrow", "csv", "fork", "parsimon"} }

// Column names of the flow files (those of frame's flows frames).
const (
	ColFlowID    = "flow_id"
	ColSrc       = "src"
	ColDst       = "dst"
	ColSizeBytes = "size_bytes"
	ColStartNs   = "start_ns"
	ColClass     = "class"
)

// File is the content of a flow file: its flows in file order, and
// whether the file gave their ids (else they are numbered by Load).
type File struct {
	Name  string
	Flows []workload.Flow
	HasID bool
	idCol string // the id column's name in errors, if not flow_id
}

// FormatOf returns the format of path: format itself when set (checked),
// else the one its extension names.
func FormatOf(path, format string) (string, error) {
	if format != "" {
		f := strings.ToLower(format)
		if !slices.Contains(Formats(), f) {
			return "", fmt.Errorf("flowfile: %s: unknown format %q (known: %s)", path, format, strings.Join(Formats(), ", "))
		}
		return f, nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet":
		return "parquet", nil
	case ".arrow", ".feather", ".ipc":
		return "arrow", nil
	case ".csv":
		return "csv", nil
	case ".txt":
		return "fork", nil
	case ".json":
		return "parsimon", nil
	}
	return "", fmt.Errorf("flowfile: %s: cannot tell the format from the extension %q: name it .parquet, .arrow, .csv, .txt (the fork's flow.txt) or .json (Parsimon's), or set the workload's format (%s)",
		path, filepath.Ext(path), strings.Join(Formats(), ", "))
}

// Read reads the flow file at path in format ("" for its extension's).
// It checks what the file alone decides: every required column present,
// every value a whole number, sizes positive, starts not negative. Hosts
// and ids are checked by Load, against the network.
func Read(path, format string) (*File, error) {
	f, err := FormatOf(path, format)
	if err != nil {
		return nil, err
	}
	switch f {
	case "parquet", "arrow":
		return readFrame(path, f)
	case "csv":
		return readCSVFile(path)
	case "fork":
		return readForkFile(path)
	default:
		return readParsimonFile(path)
	}
}

// rowError is an error about one value of a file.
func rowError(name string, row int, col, format string, a ...any) error {
	return fmt.Errorf("flowfile: %s row %d, column %s: %s", name, row, col, fmt.Sprintf(format, a...))
}

// checkValues checks the values a row holds by itself.
func checkValues(name string, row int, f workload.Flow, sizeCol, startCol string) error {
	switch {
	case f.Size <= 0:
		return rowError(name, row, sizeCol, "size %d bytes: sizes must be positive", f.Size)
	case f.Start < 0:
		return rowError(name, row, startCol, "start %d ns is negative", f.Start)
	}
	return nil
}

// Load reads the flows file spec names and applies its transforms in
// this order: remap hosts, check every row against net (hosts, src = dst,
// duplicate ids), sort by start (stable: equal starts keep the file's
// order), number the flows 0.. in that order if the file has no ids, keep
// the window, keep the first N, scale to the max load. The flows it
// returns pass workload.Check on net.
func Load(net *topo.Network, spec workload.Spec) ([]workload.Flow, error) {
	if spec.File == "" {
		return nil, errors.New("flowfile: the workload names no file")
	}
	if len(spec.Components) > 0 || spec.Flows != 0 || spec.DurationNs != 0 {
		return nil, fmt.Errorf("flowfile: workload file %s: components, flows and duration_ns describe generated flows; a flows file takes none of them (use first to keep the first N)", spec.File)
	}
	if spec.WindowNs != nil && (len(spec.WindowNs) != 2 || spec.WindowNs[0] < 0 || spec.WindowNs[1] <= spec.WindowNs[0]) {
		return nil, fmt.Errorf("flowfile: workload file %s: window_ns %v must be [from, to) with 0 <= from < to", spec.File, spec.WindowNs)
	}
	if spec.First < 0 {
		return nil, fmt.Errorf("flowfile: workload file %s: first %d is negative", spec.File, spec.First)
	}
	if spec.MaxLoad != 0 && !(spec.MaxLoad > 0 && spec.MaxLoad < 1) {
		return nil, fmt.Errorf("flowfile: workload file %s: impossible max_load %g: it must be in (0, 1)", spec.File, spec.MaxLoad)
	}
	ff, err := Read(spec.File, spec.Format)
	if err != nil {
		return nil, err
	}
	return ff.Apply(net, spec)
}

// Apply is Load on a file already read: the transforms of spec (its
// File and Format are not used) and the checks against net.
func (ff *File) Apply(net *topo.Network, spec workload.Spec) ([]workload.Flow, error) {
	flows := slices.Clone(ff.Flows)
	name := ff.Name
	ids := make(map[int]int, len(flows))
	for i := range flows {
		f := &flows[i]
		row := i + 1
		for _, e := range []struct {
			col string
			v   *int
		}{{ColSrc, &f.Src}, {ColDst, &f.Dst}} {
			if to, ok := spec.Remap[*e.v]; ok {
				*e.v = to
			}
			if !net.IsHost(*e.v) {
				return nil, rowError(name, row, e.col, "host %d is not a host of %s (hosts: %s)%s", *e.v, net.Name, hostRange(net), remapped(spec.Remap))
			}
		}
		if f.Src == f.Dst {
			return nil, rowError(name, row, ColDst, "src and dst are both host %d", f.Src)
		}
		if ff.HasID {
			if prev, dup := ids[f.ID]; dup {
				col := ColFlowID
				if ff.idCol != "" {
					col = ff.idCol
				}
				return nil, rowError(name, row, col, "flow id %d appears again (first at row %d)", f.ID, prev)
			}
			ids[f.ID] = row
		}
	}
	slices.SortStableFunc(flows, func(a, b workload.Flow) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	if !ff.HasID {
		for i := range flows {
			flows[i].ID = i
		}
	}
	if w := spec.WindowNs; w != nil {
		lo, _ := slices.BinarySearchFunc(flows, w[0], func(f workload.Flow, t int64) int { return cmpInt(f.Start, t) })
		hi, _ := slices.BinarySearchFunc(flows, w[1], func(f workload.Flow, t int64) int { return cmpInt(f.Start, t) })
		flows = flows[lo:hi]
	}
	if spec.First > 0 && spec.First < len(flows) {
		flows = flows[:spec.First]
	}
	if len(flows) == 0 {
		return nil, fmt.Errorf("flowfile: %s: no flows left to run (%d in the file; window_ns %v, first %d)", name, len(ff.Flows), spec.WindowNs, spec.First)
	}
	if spec.MaxLoad != 0 {
		if err := workload.ScaleToLoad(net, flows, spec.MaxLoad); err != nil {
			return nil, fmt.Errorf("flowfile: %s: %w", name, err)
		}
	}
	if err := workload.Check(net, flows); err != nil {
		return nil, fmt.Errorf("flowfile: %s: %w", name, err)
	}
	return flows, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// hostRange describes net's host ids briefly.
func hostRange(net *topo.Network) string {
	h := net.Hosts()
	if h[len(h)-1]-h[0] == len(h)-1 {
		return fmt.Sprintf("%d..%d", h[0], h[len(h)-1])
	}
	return fmt.Sprintf("%d ids from %d to %d", len(h), h[0], h[len(h)-1])
}

func remapped(m map[int]int) string {
	if len(m) == 0 {
		return ""
	}
	return ", after the remap table"
}
