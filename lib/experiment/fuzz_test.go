package experiment

import (
	"encoding/json"
	"strings"
	"testing"
)

// A space parsed from any JSON is valid and encodes to JSON that parses.
func FuzzParseSpace(f *testing.F) {
	b, err := json.Marshal(DefaultSpace())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add(`{}`)
	f.Add(`{"max_load":{"min":0.9,"max":0.1}}`)
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpace(strings.NewReader(s))
		if err != nil {
			return
		}
		b, err := json.Marshal(sp)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseSpace(strings.NewReader(string(b))); err != nil {
			t.Fatalf("a parsed space does not parse again: %v\n%s", err, b)
		}
	})
}
