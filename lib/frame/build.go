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
	return buildOf(info, ok, linkedCommit)
})

// linkedCommit is the commit "make tailscope" gives the linker
// (-X .../lib/frame.linkedCommit=<commit>[+dirty]): go build records no
// VCS information in a git worktree, whose .git is a file.
var linkedCommit string

// buildOf is Build for the build information info (ok: there is some)
// and the commit given to the linker, used when info has none.
func buildOf(info *debug.BuildInfo, ok bool, linked string) string {
	b := Version
	if !ok || info == nil {
		info = &debug.BuildInfo{}
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
		if linked != "" {
			b += " " + linked
		}
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
