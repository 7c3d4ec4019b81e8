package ns3

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Outside the module the program lives under the user's cache directory
// in a directory named for its source's digest: two sources (two
// tailscope builds) get two programs, one source always the same one.
func TestCachedProgramByDigest(t *testing.T) {
	cache := t.TempDir()
	a, b := []byte("int main() { return 0; }\n"), []byte("int main() { return 1; }\n")
	want := func(src []byte) string {
		return filepath.Join(cache, "tailscope", "ns3", fmt.Sprintf("%x", sha256.Sum256(src))[:16], "tailscope-ns3")
	}
	for _, c := range []struct {
		name string
		src  []byte
	}{{"a", a}, {"b", b}, {"embedded", source}} {
		t.Run(c.name, func(t *testing.T) {
			if got := cachedProgram(cache, c.src); got != want(c.src) {
				t.Errorf("cachedProgram = %s, want %s", got, want(c.src))
			}
		})
	}
	if cachedProgram(cache, a) == cachedProgram(cache, b) {
		t.Errorf("two sources share the program %s", cachedProgram(cache, a))
	}
	if SourceDigest() != fmt.Sprintf("%x", sha256.Sum256(source)) {
		t.Errorf("SourceDigest %s is not the embedded source's", SourceDigest())
	}

	// DefaultProgram from a directory outside the module.
	t.Chdir(t.TempDir())
	t.Setenv("XDG_CACHE_HOME", cache)
	user, err := os.UserCacheDir()
	if err != nil {
		t.Skip(err)
	}
	cache = user
	if got := DefaultProgram(); got != want(source) {
		t.Errorf("DefaultProgram outside the module = %s, want %s", got, want(source))
	}
}
