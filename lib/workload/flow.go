package workload

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"sort"
)

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
	c := NewChecker(net)
	for _, f := range flows {
		if err := c.Add(f); err != nil {
			return err
		}
	}
	return nil
}

// Checker is Check one flow at a time, for flows that stream past: it
// keeps the last start and the ids seen, as ranges of consecutive
// ascending ids (one range for generated workloads) plus a set of the ids
// that came out of order.
type Checker struct {
	net     HostChecker
	n       int
	last    int64
	ranges  [][2]int // ascending, disjoint ranges [lo, hi] of ids seen in ascending order
	unorder map[int]struct{}
}

// NewChecker returns a Checker of flows on net.
func NewChecker(net HostChecker) *Checker { return &Checker{net: net} }

// Add checks f, the next flow, against the rules of Check.
func (c *Checker) Add(f Flow) error {
	switch {
	case f.Size <= 0:
		return fmt.Errorf("workload: flow %d has size %d bytes; sizes must be positive", f.ID, f.Size)
	case f.Start < 0:
		return fmt.Errorf("workload: flow %d starts at negative time %d ns", f.ID, f.Start)
	case !c.net.IsHost(f.Src):
		return fmt.Errorf("workload: flow %d: source %d is not a host of the topology", f.ID, f.Src)
	case !c.net.IsHost(f.Dst):
		return fmt.Errorf("workload: flow %d: destination %d is not a host of the topology", f.ID, f.Dst)
	case f.Src == f.Dst:
		return fmt.Errorf("workload: flow %d: source and destination are both host %d", f.ID, f.Src)
	case c.n > 0 && f.Start < c.last:
		return fmt.Errorf("workload: flow %d starts at %d ns, before the flow listed ahead of it (%d ns): flows must be sorted by start", f.ID, f.Start, c.last)
	}
	c.n++
	c.last = f.Start
	if r := len(c.ranges); r > 0 && f.ID <= c.ranges[r-1][1] {
		if c.seen(f.ID) {
			return fmt.Errorf("workload: duplicate flow id %d", f.ID)
		}
		if c.unorder == nil {
			c.unorder = make(map[int]struct{})
		}
		c.unorder[f.ID] = struct{}{}
		return nil
	}
	if r := len(c.ranges); r > 0 && f.ID == c.ranges[r-1][1]+1 {
		c.ranges[r-1][1] = f.ID
	} else {
		c.ranges = append(c.ranges, [2]int{f.ID, f.ID})
	}
	return nil
}

// seen reports whether id was added before.
func (c *Checker) seen(id int) bool {
	i := sort.Search(len(c.ranges), func(i int) bool { return c.ranges[i][1] >= id })
	if i < len(c.ranges) && c.ranges[i][0] <= id {
		return true
	}
	_, ok := c.unorder[id]
	return ok
}

// Source yields flows one at a time in start order, so that a run can
// consume a workload without holding all of it.
type Source interface {
	// Next returns the next flow; ok is false once the flows are
	// exhausted or an error stopped the source (see Err).
	Next() (f Flow, ok bool)
	// Err is the error that stopped the source, nil at a normal end.
	Err() error
}

// SliceSource returns a Source over flows.
func SliceSource(flows []Flow) Source { return &sliceSource{flows: flows} }

type sliceSource struct {
	flows []Flow
	i     int
}

func (s *sliceSource) Next() (Flow, bool) {
	if s.i == len(s.flows) {
		return Flow{}, false
	}
	s.i++
	return s.flows[s.i-1], true
}

func (s *sliceSource) Err() error { return nil }

// Digest is "sha256:" and the hex SHA-256 of the flows' canonical
// encoding (each flow's id, src, dst, size, start and class as
// little-endian int64s, in order): equal digests mean the same flows, in
// the same order, whatever file or program they came from.
func Digest(flows []Flow) string {
	h := sha256.New()
	var b [48]byte
	for _, f := range flows {
		for i, v := range [6]int64{int64(f.ID), int64(f.Src), int64(f.Dst), f.Size, f.Start, int64(f.Class)} {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
		}
		h.Write(b[:])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
