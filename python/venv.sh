#!/usr/bin/env bash
# Creates the project's Python environment $VENV (default build/venv) from
# the hashed lock python/requirements.txt: JupyterLab, ipykernel, nbconvert,
# pandas, pyarrow, DuckDB, seaborn, pytest. The environment is rebuilt from
# scratch, so that a changed lock never leaves stale packages behind; the
# stamp file $VENV/.installed records a complete install (make depends on it).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${VENV:-$ROOT/build/venv}
lock=$ROOT/python/requirements.txt

# Debian's python3 needs python3-venv for `-m venv` (ensurepip).
py=${PYTHON3:-python3}
if ! "$py" -c 'import ensurepip, venv' 2>/dev/null; then
	"$ROOT/scripts/ensure-debs.sh" python3-venv
fi
rm -rf "$VENV"
"$py" -m venv "$VENV"
# --require-hashes: every wheel must match the lock; --no-deps: the lock is
# complete, nothing is resolved here; --no-compile: Python compiles the
# modules it imports when first run (into the environment), not all 106
# packages' now (pip install 51 -> 29 CPU s).
"$VENV/bin/pip" install --quiet --disable-pip-version-check --require-hashes --no-deps --no-compile -r "$lock"
"$VENV/bin/python" -m pip check >&2
touch "$VENV/.installed"
echo "python/venv.sh: installed $(grep -c '^[A-Za-z0-9]' "$lock") locked packages into $VENV" >&2
