package accuracy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
)

// designDigest hashes what identifies a design's scenarios: sample,
// draw, preset, change and scenario ID, in order.
func designDigest(t *testing.T, o Options) (int, string) {
	t.Helper()
	scs, _, err := Design(o)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, s := range scs {
		fmt.Fprintf(h, "%s %d %s %s %s\n", s.Sample, s.Draw, s.Preset, s.Change, s.Spec.ID())
	}
	return len(scs), hex.EncodeToString(h.Sum(nil))
}

// The committed archive (results/accuracy-atlas) is keyed by the small
// design's scenario IDs: growing the designs must leave them as they
// were drawn.
func TestSmallDesignUnchanged(t *testing.T) {
	for _, c := range []struct {
		size   string
		n      int
		digest string
	}{
		{"small", 700, "3077ae76aaec6f8ebd056811c86f48ffdcd1c340173d88495f50dea2b5aa27b9"},
		{"tiny", 6, "af583e9a3b41b1cf09e05a57b986f6261b3f5773723e7476ad26416a6fa15d9f"},
	} {
		t.Run(c.size, func(t *testing.T) {
			n, d := designDigest(t, Sizes[c.size])
			if n != c.n || d != c.digest {
				t.Errorf("the %s design has %d scenarios, digest %s; want %d, %s", c.size, n, d, c.n, c.digest)
			}
		})
	}
}
