package scenario

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Describe names the scenario for a reader: its name ("unnamed" if it
// has none) and its key parameters, the topology, the congestion control
// and the target load of each workload component, as in
// "default, meta32-2:1, dctcp, load 50%". Tables print it beside the
// scenario's ID.
func (s Spec) Describe() string {
	parts, loads := s.nameParts()
	if len(loads) > 0 {
		parts = append(parts, "load "+strings.Join(loads, "+"))
	}
	return strings.Join(parts, ", ")
}

// DirName is the name of the scenario's directory in a results
// directory: what Describe says, reduced to letters, digits, '.', '+'
// and '-', then the ID, as in "default-meta32-2-1-dctcp-load50%-<id>"
// with '%' spelled "pct". The ID alone tells scenarios apart; the rest is
// for the reader, cut at DirNameMax bytes.
func (s Spec) DirName() string {
	parts, loads := s.nameParts()
	if len(loads) > 0 {
		parts = append(parts, "load"+strings.Join(loads, "+"))
	}
	var b strings.Builder
	for _, r := range strings.ReplaceAll(strings.Join(parts, "-"), "%", "pct") {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '+':
			b.WriteRune(r)
		default:
			if str := b.String(); str != "" && !strings.HasSuffix(str, "-") {
				b.WriteByte('-')
			}
		}
	}
	name := strings.Trim(b.String(), "-.")
	if len(name) > DirNameMax {
		name = strings.TrimRight(name[:DirNameMax], "-.")
	}
	if name == "" {
		return s.ID()
	}
	return name + "-" + s.ID()
}

// DirNameMax is the most bytes of DirName before the ID.
const DirNameMax = 80

// nameParts are Describe's parts: name, topology and congestion control
// (when set), and the target load of each component that sets one, in
// percent.
func (s Spec) nameParts() (parts, loads []string) {
	name := s.Name
	if name == "" {
		name = "unnamed"
	}
	t := s.Topology
	var top string
	switch {
	case t.Preset != "":
		top = t.Preset
	case t.Fabric != nil:
		top = "fabric"
	case t.ParkingLot != nil:
		top = "parking lot"
	case t.Dumbbell != nil:
		top = "dumbbell"
	case t.CENIC != nil:
		top = "cenic"
	case t.File != "":
		top = filepath.Base(t.File)
	default:
		top = "no topology"
	}
	if n := len(t.FailedLinks); n > 0 {
		top += fmt.Sprintf(" (%d links failed)", n)
	}
	parts = []string{name, top}
	if s.Network.CC != "" {
		parts = append(parts, s.Network.CC)
	}
	for _, c := range s.Workload.Components {
		if c.MaxLoad > 0 {
			loads = append(loads, strconv.FormatFloat(100*c.MaxLoad, 'g', 3, 64)+"%")
		}
	}
	return parts, loads
}
