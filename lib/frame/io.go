package frame

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet"
	"github.com/apache/arrow/go/v15/parquet/compress"
	"github.com/apache/arrow/go/v15/parquet/file"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
)

// format is a file format chosen by extension.
type format int

const (
	parquetFormat format = iota
	arrowFormat
)

func formatOf(path string) (format, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".parquet":
		return parquetFormat, nil
	case ".arrow":
		return arrowFormat, nil
	default:
		return 0, fmt.Errorf("frame: %s: unknown extension %q (want .parquet or .arrow)", path, ext)
	}
}

// WriteTable writes t to path: Parquet with zstd compression for a
// ".parquet" path, the Arrow IPC file format for ".arrow". Columns are
// non-nullable. The file is removed again if writing fails.
func WriteTable(path string, t *Table) (err error) {
	ff, err := formatOf(path)
	if err != nil {
		return err
	}
	if err := t.check(); err != nil {
		return fmt.Errorf("frame: %s: %w", path, err)
	}
	md, err := t.Meta.arrowMetadata()
	if err != nil {
		return fmt.Errorf("frame: %s: %w", path, err)
	}
	rec := t.record(md)
	defer rec.Release()

	// Write a temporary file beside path and rename it into place, so that
	// a reader (or a sweep resumed after a kill) never sees half a frame.
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("frame: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("frame: %s: %w", path, cerr)
		}
		if err == nil {
			if err = os.Rename(f.Name(), path); err != nil {
				err = fmt.Errorf("frame: %w", err)
			}
		}
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	switch ff {
	case parquetFormat:
		err = writeParquet(f, rec)
	case arrowFormat:
		err = writeIPC(f, rec)
	}
	if err != nil {
		return fmt.Errorf("frame: writing %s: %w", path, err)
	}
	return nil
}

// record builds an Arrow record batch holding t's columns.
func (t *Table) record(md arrow.Metadata) arrow.Record {
	mem := memory.DefaultAllocator
	fields := make([]arrow.Field, len(t.Columns))
	arrs := make([]arrow.Array, len(t.Columns))
	for i := range t.Columns {
		c := &t.Columns[i]
		switch {
		case c.Int64 != nil:
			b := array.NewInt64Builder(mem)
			b.AppendValues(c.Int64, nil)
			arrs[i] = b.NewArray()
			b.Release()
		case c.Float64 != nil:
			b := array.NewFloat64Builder(mem)
			b.AppendValues(c.Float64, nil)
			arrs[i] = b.NewArray()
			b.Release()
		default:
			b := array.NewStringBuilder(mem)
			b.AppendValues(c.String, nil)
			arrs[i] = b.NewArray()
			b.Release()
		}
		fields[i] = arrow.Field{Name: c.Name, Type: arrs[i].DataType()}
	}
	rec := array.NewRecord(arrow.NewSchema(fields, &md), arrs, int64(t.Len()))
	for _, a := range arrs {
		a.Release()
	}
	return rec
}

func writeParquet(f *os.File, rec arrow.Record) error {
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Zstd),
		// arrow/go v15 marks the root group REPEATED by default, which
		// some readers (hyparquet) reject.
		parquet.WithRootRepetition(parquet.Repetitions.Required),
	)
	// Hide f's Close: the parquet writer closes a Closer, and WriteTable
	// closes f itself to report the error.
	w, err := pqarrow.NewFileWriter(rec.Schema(), struct{ io.Writer }{f}, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

func writeIPC(f *os.File, rec arrow.Record) error {
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(rec.Schema()))
	if err != nil {
		return err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// ReadTable reads a frame written by WriteTable, or any Parquet or Arrow IPC
// file whose columns are non-null int64, float64 or string values.
func ReadTable(path string) (*Table, error) {
	ff, err := formatOf(path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("frame: %w", err)
	}
	defer f.Close()
	var t *Table
	switch ff {
	case parquetFormat:
		t, err = readParquet(f)
	case arrowFormat:
		t, err = readIPC(f)
	}
	if err != nil {
		return nil, fmt.Errorf("frame: reading %s: %w", path, err)
	}
	return t, nil
}

func readParquet(f *os.File) (*Table, error) {
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return nil, err
	}
	defer pf.Close()
	kv := pf.MetaData().KeyValueMetadata()
	vals := make([]string, len(kv))
	for i, e := range kv {
		if e.Value != nil {
			vals[i] = *e.Value
		}
	}
	meta, err := metaFrom(kv.Keys(), vals)
	if err != nil {
		return nil, err
	}
	r, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	at, err := r.ReadTable(context.Background())
	if err != nil {
		return nil, err
	}
	defer at.Release()
	t := &Table{Meta: meta}
	for i := 0; i < int(at.NumCols()); i++ {
		col := at.Column(i)
		c, err := newColumn(col.Name(), col.DataType())
		if err != nil {
			return nil, err
		}
		for _, chunk := range col.Data().Chunks() {
			if err := c.appendArray(chunk); err != nil {
				return nil, err
			}
		}
		t.Columns = append(t.Columns, c)
	}
	return t, nil
}

func readIPC(f *os.File) (*Table, error) {
	r, err := ipc.NewFileReader(f)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	sc := r.Schema()
	meta, err := metaFrom(sc.Metadata().Keys(), sc.Metadata().Values())
	if err != nil {
		return nil, err
	}
	t := &Table{Meta: meta, Columns: make([]Column, sc.NumFields())}
	for i, fd := range sc.Fields() {
		if t.Columns[i], err = newColumn(fd.Name, fd.Type); err != nil {
			return nil, err
		}
	}
	for b := 0; b < r.NumRecords(); b++ {
		rec, err := r.Record(b)
		if err != nil {
			return nil, err
		}
		for i := range t.Columns {
			if err := t.Columns[i].appendArray(rec.Column(i)); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// newColumn returns an empty column for an Arrow type Table can hold.
func newColumn(name string, dt arrow.DataType) (Column, error) {
	switch dt.ID() {
	case arrow.INT64:
		return Int64Column(name, nil), nil
	case arrow.FLOAT64:
		return Float64Column(name, nil), nil
	case arrow.STRING:
		return StringColumn(name, nil), nil
	}
	return Column{}, fmt.Errorf("column %q has type %s; frames hold int64, float64 and string columns", name, dt)
}

// appendArray appends the values of a, which has the column's type.
func (c *Column) appendArray(a arrow.Array) error {
	if a.NullN() > 0 {
		return fmt.Errorf("column %q has %d null values; frames have none", c.Name, a.NullN())
	}
	switch a := a.(type) {
	case *array.Int64:
		c.Int64 = append(c.Int64, a.Int64Values()...)
	case *array.Float64:
		c.Float64 = append(c.Float64, a.Float64Values()...)
	case *array.String:
		for i := 0; i < a.Len(); i++ {
			c.String = append(c.String, a.Value(i))
		}
	default:
		return fmt.Errorf("column %q: unexpected array type %T", c.Name, a)
	}
	return nil
}
