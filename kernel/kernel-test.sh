#!/usr/bin/env bash
# `make kernel-test`: installs the built kernel's kernelspec into a temporary
# Jupyter path (the environment's kernels are left alone) and runs
# kernel/smoke_test.py over the Jupyter protocol with the project's Python.
set -euo pipefail
. "$(dirname "$0")/env.sh"

need_venv
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
KERNELSPEC_ROOT=$tmp/kernels "$KERNEL_DIR/install.sh"
SECONDS=0
JUPYTER_PATH=$tmp "$PYTHON" "$KERNEL_DIR/smoke_test.py"
echo "kernel/kernel-test.sh: smoke test took ${SECONDS} s" >&2
