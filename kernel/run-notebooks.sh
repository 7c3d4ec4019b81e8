#!/usr/bin/env bash
# `make notebooks`: executes every notebooks/*.ipynb headless through the
# tailscope-go kernel installed in the project environment (nbconvert) and
# the GoNB versions notebooks/gonb/*.ipynb through tailscope-gonb, as many
# at once as there are cores ($NOTEBOOK_JOBS), then the Python companion
# notebooks/python/*.ipynb (they read the Go notebooks' frames) with the
# environment's ipykernel, at the given scale (ci, quick or paper; default
# ci), into $NOTEBOOK_OUT (default build/notebooks). Frames and figures go
# under $TAILSCOPE_OUT/notebooks (default out/notebooks).
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
# Independent notebooks run $NOTEBOOK_JOBS at a time (default: one per
# core; most of them run one core's worth of simulation); the Python ones
# read the Go notebooks' frames, so they start when those are done.
jobs_max=${NOTEBOOK_JOBS:-$(nproc)}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# run_one executes notebook $1 with its output in the log file $2, checks
# its outputs, and prints an ok line with its wall time and CPU seconds
# (user + system of nbconvert with its kernel and, under GoNB, the
# compiler: what the shared machines need), or the log and a FAIL line.
# It runs as a background job of its own, so `times` there counts this
# notebook alone. Its status goes to $2.rc.
run_one() {
	local nb=$1 log=$2 name start
	# Executed copies keep their place under notebooks/ (python/... stays
	# python/...).
	name=${nb#"$ROOT/notebooks/"}
	case $name in /*) name=$(basename "$nb") ;; esac
	start=$(date +%s)
	echo 1 > "$log.rc"
	# Run from the notebook's own directory so relative paths in cells work;
	# the kernel is the one the notebook names (tailscope-go, tailscope-gonb
	# or python3).
	if ! (cd "$(dirname "$nb")" && "$PYTHON" -m nbconvert --execute --to notebook \
		--ExecutePreprocessor.timeout="$timeout" \
		--output-dir "$out/$(dirname "$name")" --output "$(basename "$name")" "$nb") > "$log" 2>&1; then
		cat "$log" >&2
		echo "FAIL $name: a cell failed (see above)" >&2
		return
	fi
	if ! "$PYTHON" "$KERNEL_DIR/check_outputs.py" "$nb" "$out/$name"; then
		return
	fi
	times > "$log.times"
	echo "ok   $name ($(( $(date +%s) - start )) s wall, $(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); n += a[1] * 60 + a[2] } printf "%.1f", n }' "$log.times") CPU s, scale $scale)" >&2
	echo 0 > "$log.rc"
}

# run_all runs the notebooks it is given, jobs_max at a time, and waits for
# them all.
n=0
run_all() {
	local nb
	for nb in "$@"; do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
			wait -n || true
		done
		run_one "$nb" "$logs/$n.log" &
		n=$((n + 1))
	done
	wait
}

first=() python=()
for nb in "${books[@]}"; do
	case $nb in
	*/notebooks/python/*) python+=("$nb") ;;
	*) first+=("$nb") ;;
	esac
done
run_all "${first[@]}"
run_all "${python[@]}"
failed=0
for rc in "$logs"/*.rc; do
	[ "$(cat "$rc")" = 0 ] || failed=1
done
exit $failed
