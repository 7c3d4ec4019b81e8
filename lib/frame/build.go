package frame

import (
	"runtime/debug"
	"sync"
)

// Build names the build of tailscope that is running: the toolkit Version
// and, when the binary's build information records it (go build in a git
// checkout, as "make tailscope" does), the commit it was built from,
// with "+dirty" when the tree had uncommitted changes:
// "0.2.0 3f9c2a1b7d4e+dirty". Test binaries and the notebook kernel carry
// no commit of tailscope's: Build is then Version alone. Every run log
// records it (Meta.Build), and "tailscope version" prints it.
func Build() string { return build() }

var build = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	return buildOf(info, ok)
})

// buildOf is Build for the build information info (ok: there is some).
func buildOf(info *debug.BuildInfo, ok bool) string {
	b := Version
	if !ok || info == nil {
		return b
	}
	var rev string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return b
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	b += " " + rev
	if dirty {
		b += "+dirty"
	}
	return b
}
