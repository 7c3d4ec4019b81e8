package scenario

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tailscope/tailscope/lib/flowfile"
	"github.com/tailscope/tailscope/lib/ns3"
)

// ExportFormats lists the formats Export writes.
func ExportFormats() []string { return []string{"ns3", "fork", "parsimon"} }

// Export writes the scenario's network and flows to dir in the format of
// another simulator, so that a researcher can run it on exactly these
// flows, and returns the files written:
//
//   - "fork": topology.txt and flow.txt of the HPCC-style ns-3 fork that
//     Parsimon and m3 used as ground truth (topo.ReadNS3 and
//     flowfile.ReadFork read them back);
//   - "parsimon": topology.json and flows.json, Parsimon's formats
//     (topo.ReadParsimonJSON and flowfile.ReadParsimon read them back);
//   - "ns3": topology.txt, config.txt and flows.txt of tailscope's ns-3
//     scenario program for stock ns-3 (package ns3), every flow's path
//     pinned, the ECN thresholds and buffers of the network model.
//
// The flows must be drawn (Build, not BuildNet).
func (sc *Scenario) Export(dir, format string) ([]string, error) {
	if sc.Flows == nil {
		return nil, fmt.Errorf("scenario: export: the flows are not drawn (use Build)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("scenario: export: %w", err)
	}
	type file struct {
		name  string
		write func(io.Writer) error
	}
	var files []file
	switch format {
	case "fork":
		files = []file{
			{"topology.txt", sc.Net.WriteNS3},
			{"flow.txt", func(w io.Writer) error { return flowfile.WriteFork(w, sc.Flows) }},
		}
	case "parsimon":
		files = []file{
			{"topology.json", sc.Net.WriteParsimonJSON},
			{"flows.json", func(w io.Writer) error { return flowfile.WriteParsimon(w, sc.Flows) }},
		}
	case "ns3":
		if err := ns3.WriteInputs(dir, sc.Net, sc.Flows, sc.Spec.Network, ns3.Options{}); err != nil {
			return nil, fmt.Errorf("scenario: export ns3: %w", err)
		}
		var out []string
		for _, n := range []string{"topology.txt", "config.txt", "flows.txt"} {
			out = append(out, filepath.Join(dir, n))
		}
		return out, nil
	default:
		return nil, fmt.Errorf("scenario: unknown export format %q (known: %s)", format, strings.Join(ExportFormats(), ", "))
	}
	var out []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := writeAtomic(p, f.write); err != nil {
			return nil, fmt.Errorf("scenario: export %s: %w", format, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// writeAtomic writes a file through a temporary beside it, so that a
// killed export leaves no half-written file under the final name.
func writeAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	if err = write(f); err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
