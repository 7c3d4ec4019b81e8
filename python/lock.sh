#!/usr/bin/env bash
# Regenerates python/requirements.txt, the hashed lock of the project's
# Python environment, from python/requirements.in with pip-tools (installed
# into a throwaway virtual environment, pinned). Run after editing
# requirements.in; commit both files. `make venv` then reinstalls.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${PYTHON3:-python3}" -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q pip-tools==7.6.2
# Hashes of every file PyPI serves for each pin, so the lock also installs on
# other platforms; no index or find-links lines (they would be this
# machine's).
"$tmp/venv/bin/pip-compile" --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links \
	--output-file=requirements.txt requirements.in
