package workload

import "fmt"

// Flow is one transfer: Size bytes from host Src to host Dst, starting at
// Start nanoseconds. Class tags the workload component a flow came from in a
// mixed workload (0 otherwise). This is the flow record every estimator
// consumes.
type Flow struct {
	ID    int
	Src   int
	Dst   int
	Size  int64 // bytes
	Start int64 // ns
	Class int
}

// HostChecker is the part of a topology Check needs.
type HostChecker interface {
	IsHost(id int) bool
}

// Check reports the first flow that no estimator can run: a non-positive
// size, a negative start, an endpoint that is not a host, src == dst, or
// starts out of order. IDs must be unique.
func Check(net HostChecker, flows []Flow) error {
	// Ids that ascend are unique; the set is built only once they do not.
	var ids map[int]struct{}
	var last int64
	for i, f := range flows {
		switch {
		case f.Size <= 0:
			return fmt.Errorf("workload: flow %d has size %d bytes; sizes must be positive", f.ID, f.Size)
		case f.Start < 0:
			return fmt.Errorf("workload: flow %d starts at negative time %d ns", f.ID, f.Start)
		case !net.IsHost(f.Src):
			return fmt.Errorf("workload: flow %d: source %d is not a host of the topology", f.ID, f.Src)
		case !net.IsHost(f.Dst):
			return fmt.Errorf("workload: flow %d: destination %d is not a host of the topology", f.ID, f.Dst)
		case f.Src == f.Dst:
			return fmt.Errorf("workload: flow %d: source and destination are both host %d", f.ID, f.Src)
		case i > 0 && f.Start < last:
			return fmt.Errorf("workload: flow %d starts at %d ns, before the flow listed ahead of it (%d ns): flows must be sorted by start", f.ID, f.Start, last)
		}
		if ids == nil && i > 0 && f.ID <= flows[i-1].ID {
			ids = make(map[int]struct{}, len(flows))
			for _, g := range flows[:i] {
				ids[g.ID] = struct{}{}
			}
		}
		if ids != nil {
			if _, dup := ids[f.ID]; dup {
				return fmt.Errorf("workload: duplicate flow id %d", f.ID)
			}
			ids[f.ID] = struct{}{}
		}
		last = f.Start
	}
	return nil
}
