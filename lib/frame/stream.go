package frame

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"

	"github.com/tailscope/tailscope/lib/metrics"
)

// GroupRecords is the number of records a RecordWriter holds before it
// writes them as one Parquet row group or Arrow record batch.
const GroupRecords = 1 << 18

// RecordWriter writes FCT records to a frame as they are produced, a row
// group at a time, for runs whose records do not fit in memory. The frame
// reads back like one written by WriteRecords. It is written beside its
// path and renamed into place by Close, so that no reader sees half a
// frame.
type RecordWriter struct {
	path  string
	meta  Meta
	md    arrow.Metadata
	ff    format
	tmp   *os.File
	pq    *pqarrow.FileWriter
	ipc   *ipc.FileWriter
	buf   []metrics.Record
	group int // records per group: GroupRecords, fewer in tests
	n     int
	err   error
}

// NewRecordWriter starts a records frame at path (.parquet or .arrow)
// with meta as its provenance; Close adds metadata known only at the end.
func NewRecordWriter(path string, meta Meta) (*RecordWriter, error) {
	ff, err := formatOf(path)
	if err != nil {
		return nil, err
	}
	md, err := meta.arrowMetadata()
	if err != nil {
		return nil, fmt.Errorf("frame: %s: %w", path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("frame: %w", err)
	}
	return &RecordWriter{path: path, meta: meta, md: md, ff: ff, tmp: f, group: GroupRecords}, nil
}

// Write adds one record, writing a group when GroupRecords are waiting.
func (w *RecordWriter) Write(r metrics.Record) error {
	if w.err != nil {
		return w.err
	}
	w.buf = append(w.buf, r)
	if len(w.buf) == w.group {
		w.flush()
	}
	return w.err
}

// Len is the number of records written so far.
func (w *RecordWriter) Len() int { return w.n + len(w.buf) }

// flush writes the waiting records as one group.
func (w *RecordWriter) flush() {
	rec := RecordsTable(w.buf, w.meta).record(w.md)
	defer rec.Release()
	if w.pq == nil && w.ipc == nil {
		w.err = w.open(rec.Schema())
	}
	if w.err == nil {
		if w.pq != nil {
			w.err = w.pq.Write(rec)
		} else {
			w.err = w.ipc.Write(rec)
		}
	}
	if w.err != nil {
		w.err = fmt.Errorf("frame: writing %s: %w", w.path, w.err)
	}
	w.n += len(w.buf)
	w.buf = w.buf[:0]
}

func (w *RecordWriter) open(schema *arrow.Schema) (err error) {
	if w.ff == parquetFormat {
		props := parquet.NewWriterProperties(
			parquet.WithCompression(compress.Codecs.Zstd),
			parquet.WithRootRepetition(parquet.Repetitions.Required), // see writeParquet
		)
		w.pq, err = pqarrow.NewFileWriter(schema, struct{ io.Writer }{w.tmp}, props, pqarrow.DefaultWriterProps())
		return err
	}
	w.ipc, err = ipc.NewFileWriter(w.tmp, ipc.WithSchema(schema))
	return err
}

// Close writes the last group, adds extra to the frame's metadata (as
// Meta.Extra, merged over the meta given to NewRecordWriter), seals the
// frame with its digest, writes its run log with wallSeconds (see
// RunLogPath) and moves the frame into place. On error the partial frame
// is removed.
func (w *RecordWriter) Close(extra map[string]string, wallSeconds float64) (err error) {
	defer func() {
		if err != nil {
			w.tmp.Close()
			os.Remove(w.tmp.Name())
		}
	}()
	if w.err != nil {
		return w.err
	}
	if len(w.buf) > 0 || w.n == 0 {
		w.flush()
		if w.err != nil {
			return w.err
		}
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
	final.WallSeconds = wallSeconds
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
func (w *RecordWriter) Abort() {
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
func (w *RecordWriter) rewriteIPC(md arrow.Metadata) error {
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
