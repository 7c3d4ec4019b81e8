package experiment

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"

	"github.com/tailscope/tailscope/lib/netcfg"
	"github.com/tailscope/tailscope/lib/parsimon"
	"github.com/tailscope/tailscope/lib/workload"
)

// linkInputMagic starts every link-task input file: the format and its
// version, so that a file of another format is refused by name.
const linkInputMagic = "tailscope-link-input/1\n"

// linkInputExt is the extension of a link-task input file.
const linkInputExt = ".links"

// linkHeader is the part of a link-task input file that is not per flow:
// the backend and the network models of its simulations (one in
// practice), gob-encoded once per file.
type linkHeader struct {
	Backend string
	Configs []netcfg.Config
}

// encodeLinkInput writes in as a link-task input file: the magic, the
// gob-encoded header, then every simulation as varints: its channel,
// shape, ECN threshold, window flag and network model (an index into the
// header's), its nodes and links, and its flows with IDs and start times
// as differences from the previous flow's. A run's link tasks carry
// hundreds of millions of flow entries, and gob's reflection was most of
// what moving them cost (1.1 CPU s to encode and as much to decode 177
// MB at 683k flows); varints also take less than half of gob's bytes.
// The encoding is deterministic: equal inputs, equal bytes.
func encodeLinkInput(in *linkInput) ([]byte, error) {
	h := linkHeader{Backend: in.Backend}
	cfgIndex := make([]int, len(in.Tasks))
	for i := range in.Tasks {
		cfgIndex[i] = -1
		for j := range h.Configs {
			if h.Configs[j] == in.Tasks[i].Config {
				cfgIndex[i] = j
				break
			}
		}
		if cfgIndex[i] < 0 {
			cfgIndex[i] = len(h.Configs)
			h.Configs = append(h.Configs, in.Tasks[i].Config)
		}
	}
	var hdr bytes.Buffer
	if err := gob.NewEncoder(&hdr).Encode(&h); err != nil {
		return nil, fmt.Errorf("experiment: parsimon link input: %w", err)
	}
	size := len(linkInputMagic) + hdr.Len() + 16
	for i := range in.Tasks {
		size += 32 + 8*len(in.Tasks[i].Nodes) + 16*len(in.Tasks[i].Links) + 16*len(in.Tasks[i].Flows)
	}
	b := make([]byte, 0, size)
	b = append(b, linkInputMagic...)
	b = binary.AppendUvarint(b, uint64(hdr.Len()))
	b = append(b, hdr.Bytes()...)
	b = binary.AppendUvarint(b, uint64(len(in.Tasks)))
	for i := range in.Tasks {
		t := &in.Tasks[i]
		b = binary.AppendVarint(b, int64(t.Channel))
		b = binary.AppendVarint(b, int64(t.Kind))
		b = binary.AppendVarint(b, t.KBytes)
		flags := uint64(0)
		if t.WindowOnce {
			flags = 1
		}
		b = binary.AppendUvarint(b, flags)
		b = binary.AppendUvarint(b, uint64(cfgIndex[i]))
		b = binary.AppendUvarint(b, uint64(len(t.Nodes)))
		for _, n := range t.Nodes {
			sw := int64(0)
			if n.Switch {
				sw = 1
			}
			b = binary.AppendVarint(b, int64(n.ID))
			b = binary.AppendVarint(b, sw)
		}
		b = binary.AppendUvarint(b, uint64(len(t.Links)))
		for _, l := range t.Links {
			b = binary.AppendVarint(b, int64(l.A))
			b = binary.AppendVarint(b, int64(l.B))
			b = binary.AppendVarint(b, l.Bandwidth)
			b = binary.AppendVarint(b, l.NominalBandwidth)
			b = binary.AppendVarint(b, l.Delay)
		}
		b = binary.AppendUvarint(b, uint64(len(t.Flows)))
		var id, start int64
		for _, f := range t.Flows {
			b = binary.AppendVarint(b, int64(f.ID)-id)
			b = binary.AppendVarint(b, int64(f.Src))
			b = binary.AppendVarint(b, int64(f.Dst))
			b = binary.AppendVarint(b, f.Size)
			b = binary.AppendVarint(b, f.Start-start)
			b = binary.AppendVarint(b, int64(f.Class))
			id, start = int64(f.ID), f.Start
		}
	}
	return b, nil
}

// linkReader reads the varints of a link-task input file, keeping the
// first error (a truncated or malformed file).
type linkReader struct {
	b   []byte
	err error
}

// varint reads a signed varint: a zigzag-encoded uvarint, as
// binary.AppendVarint writes it.
func (r *linkReader) varint() int64 {
	u := r.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (r *linkReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("truncated or malformed number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count reads a number of elements of at least per bytes each, refusing
// one the rest of the file cannot hold (so that a damaged count never
// allocates more than the file's size).
func (r *linkReader) count(what string, per int) int {
	n := r.uvarint()
	if r.err == nil && n > uint64(len(r.b)/per) {
		r.err = fmt.Errorf("%d %s do not fit in the %d bytes left", n, what, len(r.b))
		return 0
	}
	return int(n)
}

// integer reads a varint that must fit in an int.
func (r *linkReader) integer() int {
	v := r.varint()
	if r.err == nil && int64(int(v)) != v {
		r.err = fmt.Errorf("number %d out of range", v)
	}
	return int(v)
}

// decodeLinkInput reads a link-task input file written by
// encodeLinkInput.
func decodeLinkInput(raw []byte) (*linkInput, error) {
	rest, ok := bytes.CutPrefix(raw, []byte(linkInputMagic))
	if !ok {
		return nil, fmt.Errorf("not a link-task input file of this version (it does not start with %q)", linkInputMagic)
	}
	r := &linkReader{b: rest}
	hlen := r.count("header bytes", 1)
	if r.err != nil {
		return nil, fmt.Errorf("header: %w", r.err)
	}
	var h linkHeader
	if err := gob.NewDecoder(bytes.NewReader(r.b[:hlen])).Decode(&h); err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	r.b = r.b[hlen:]
	in := &linkInput{Backend: h.Backend, Tasks: make([]parsimon.Task, r.count("simulations", 8))}
	for i := range in.Tasks {
		t := &in.Tasks[i]
		t.Channel = r.integer()
		t.Kind = parsimon.Kind(r.integer())
		t.KBytes = r.varint()
		switch flags := r.uvarint(); flags {
		case 0, 1:
			t.WindowOnce = flags == 1
		default:
			if r.err == nil {
				r.err = fmt.Errorf("simulation %d: flags %d", i, flags)
			}
		}
		if c := r.uvarint(); r.err == nil {
			if c >= uint64(len(h.Configs)) {
				return nil, fmt.Errorf("simulation %d: network model %d of %d", i, c, len(h.Configs))
			}
			t.Config = h.Configs[c]
		}
		t.Nodes = make([]parsimon.TaskNode, r.count("nodes", 2))
		for j := range t.Nodes {
			t.Nodes[j].ID = r.integer()
			t.Nodes[j].Switch = r.varint() != 0
		}
		t.Links = make([]parsimon.TaskLink, r.count("links", 5))
		for j := range t.Links {
			l := &t.Links[j]
			l.A, l.B = r.integer(), r.integer()
			l.Bandwidth, l.NominalBandwidth, l.Delay = r.varint(), r.varint(), r.varint()
		}
		t.Flows = make([]workload.Flow, r.count("flows", 6))
		var id, start int64
		for j := range t.Flows {
			f := &t.Flows[j]
			id += r.varint()
			f.ID = int(id)
			f.Src, f.Dst = r.integer(), r.integer()
			f.Size = r.varint()
			start += r.varint()
			f.Start = start
			f.Class = r.integer()
		}
		if r.err != nil {
			return nil, fmt.Errorf("simulation %d of %d: %w", i, len(in.Tasks), r.err)
		}
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = fmt.Errorf("%d bytes after the last simulation", len(r.b))
	}
	if r.err != nil {
		return nil, r.err
	}
	return in, nil
}
