#!/usr/bin/env bash
# Installs the tailscope-go kernelspec: kernel.json, the kernel binary and
# logos drawn by kernel/mklogo, into $KERNELSPEC_ROOT/tailscope-go (default:
# the project environment's share/jupyter/kernels, see env.sh). The binary is
# copied so that the spec keeps working while build/kernel is rebuilt.
set -euo pipefail
. "$(dirname "$0")/env.sh"

need_venv

if [ ! -x "$KERNEL_BIN" ]; then
	echo "kernel/install.sh: $KERNEL_BIN is missing: run kernel/build.sh first" >&2
	exit 1
fi
dest=$KERNELSPEC_ROOT/$KERNEL_NAME
mkdir -p "$dest"
cp "$KERNEL_BIN" "$dest/tailscope-kernel.tmp"
mv "$dest/tailscope-kernel.tmp" "$dest/tailscope-kernel"

# The logo drawer only needs the standard library: any Go toolchain builds it,
# and its build cache is the private one.
kernel_go_env
(cd "$ROOT" && go run ./kernel/mklogo -size 64 -o "$dest/logo-64x64.png" &&
	go run ./kernel/mklogo -size 32 -o "$dest/logo-32x32.png")

# kernel.json: JSON-escape the binary path through Python's json module.
"$PYTHON" - "$dest" <<'PY'
import json, os, sys
dest = sys.argv[1]
spec = {
    "argv": [os.path.join(dest, "tailscope-kernel"), "{connection_file}"],
    "display_name": "Go (tailscope)",
    "language": "go",
    "interrupt_mode": "signal",
    "metadata": {"debugger": False},
}
with open(os.path.join(dest, "kernel.json"), "w") as f:
    json.dump(spec, f, indent=2)
    f.write("\n")
PY
echo "kernel/install.sh: installed kernelspec $KERNEL_NAME in $dest" >&2
