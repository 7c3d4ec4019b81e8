#!/usr/bin/env bash
# `make notebooks`: executes every notebooks/*.ipynb headless through the
# tailscope-go kernel installed in the project environment (nbconvert), then
# the GoNB versions notebooks/gonb/*.ipynb through tailscope-gonb, then the
# Python companion notebooks/python/*.ipynb (they read the Go notebooks'
# frames) with the environment's ipykernel, at the given scale (ci, quick or
# paper; default ci), into $NOTEBOOK_OUT (default build/notebooks). Frames
# and figures go under $TAILSCOPE_OUT/notebooks (default out/notebooks).
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
	books=("$ROOT"/notebooks/*.ipynb "$ROOT"/notebooks/gonb/*.ipynb "$ROOT"/notebooks/python/*.ipynb)
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
# Absolute, so that notebooks in subdirectories write to the same tree.
export TAILSCOPE_OUT=${TAILSCOPE_OUT:-$ROOT/out}
# child_cpu sets cpu to the CPU seconds (user + system) of this script's
# finished children so far: nbconvert with its kernel and, under GoNB, the
# compiler. Each notebook reports its difference beside its wall time, as
# the shared machines need. `times` must run in this shell (a subshell
# has no children): no $(...) around it, hence the file.
times_file=$(mktemp)
trap 'rm -f "$times_file"' EXIT
child_cpu() {
	times > "$times_file"
	cpu=$(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); n += a[1] * 60 + a[2] } printf "%.1f", n }' "$times_file")
}
failed=0
for nb in "${books[@]}"; do
	# Executed copies keep their place under notebooks/ (python/... stays
	# python/...).
	name=${nb#"$ROOT/notebooks/"}
	case $name in /*) name=$(basename "$nb") ;; esac
	start=$(date +%s)
	child_cpu
	cpu0=$cpu
	# Run from the notebook's own directory so relative paths in cells work;
	# the kernel is the one the notebook names (tailscope-go, tailscope-gonb
	# or python3).
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
	child_cpu
	echo "ok   $name ($(( $(date +%s) - start )) s wall, $(awk -v a="$cpu0" -v b="$cpu" 'BEGIN { printf "%.1f", b - a }') CPU s, scale $scale)" >&2
done
exit $failed
