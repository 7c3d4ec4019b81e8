package scenario

import (
	"strings"
	"testing"
)

// DirName keeps the reader's part of a name to safe characters and
// DirNameMax bytes, and always ends in the ID.
func TestDirName(t *testing.T) {
	tests := []struct {
		name, want string // want: the part before "-<id>"
	}{
		{"", "unnamed-meta32-2-1-dctcp-load50pct"},
		{"../../etc", "etc-meta32-2-1-dctcp-load50pct"},
		{"a b\tc", "a-b-c-meta32-2-1-dctcp-load50pct"},
		{strings.Repeat("x", 100), strings.Repeat("x", DirNameMax)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := Default()
			s.Name = tc.name
			if got, want := s.DirName(), tc.want+"-"+s.ID(); got != want {
				t.Errorf("DirName %q, want %q", got, want)
			}
		})
	}
}
