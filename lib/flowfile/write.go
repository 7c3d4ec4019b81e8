package flowfile

import (
	"bufio"
	"fmt"
	"io"

	"github.com/tailscope/tailscope/lib/workload"
)

// WriteCSV writes flows as the CSV ReadCSV reads, every column included.
func WriteCSV(w io.Writer, flows []workload.Flow) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s,%s,%s,%s,%s,%s\n", ColFlowID, ColSrc, ColDst, ColSizeBytes, ColStartNs, ColClass)
	for _, f := range flows {
		fmt.Fprintf(bw, "%d,%d,%d,%d,%d,%d\n", f.ID, f.Src, f.Dst, f.Size, f.Start, f.Class)
	}
	return bw.Flush()
}

// WriteFork writes flows as the fork's flow.txt: the count, then
// "id src dst 3 100 size start_s" per flow (priority group 3, a lossless
// class; port 100), the start in seconds with nine decimals (exact).
func WriteFork(w io.Writer, flows []workload.Flow) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, len(flows))
	for _, f := range flows {
		fmt.Fprintf(bw, "%d %d %d 3 100 %d %d.%09d\n", f.ID, f.Src, f.Dst, f.Size, f.Start/1e9, f.Start%1e9)
	}
	return bw.Flush()
}

// WriteParsimon writes flows as Parsimon's JSON flow list, one flow per
// line.
func WriteParsimon(w io.Writer, flows []workload.Flow) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("[")
	for i, f := range flows {
		sep := ",\n"
		if i == 0 {
			sep = "\n"
		}
		fmt.Fprintf(bw, `%s{"id":%d,"src":%d,"dst":%d,"size":%d,"start":%d}`, sep, f.ID, f.Src, f.Dst, f.Size, f.Start)
	}
	bw.WriteString("\n]\n")
	return bw.Flush()
}
