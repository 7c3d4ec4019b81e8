#!/usr/bin/env bash
# `make notebooks`: executes every notebooks/*.ipynb headless through the
# tailscope-go kernel installed in the project environment (nbconvert), then
# the Python companion notebooks/python/*.ipynb (they read the Go notebooks'
# frames) with the environment's ipykernel, at the given scale (ci, quick or
# paper; default ci), into $NOTEBOOK_OUT (default build/notebooks).
# Fails on any cell error, and when a notebook whose code draws figures
# (it mentions vgimg, vgsvg or display.PNG/SVG) has no image in its outputs.
#
# Usage: kernel/run-notebooks.sh [scale] [notebook.ipynb ...]
set -euo pipefail
. "$(dirname "$0")/env.sh"

need_venv

scale=${1:-ci}
shift || true
case $scale in
ci | quick | paper) ;;
*) echo "kernel/run-notebooks.sh: unknown scale '$scale' (want ci, quick or paper)" >&2; exit 2 ;;
esac
if [ $# -gt 0 ]; then
	books=()
	for nb in "$@"; do # absolute, since each runs from its own directory
		books+=("$(cd "$(dirname "$nb")" && pwd)/$(basename "$nb")")
	done
else
	books=("$ROOT"/notebooks/*.ipynb "$ROOT"/notebooks/python/*.ipynb)
fi
if [ ! -e "${books[0]}" ]; then
	echo "kernel/run-notebooks.sh: no notebooks found" >&2; exit 1
fi
# Per-cell limit: paper-scale cells run long.
case $scale in
ci) timeout=600 ;;
quick) timeout=3600 ;;
paper) timeout=-1 ;;
esac
out=${NOTEBOOK_OUT:-$ROOT/build/notebooks}
mkdir -p "$out"
export TAILSCOPE_SCALE=$scale
failed=0
for nb in "${books[@]}"; do
	# Executed copies keep their place under notebooks/ (python/... stays
	# python/...).
	name=${nb#"$ROOT/notebooks/"}
	case $name in /*) name=$(basename "$nb") ;; esac
	start=$(date +%s)
	# Run from the notebook's own directory so relative paths in cells work;
	# the kernel is the one the notebook names (tailscope-go or python3).
	if ! (cd "$(dirname "$nb")" && "$PYTHON" -m nbconvert --execute --to notebook \
		--ExecutePreprocessor.timeout="$timeout" \
		--output-dir "$out/$(dirname "$name")" --output "$(basename "$name")" "$nb"); then
		echo "FAIL $name: a cell failed (see above)" >&2
		failed=1
		continue
	fi
	if ! "$PYTHON" "$KERNEL_DIR/check_outputs.py" "$nb" "$out/$name"; then
		failed=1
		continue
	fi
	echo "ok   $name ($(( $(date +%s) - start )) s, scale $scale)" >&2
done
exit $failed
