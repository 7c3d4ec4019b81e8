package frame

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"

	"github.com/tailscope/tailscope/lib/metrics"
	"github.com/tailscope/tailscope/lib/workload"
)

// GroupRecords is the number of records a RecordWriter holds before it
// writes them as one Parquet row group or Arrow record batch.
const GroupRecords = 1 << 18

// RecordWriter writes FCT records to a frame as they are produced, a row
// group at a time, for runs whose records do not fit in memory. The frame
// reads back like one written by WriteRecords. It is written beside its
// path and renamed into place by Close, so that no reader sees half a
// frame. A full group is encoded and written on a goroutine of its own
// while the next one fills, so an error writing it may be returned by a
// later Write or by Close.
type RecordWriter struct {
	// While a group is being written (done is not nil) its goroutine owns
	// groupWriter and the spare buffer, which holds the group's records;
	// wait hands them back.
	groupWriter
	buf, spare []metrics.Record
	done       chan struct{}
	failed     error // groupWriter's error as of the last wait
	handed     int   // records handed to groups
}

// NewRecordWriter starts a records frame at path (.parquet or .arrow)
// with meta as its provenance; Close adds metadata known only at the end.
func NewRecordWriter(path string, meta Meta) (*RecordWriter, error) {
	g, err := newGroupWriter(path, meta)
	if err != nil {
		return nil, err
	}
	return &RecordWriter{groupWriter: g}, nil
}

// Write adds one record, handing a group to be written when GroupRecords
// are waiting.
func (w *RecordWriter) Write(r metrics.Record) error {
	if w.failed != nil {
		return w.failed
	}
	w.buf = append(w.buf, r)
	if len(w.buf) == w.group {
		w.flush()
	}
	return w.failed
}

// Len is the number of records written so far.
func (w *RecordWriter) Len() int { return w.handed + len(w.buf) }

// flush starts writing the waiting records as one group, once the group
// before is written. Encoding and compressing a group is most of the
// cost of writing records, and a run that produces them on every core
// (Parsimon's convolution) waited on it.
func (w *RecordWriter) flush() {
	w.wait()
	if w.failed != nil {
		return
	}
	group := w.buf
	w.buf, w.spare = w.spare[:0], group
	w.handed += len(group)
	done := make(chan struct{})
	w.done = done
	go func() {
		defer close(done)
		w.writeGroup(RecordsTable(group, w.meta))
	}()
}

// wait returns once no group is being written.
func (w *RecordWriter) wait() {
	if w.done != nil {
		<-w.done
		w.done = nil
		w.failed = w.err
	}
}

// Close writes the last group, adds extra to the frame's metadata (as
// Meta.Extra, merged over the meta given to NewRecordWriter), seals the
// frame with its digest, writes its run log with wallSeconds and timings
// (Meta.WallSeconds and Meta.Timings, see RunLogPath) and moves the frame
// into place. On error the partial frame is removed.
func (w *RecordWriter) Close(extra map[string]string, wallSeconds float64, timings map[string]float64) error {
	w.wait()
	if w.err == nil && (len(w.buf) > 0 || w.n == 0) {
		w.writeGroup(RecordsTable(w.buf, w.meta))
	}
	return w.close(extra, wallSeconds, timings)
}

// Abort discards the frame: nothing is left at or beside its path.
func (w *RecordWriter) Abort() {
	w.wait()
	w.groupWriter.Abort()
}

// FlowWriter writes a workload's flows to a frame as they are drawn
// (workload.Source), so that generating millions of flows does not hold
// them: a flows frame of Parquet is one row group whose pages are encoded
// and compressed as the flows arrive, byte for byte the frame WriteFlows
// writes; an Arrow IPC frame gets a record batch per GroupRecords flows.
// Like RecordWriter it is renamed into place by Close.
type FlowWriter struct {
	groupWriter
	buf []workload.Flow
}

// NewFlowWriter starts a flows frame at path (.parquet or .arrow) with
// meta as its provenance.
func NewFlowWriter(path string, meta Meta) (*FlowWriter, error) {
	g, err := newGroupWriter(path, meta)
	if err != nil {
		return nil, err
	}
	g.oneGroup = true
	return &FlowWriter{groupWriter: g}, nil
}

// Write adds one flow.
func (w *FlowWriter) Write(f workload.Flow) error {
	if w.err != nil {
		return w.err
	}
	w.buf = append(w.buf, f)
	if len(w.buf) == w.group {
		w.flush()
	}
	return w.err
}

// Len is the number of flows written so far.
func (w *FlowWriter) Len() int { return w.n + len(w.buf) }

func (w *FlowWriter) flush() {
	w.writeGroup(FlowsTable(w.buf, w.meta))
	w.buf = w.buf[:0]
}

// Close writes the waiting flows, seals the frame, writes its run log
// with wallSeconds and moves the frame into place; on error the partial
// frame is removed.
func (w *FlowWriter) Close(wallSeconds float64) error {
	if w.err == nil && (len(w.buf) > 0 || w.n == 0) {
		w.flush()
	}
	return w.close(nil, wallSeconds, nil)
}

// groupWriter writes a frame a table of rows at a time into a temporary
// file beside its path: the part of RecordWriter and FlowWriter that does
// not depend on the rows' type.
type groupWriter struct {
	path  string
	meta  Meta
	md    arrow.Metadata
	ff    format
	tmp   *os.File
	pq    *pqarrow.FileWriter
	ipc   *ipc.FileWriter
	group int // rows per written group: GroupRecords, fewer in tests
	// oneGroup makes a Parquet frame one row group (WriteBuffered), as
	// WriteTable writes it; GroupRecords is a multiple of the Parquet
	// writer's batch size (1024 values), so the pages come out the same.
	oneGroup bool
	n        int
	err      error
}

func newGroupWriter(path string, meta Meta) (groupWriter, error) {
	ff, err := formatOf(path)
	if err != nil {
		return groupWriter{}, err
	}
	md, err := meta.arrowMetadata()
	if err != nil {
		return groupWriter{}, fmt.Errorf("frame: %s: %w", path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return groupWriter{}, fmt.Errorf("frame: %w", err)
	}
	return groupWriter{path: path, meta: meta, md: md, ff: ff, tmp: f, group: GroupRecords}, nil
}

// writeGroup writes t's rows as one group (or, with oneGroup, adds them
// to the Parquet frame's single row group).
func (w *groupWriter) writeGroup(t *Table) {
	rec := t.record(w.md)
	defer rec.Release()
	defer func() {
		// arrow-go's Parquet writer panics when it cannot write its
		// file's header (a full disk, say): an error like any other.
		if p := recover(); p != nil {
			w.err = fmt.Errorf("frame: writing %s: %v", w.path, p)
		}
	}()
	if w.pq == nil && w.ipc == nil {
		w.err = w.open(rec.Schema())
	}
	if w.err == nil {
		switch {
		case w.pq != nil && w.oneGroup && t.Len() > 0: // an empty frame's group is written as WriteTable writes it
			w.err = w.pq.WriteBuffered(rec)
		case w.pq != nil:
			w.err = w.pq.Write(rec)
		default:
			w.err = w.ipc.Write(rec)
		}
	}
	if w.err != nil {
		w.err = fmt.Errorf("frame: writing %s: %w", w.path, w.err)
	}
	w.n += t.Len()
}

func (w *groupWriter) open(schema *arrow.Schema) (err error) {
	if w.ff == parquetFormat {
		w.pq, err = pqarrow.NewFileWriter(schema, struct{ io.Writer }{w.tmp}, writerProperties(), pqarrow.DefaultWriterProps())
		return err
	}
	w.ipc, err = ipc.NewFileWriter(w.tmp, ipc.WithSchema(schema))
	return err
}

// close adds extra to the frame's metadata (merged over the meta given
// at the start), seals the frame with its digest, writes its run log with
// wallSeconds and timings and moves the frame into place. On error the
// partial frame is removed.
func (w *groupWriter) close(extra map[string]string, wallSeconds float64, timings map[string]float64) (err error) {
	defer func() {
		if err != nil {
			w.tmp.Close()
			os.Remove(w.tmp.Name())
		}
	}()
	if w.err != nil {
		return w.err
	}
	final := w.meta
	final.Extra = make(map[string]string, len(w.meta.Extra)+len(extra))
	for k, v := range w.meta.Extra {
		final.Extra[k] = v
	}
	for k, v := range extra {
		final.Extra[k] = v
	}
	md, err := final.arrowMetadata()
	if err != nil {
		return fmt.Errorf("frame: %s: %w", w.path, err)
	}
	if w.pq != nil {
		// Parquet keeps key-value metadata in the footer, written last.
		for i, k := range md.Keys() {
			if w.md.FindKey(k) < 0 {
				if err := w.pq.AppendKeyValueMetadata(k, md.Values()[i]); err != nil {
					return fmt.Errorf("frame: %s: %w", w.path, err)
				}
			}
		}
		if err := w.pq.Close(); err != nil {
			return fmt.Errorf("frame: writing %s: %w", w.path, err)
		}
	} else {
		if err := w.ipc.Close(); err != nil {
			return fmt.Errorf("frame: writing %s: %w", w.path, err)
		}
		if len(extra) > 0 {
			if err := w.rewriteIPC(md); err != nil {
				return fmt.Errorf("frame: writing %s: %w", w.path, err)
			}
		}
	}
	final.WallSeconds, final.Timings = wallSeconds, timings
	if err := finish(w.tmp, w.path, final); err != nil {
		return fmt.Errorf("frame: writing %s: %w", w.path, err)
	}
	if err := w.tmp.Close(); err != nil {
		return fmt.Errorf("frame: %s: %w", w.path, err)
	}
	if err := os.Rename(w.tmp.Name(), w.path); err != nil {
		return fmt.Errorf("frame: %w", err)
	}
	return nil
}

// Abort discards the frame: nothing is left at or beside its path.
func (w *groupWriter) Abort() {
	if w.pq != nil {
		w.pq.Close()
	}
	if w.ipc != nil {
		w.ipc.Close()
	}
	w.tmp.Close()
	os.Remove(w.tmp.Name())
}

// rewriteIPC copies the Arrow file's batches, one at a time, behind a
// schema carrying md: Arrow IPC puts the schema ahead of the batches, so
// metadata learnt at the end needs a second file.
func (w *groupWriter) rewriteIPC(md arrow.Metadata) error {
	r, err := ipc.NewFileReader(w.tmp)
	if err != nil {
		return err
	}
	defer r.Close()
	out, err := os.CreateTemp(filepath.Dir(w.path), "."+filepath.Base(w.path)+".tmp*")
	if err != nil {
		return err
	}
	fields := r.Schema().Fields()
	iw, err := ipc.NewFileWriter(out, ipc.WithSchema(arrow.NewSchema(fields, &md)))
	for b := 0; err == nil && b < r.NumRecords(); b++ {
		var rec arrow.Record
		if rec, err = r.Record(b); err == nil {
			err = iw.Write(rec)
		}
	}
	if err == nil {
		err = iw.Close()
	}
	if err != nil {
		out.Close()
		os.Remove(out.Name())
		return err
	}
	w.tmp.Close()
	os.Remove(w.tmp.Name())
	w.tmp = out
	return nil
}
