package topo

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tailscope/tailscope/lib/internal/memlimit"
)

// parsimonJSON is the topology file format of the Parsimon implementation.
type parsimonJSON struct {
	Nodes []struct {
		ID   int    `json:"id"`
		Kind string `json:"kind"`
	} `json:"nodes"`
	Links []struct {
		A         int   `json:"a"`
		B         int   `json:"b"`
		Bandwidth int64 `json:"bandwidth"`
		Delay     int64 `json:"delay"`
	} `json:"links"`
}

// ReadParsimonJSON reads a topology in Parsimon's JSON format:
// {"nodes":[{"id":0,"kind":"Host"}], "links":[{"a":0,"b":1,"bandwidth":bps,"delay":ns}]}.
// Rack and pod numbers are not part of the format: they are inferred
// (InferRacks) where every host hangs off one switch, else left at -1.
func ReadParsimonJSON(name string, r io.Reader) (*Network, error) {
	var p parsimonJSON
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("topo: reading Parsimon JSON %s: %w", name, err)
	}
	nodes := make([]Node, len(p.Nodes))
	for i, nd := range p.Nodes {
		k, err := ParseKind(nd.Kind)
		if err != nil {
			return nil, fmt.Errorf("topo: %s: node %d: %w", name, nd.ID, err)
		}
		nodes[i] = Node{ID: nd.ID, Kind: k, Rack: -1, Pod: -1}
	}
	links := make([]Link, len(p.Links))
	for i, l := range p.Links {
		links[i] = Link{A: l.A, B: l.B, Bandwidth: l.Bandwidth, Delay: l.Delay}
	}
	return newFromFile(name, nodes, links)
}

// newFromFile is New for a network read from the file name, its errors
// naming the file, its racks and pods inferred where the rule allows.
func newFromFile(name string, nodes []Node, links []Link) (*Network, error) {
	n, err := New(name, nodes, links)
	if err != nil {
		return nil, fmt.Errorf("topo: %s: %s", name, strings.TrimPrefix(err.Error(), "topo: "))
	}
	_ = n.InferRacks() // without racks, matrices say why they cannot run
	return n, nil
}

// WriteParsimonJSON writes n in Parsimon's JSON format.
func (n *Network) WriteParsimonJSON(w io.Writer) error {
	var p parsimonJSON
	for _, nd := range n.Nodes {
		p.Nodes = append(p.Nodes, struct {
			ID   int    `json:"id"`
			Kind string `json:"kind"`
		}{nd.ID, nd.Kind.String()})
	}
	for _, l := range n.Links {
		p.Links = append(p.Links, struct {
			A         int   `json:"a"`
			B         int   `json:"b"`
			Bandwidth int64 `json:"bandwidth"`
			Delay     int64 `json:"delay"`
		}{l.A, l.B, l.Bandwidth, l.Delay})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(p)
}

// ReadNS3 reads the topology.txt format of the HPCC-style ns-3 simulator
// used by Parsimon and m3 (the papers' ns-3 fork): a line "N S L" (nodes,
// switches, links), a line with the S switch ids, then L lines
// "a b 10Gbps 1000ns 0" (the last field, an error rate, must be 0).
// Racks and pods are inferred (InferRacks) where every host hangs off one
// switch.
func ReadNS3(name string, r io.Reader) (*Network, error) {
	sc := bufio.NewScanner(r)
	line := 0
	next := func() ([]string, error) {
		for sc.Scan() {
			line++
			if f := strings.Fields(sc.Text()); len(f) > 0 {
				return f, nil
			}
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, io.ErrUnexpectedEOF
	}
	errf := func(format string, a ...any) error {
		return fmt.Errorf("topo: %s line %d: %s", name, line, fmt.Sprintf(format, a...))
	}
	head, err := next()
	if err != nil {
		return nil, fmt.Errorf("topo: %s: missing header line: %w", name, err)
	}
	if len(head) != 3 {
		return nil, errf("header must be \"nodes switches links\", got %q", strings.Join(head, " "))
	}
	var cnt [3]int
	for i, f := range head {
		if cnt[i], err = strconv.Atoi(f); err != nil || cnt[i] < 0 {
			return nil, errf("bad count %q in header", f)
		}
	}
	// Every node needs a link (the network refuses disconnected hosts), so
	// a header with more than two nodes per link is refused before the
	// nodes are allocated (fuzzing found "200666666 0 0" taking 7 GB).
	if cnt[0] > 2*cnt[2] {
		return nil, errf("header says %d nodes but only %d links: at most %d nodes can each have a link", cnt[0], cnt[2], 2*cnt[2])
	}
	if err := memlimit.Check(fmt.Sprintf("topo: %s header: node count", name), int64(cnt[0]), int64(unsafe.Sizeof(Node{}))); err != nil {
		return nil, err
	}
	var sw []string
	if cnt[1] > 0 {
		if sw, err = next(); err != nil {
			return nil, fmt.Errorf("topo: %s: missing switch id line: %w", name, err)
		}
	}
	if len(sw) != cnt[1] {
		return nil, errf("header says %d switches but the line lists %d", cnt[1], len(sw))
	}
	switches := make([]int, len(sw))
	for i, f := range sw {
		id, err := strconv.Atoi(f)
		if err != nil || id < 0 || id >= cnt[0] {
			return nil, errf("bad switch id %q", f)
		}
		switches[i] = id
	}
	// Links are grown line by line and the nodes allocated only once they
	// are read: a header claiming more nodes or links than the file holds
	// fails at its end, having allocated only what it read.
	var links []Link
	for i := 0; i < cnt[2]; i++ {
		f, err := next()
		if err != nil {
			return nil, fmt.Errorf("topo: %s: header says %d links, found %d: %w", name, cnt[2], i, err)
		}
		if len(f) < 4 {
			return nil, errf("link needs \"a b rate delay [error-rate]\", got %q", strings.Join(f, " "))
		}
		a, err1 := strconv.Atoi(f[0])
		b, err2 := strconv.Atoi(f[1])
		switch {
		case err1 != nil || err2 != nil:
			return nil, errf("bad link end points %q %q", f[0], f[1])
		case a < 0 || a >= cnt[0] || b < 0 || b >= cnt[0]:
			return nil, errf("link %d-%d names a node beyond the header's %d nodes (0..%d)", a, b, cnt[0], cnt[0]-1)
		case a == b:
			return nil, errf("self-link: node %d is linked to itself", a)
		}
		bw, err := ParseRate(f[2])
		if err != nil {
			return nil, errf("%v", err)
		}
		d, err := ParseDelay(f[3])
		if err != nil {
			return nil, errf("%v", err)
		}
		if len(f) > 4 {
			if e, err := strconv.ParseFloat(f[4], 64); err != nil || e != 0 {
				return nil, errf("error rate %q is not supported (must be 0)", f[4])
			}
		}
		links = append(links, Link{A: a, B: b, Bandwidth: bw, Delay: d})
	}
	nodes := make([]Node, cnt[0])
	for i := range nodes {
		nodes[i] = Node{ID: i, Kind: Host, Rack: -1, Pod: -1}
	}
	for _, id := range switches {
		nodes[id].Kind = Switch
	}
	return newFromFile(name, nodes, links)
}

// WriteNS3 writes n in the ns-3 topology.txt format.
func (n *Network) WriteNS3(w io.Writer) error {
	bw := bufio.NewWriter(w)
	_, s := n.CountKinds()
	fmt.Fprintf(bw, "%d %d %d\n", len(n.Nodes), s, len(n.Links))
	var ids []string
	for _, nd := range n.Nodes {
		if nd.Kind == Switch {
			ids = append(ids, strconv.Itoa(nd.ID))
		}
	}
	fmt.Fprintln(bw, strings.Join(ids, " "))
	for _, l := range n.Links {
		fmt.Fprintf(bw, "%d %d %dbps %dns 0\n", l.A, l.B, l.Bandwidth, l.Delay)
	}
	return bw.Flush()
}

// ParseRate reads a link rate in bits per second: a number, an optional
// SI prefix (K or k, M, G, T) and an optional "bps", "b/s", "bit/s" or
// "bits/s", so "10Gbps", "10Gb/s", "10Gbit/s", "10G", "40000Mbps" and
// "1e10bps" are all read. A bare number is refused (bits or gigabits?),
// as is anything else, with the spellings accepted.
func ParseRate(s string) (int64, error) {
	t := strings.TrimSpace(s)
	end := 0
	for end < len(t) && strings.IndexByte("0123456789.eE+-", t[end]) >= 0 {
		end++
	}
	num, unit := t[:end], strings.TrimSpace(t[end:])
	given := unit
	mult, ok := 1.0, true
	if unit != "" {
		switch unit[0] {
		case 'T':
			mult, unit = 1e12, unit[1:]
		case 'G':
			mult, unit = 1e9, unit[1:]
		case 'M':
			mult, unit = 1e6, unit[1:]
		case 'K', 'k':
			mult, unit = 1e3, unit[1:]
		}
		switch unit {
		case "", "bps", "b/s", "bit/s", "bits/s":
		default:
			ok = false
		}
	}
	const spellings = "10Gbps, 10Gb/s, 10Gbit/s or 10G (prefixes K, M, G, T; bits per second)"
	if given == "" {
		return 0, fmt.Errorf("bad rate %q: it has no unit; write it as %s", s, spellings)
	}
	v, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil {
		return 0, fmt.Errorf("bad rate %q: want a number and a unit, as in %s", s, spellings)
	}
	bps := math.Round(v * mult)
	if !(bps >= 1 && bps < math.MaxInt64) {
		return 0, fmt.Errorf("bad rate %q: want from 1 bps to 9.2e18 bps", s)
	}
	return int64(bps), nil
}

// ParseDelay reads a delay such as "1000ns", "1us", "0.001ms" as nanoseconds.
func ParseDelay(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(num, 64)
			ns := math.Round(v * u.mult)
			if err != nil || !(ns >= 0 && ns < math.MaxInt64) {
				return 0, fmt.Errorf("bad delay %q: want a number of %s from 0 to 9.2e18 ns", s, u.suffix)
			}
			return int64(ns), nil
		}
	}
	return 0, fmt.Errorf("delay %q has no unit (ns, us, ms, s)", s)
}

// InferRacks gives a network read from a file (whose format has no racks)
// the racks and pods of a fabric, so that rack-level traffic matrices and
// their load targeting work on it. The rule:
//
//   - a rack is the hosts under one switch, their top-of-rack switch
//     (ToR): every host must have exactly one link, to a switch; if one
//     does not, no racks are inferred and InferRacks reports why;
//   - racks are numbered in the order of their lowest host id (a fabric
//     numbers its hosts rack by rack, so its own export gets its racks
//     back);
//   - two racks are in one pod when their ToRs share a neighbor switch
//     that is not a ToR (an aggregation, or fabric, switch), and pods are
//     the groups this joins, numbered in the order of their lowest rack;
//     an aggregation switch is in its ToRs' pod, and a switch farther
//     up (a spine) in none. A two-tier leaf-spine network is one pod.
//
// Nodes keep Rack and Pod -1 where the rule gives none.
func (n *Network) InferRacks() error {
	tor := make(map[int]int) // host -> its switch
	for _, h := range n.hosts {
		out := n.out[h]
		if len(out) != 1 {
			return fmt.Errorf("topo: %s: host %d has %d links; racks are inferred only when every host has one link, to its top-of-rack switch", n.Name, h, len(out))
		}
		sw := n.Channels[out[0]].Dst
		if n.Nodes[sw].Kind != Switch {
			return fmt.Errorf("topo: %s: host %d is linked to host %d, not to a switch; racks need top-of-rack switches", n.Name, h, sw)
		}
		tor[h] = sw
	}
	rack := make(map[int]int) // ToR -> rack, in order of the lowest host
	var tors []int
	for _, h := range n.hosts { // ascending
		if _, ok := rack[tor[h]]; !ok {
			rack[tor[h]] = len(tors)
			tors = append(tors, tor[h])
		}
	}
	// Union the racks whose ToRs share an aggregation switch.
	parent := make([]int, len(tors))
	for i := range parent {
		parent[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	aggRack := make(map[int]int) // aggregation switch -> a rack under it
	for r, t := range tors {
		for _, c := range n.out[t] {
			s := n.Channels[c].Dst
			if _, isTor := rack[s]; isTor || n.Nodes[s].Kind != Switch {
				continue
			}
			if o, ok := aggRack[s]; ok {
				a, b := find(o), find(r)
				parent[max(a, b)] = min(a, b) // the lowest rack leads its pod
			} else {
				aggRack[s] = r
			}
		}
	}
	pod := make([]int, len(tors))
	podOf := map[int]int{}
	for r := range tors {
		root := find(r)
		if _, ok := podOf[root]; !ok {
			podOf[root] = len(podOf)
		}
		pod[r] = podOf[root]
	}
	for i := range n.Nodes {
		n.Nodes[i].Rack, n.Nodes[i].Pod = -1, -1
	}
	for _, h := range n.hosts {
		r := rack[tor[h]]
		n.Nodes[h].Rack, n.Nodes[h].Pod = r, pod[r]
	}
	for r, t := range tors {
		n.Nodes[t].Rack, n.Nodes[t].Pod = r, pod[r]
	}
	for s, r := range aggRack {
		n.Nodes[s].Pod = pod[r]
	}
	return nil
}
