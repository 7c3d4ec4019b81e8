#!/usr/bin/env bash
# `make lab`: JupyterLab from the project environment on 127.0.0.1 with a
# token, in the workspace $LAB_WORKSPACE (default build/lab):
#
#	notebooks/  working copies of notebooks/ (copied when missing, never
#	            overwritten: your edits and outputs stay here, the tracked
#	            sources are not opened)
#	executed/   the notebooks as `make reproduce` executed them (build/notebooks)
#	out/        their frames and figures (out/)
#
# Extra arguments go to jupyter-lab (e.g. --ServerApp.port=8899).
set -euo pipefail
. "$(dirname "$0")/env.sh"

need_venv
if [ ! -f "$KERNELSPEC_ROOT/$KERNEL_NAME/kernel.json" ]; then
	echo "kernel/lab.sh: kernelspec $KERNEL_NAME not installed in $KERNELSPEC_ROOT: run make kernel" >&2
	exit 1
fi
ws=${LAB_WORKSPACE:-$ROOT/build/lab}
mkdir -p "$ws/notebooks" "$ROOT/build/notebooks" "$ROOT/out"
(cd "$ROOT/notebooks" && find . -name '*.ipynb' -not -path '*/.ipynb_checkpoints/*') | while read -r rel; do
	if [ ! -e "$ws/notebooks/$rel" ]; then
		mkdir -p "$(dirname "$ws/notebooks/$rel")"
		cp "$ROOT/notebooks/$rel" "$ws/notebooks/$rel"
	fi
done
ln -sfn "$ROOT/build/notebooks" "$ws/executed"
ln -sfn "$ROOT/out" "$ws/out"

export TAILSCOPE_SCALE=${TAILSCOPE_SCALE:-quick}
export TAILSCOPE_OUT=$ROOT/out
# Token: JUPYTER_TOKEN if the caller sets one, else a fresh one that Jupyter
# generates and prints in the URL to open. The server refuses requests
# without it (the browser test checks that).
# Jupyter refuses to run as root unless told (containers often are root).
extra=()
if [ "$(id -u)" -eq 0 ]; then
	extra+=(--allow-root)
fi
echo "kernel/lab.sh: workspace $ws (notebooks/ are working copies; executed/ holds make reproduce's notebooks)" >&2
exec "$VENV/bin/jupyter-lab" --ServerApp.ip=127.0.0.1 --ServerApp.root_dir="$ws" \
	--no-browser "${extra[@]}" "$@"
