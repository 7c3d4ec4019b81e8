#!/usr/bin/env bash
# `make lab`: starts Jupyter on notebooks/ with the tailscope-go kernel
# installed: JupyterLab where it is installed, else the classic notebook
# server (all Debian packages). Extra arguments go to Jupyter.
set -euo pipefail
. "$(dirname "$0")/env.sh"

if [ ! -f "$KERNELSPEC_ROOT/$KERNEL_NAME/kernel.json" ]; then
	echo "kernel/lab.sh: kernelspec $KERNEL_NAME not installed in $KERNELSPEC_ROOT: run make kernel" >&2
	exit 1
fi
export TAILSCOPE_SCALE=${TAILSCOPE_SCALE:-quick}
cd "$ROOT/notebooks"
# Jupyter refuses to run as root unless told (containers often are root).
extra=()
if [ "$(id -u)" -eq 0 ]; then
	extra+=(--allow-root)
fi
if command -v jupyter-lab >/dev/null 2>&1; then
	exec jupyter-lab "${extra[@]}" "$@"
fi
"$KERNEL_DIR/deps.sh"
exec "$PYTHON" -m notebook "${extra[@]}" "$@"
