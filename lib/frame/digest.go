package frame

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// A frame carries a SHA-256 digest of its own bytes, so that a corrupted or
// altered file is refused before any decoder sees it: arrow/go v15 neither
// writes nor checks Parquet page checksums, its decoders panic on some
// corrupted pages, and a damaged footer can change the provenance without
// failing to parse.
//
// The digest is the value of the metadata key tailscope.digest, written as
// digestMarker followed by 64 hex digits. It covers the whole file with the
// hex digits of every copy of the value set to '0' (Arrow IPC files hold
// the schema metadata twice). WriteTable writes the all-zero placeholder,
// hashes the finished file and patches the digest into place; readers find
// the copies, check they agree, zero them and hash again.
const (
	digestMarker = "tailscope-sha256:"
	digestHexLen = 2 * sha256.Size
)

// digestPlaceholder is the digest value a frame is written with before
// seal patches in the real one.
var digestPlaceholder = digestMarker + strings.Repeat("0", digestHexLen)

// errNoDigest reports a frame without any digest copy.
var errNoDigest = errors.New("no tailscope digest")

// digestCopies returns the offsets of the hex digits of every digest copy
// in b: digestMarker followed by 64 lowercase hex digits.
func digestCopies(b []byte) []int {
	var offs []int
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte(digestMarker))
		if j < 0 {
			return offs
		}
		start := i + j + len(digestMarker)
		if start+digestHexLen <= len(b) && isHex(b[start:start+digestHexLen]) {
			offs = append(offs, start)
		}
		i = start
	}
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// sum hashes b with the hex digits at offs read as '0'.
func sum(b []byte, offs []int) string {
	h := sha256.New()
	zeros := []byte(strings.Repeat("0", digestHexLen))
	prev := 0
	for _, o := range offs {
		h.Write(b[prev:o])
		h.Write(zeros)
		prev = o + digestHexLen
	}
	h.Write(b[prev:])
	return hex.EncodeToString(h.Sum(nil))
}

// verifyDigest checks the digest of a frame's bytes and returns its value
// (digestMarker and hex), or errNoDigest if b holds no copy of it and no
// tailscope metadata either (a file written by another program). A file
// whose copies of the digest are all damaged still holds its tailscope keys
// in plain text, so it is refused here, before a decoder sees it.
func verifyDigest(b []byte) (string, error) {
	offs := digestCopies(b)
	if len(offs) == 0 {
		if bytes.Contains(b, []byte(keyPrefix)) {
			return "", fmt.Errorf("the file has tailscope metadata but no intact digest (altered, or written before tailscope 0.2.0: rewrite it)")
		}
		return "", errNoDigest
	}
	stored := string(b[offs[0] : offs[0]+digestHexLen])
	for _, o := range offs[1:] {
		if s := string(b[o : o+digestHexLen]); s != stored {
			return "", fmt.Errorf("corrupted: the file's %d copies of its digest disagree (%.12s... and %.12s...)", len(offs), stored, s)
		}
	}
	if got := sum(b, offs); got != stored {
		return "", fmt.Errorf("corrupted: the file's SHA-256 is %.12s... but it was written with %.12s... (altered after it was written)", got, stored)
	}
	return digestMarker + stored, nil
}

// seal patches the digest of the frame just written to f (with the
// placeholder in its metadata) into every copy of the placeholder and
// returns the digest value.
func seal(f *os.File) (string, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return "", err
	}
	offs := digestCopies(b)
	if len(offs) == 0 {
		return "", fmt.Errorf("the digest placeholder is missing from the written file")
	}
	for _, o := range offs {
		if string(b[o-len(digestMarker):o+digestHexLen]) != digestPlaceholder {
			// Values containing the marker are refused before writing.
			return "", fmt.Errorf("the written file holds a digest other than the placeholder")
		}
	}
	d := sum(b, offs)
	for _, o := range offs {
		if _, err := f.WriteAt([]byte(d), int64(o)); err != nil {
			return "", err
		}
	}
	return digestMarker + d, nil
}

// checkNoMarker refuses a table whose metadata or string values contain
// digestMarker, which would be taken for a copy of the digest.
func (t *Table) checkNoMarker() error {
	m := t.Meta
	for _, v := range []string{m.Version, m.ScenarioID, m.Estimator, m.Network, m.Spec, m.Options} {
		if strings.Contains(v, digestMarker) {
			return fmt.Errorf("metadata value %.60q contains %q, which frames reserve for their digest", v, digestMarker)
		}
	}
	for k, v := range m.Extra {
		if strings.Contains(k, digestMarker) || strings.Contains(v, digestMarker) {
			return fmt.Errorf("Meta.Extra[%.40q] contains %q, which frames reserve for their digest", k, digestMarker)
		}
	}
	for i := range t.Columns {
		c := &t.Columns[i]
		if strings.Contains(c.Name, digestMarker) {
			return fmt.Errorf("column name %.60q contains %q, which frames reserve for their digest", c.Name, digestMarker)
		}
		for r, s := range c.String {
			if strings.Contains(s, digestMarker) {
				return fmt.Errorf("column %q row %d contains %q, which frames reserve for their digest", c.Name, r, digestMarker)
			}
		}
	}
	return nil
}
