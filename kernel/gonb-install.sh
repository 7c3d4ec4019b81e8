#!/usr/bin/env bash
# Builds GoNB and goimports at the versions pinned in kernel/gonb/go.mod and
# installs the tailscope-gonb kernelspec into $KERNELSPEC_ROOT (default: the
# project environment's share/jupyter/kernels, see env.sh), beside the
# default tailscope-go (gophernotes) kernel.
#
# GoNB compiles every cell execution into a program with the go command, so
# the spec carries the Go environment of the kernel build (kernel_go_env:
# pinned toolchain, private module and build caches) and a go.work that uses
# this checkout: notebooks import github.com/tailscope/tailscope/... as it
# is on disk, with no module download.
set -euo pipefail
. "$(dirname "$0")/env.sh"

need_venv
kernel_go_env
say() { echo "kernel/gonb-install.sh: $*" >&2; }

# `go install pkg@version` would ask the proxy for gonb's version list, which
# it refuses; building the pinned module's tools needs no listing.
mkdir -p "$(dirname "$GONB_BIN")"
say "building GoNB and goimports"
(cd "$KERNEL_DIR/gonb" && go build -trimpath -o "$(dirname "$GONB_BIN")/" \
	github.com/janpfeifer/gonb golang.org/x/tools/cmd/goimports)

dest=$KERNELSPEC_ROOT/$GONB_NAME
mkdir -p "$dest"
for t in gonb goimports; do
	cp "$(dirname "$GONB_BIN")/$t" "$dest/$t.tmp"
	mv "$dest/$t.tmp" "$dest/$t"
done
(cd "$ROOT" && go run ./kernel/mklogo -size 64 -o "$dest/logo-64x64.png" &&
	go run ./kernel/mklogo -size 32 -o "$dest/logo-32x32.png")

# kernel.json. The cells' go command runs with the kernel build's settings;
# GOWORK is left to GoNB, which keeps its go.work in its own scratch module.
# goimports (GoNB adds a cell's missing imports with it) is found on PATH.
"$PYTHON" - "$dest" "$ROOT" <<'PY'
import json, os, sys
dest, root = sys.argv[1], sys.argv[2]
env = {k: os.environ[k] for k in
       ("GOPATH", "GOMODCACHE", "GOCACHE", "GOTOOLCHAIN", "GOPROXY", "GONOSUMDB", "GOFLAGS")}
env["PATH"] = dest + os.pathsep + os.environ["PATH"]
spec = {
    "argv": [os.path.join(dest, "gonb"), "--kernel", "{connection_file}",
             "--go_work=" + root],
    "display_name": "Go (GoNB, tailscope)",
    "language": "go",
    # GoNB's own setting: it stops the cell's program on an interrupt_request.
    "interrupt_mode": "message",
    "env": env,
}
with open(os.path.join(dest, "kernel.json"), "w") as f:
    json.dump(spec, f, indent=2)
    f.write("\n")
PY
say "installed kernelspec $GONB_NAME in $dest"
