#!/bin/sh
# Times `make reproduce` as a new user meets it (BENCHMARKS.md, "Workloads,
# frames and the two commands"): a fresh clone of REV (default HEAD) with empty Go, pip, npm
# and XDG caches, so every module, wheel and package is downloaded and
# everything is compiled (Debian packages already installed stay
# installed). Prints the wall and CPU time, when the kernel was ready and
# the runner's line per notebook. The machine should be otherwise idle
# (stop long runs with kill -STOP, resume them with kill -CONT).
#
#   sh scripts/bench/reproduce-fresh.sh [REV]
set -eu
rev=${1:-HEAD}
work=$(mktemp -d)
git clone -q "$(git rev-parse --show-toplevel)" "$work/src"
git -C "$work/src" checkout -q "$rev"
mkdir -p "$work/cache"
echo "clone of $(git -C "$work/src" rev-parse --short HEAD) and its log in $work"
start=$(date +%s)
cd "$work/src"
status=0
env GOCACHE="$work/cache/go-build" GOMODCACHE="$work/cache/gomod" GOPATH="$work/cache/gopath" \
	PIP_CACHE_DIR="$work/cache/pip" npm_config_cache="$work/cache/npm" XDG_CACHE_HOME="$work/cache/xdg" \
	/usr/bin/time -f "make reproduce: %e s wall, %U user + %S system CPU s, peak RSS %M KiB" \
	make reproduce > "$work/reproduce.log" 2>&1 || status=$?
# The kernelspec is installed right after the kernel's build.
spec=build/venv/share/jupyter/kernels/tailscope-go/kernel.json
[ -e "$spec" ] && echo "kernel installed $(($(stat -c %Y "$spec") - start)) s after the start"
grep -E '^(ok|FAIL) |^make reproduce:' "$work/reproduce.log" || true
[ "$status" = 0 ] || echo "make reproduce failed with status $status (see $work/reproduce.log)"
exit "$status"
