#!/bin/sh
# Reproduces BENCHMARKS.md "Speed and scale": builds
# tailscope at OLD (default d8734bd, before the compact routing and streaming of 0.2.0) and from the working
# tree, alternates them with psimscale on the 256-host and the 6,144-host
# benchmarks (records must be identical), then runs the streaming
# 6.83M-flow run niced (pass LARGE=0 to skip it, FLOWS=11400000 for the
# 50% run's count with SPEC=scripts/bench/specs/meta384-b50.json).
#
#   sh scripts/bench/packetsim-scale.sh
set -eu
old=${OLD:-d8734bd}
work=${WORK:-$(mktemp -d)}
echo "binaries and frames in $work"
git worktree add --detach "$work/old-src" "$old"
(cd "$work/old-src" && go build -o "$work/old" ./cmd/tailscope)
git worktree remove --force "$work/old-src"
go build -o "$work/new" ./cmd/tailscope
go build -o "$work/psimscale" ./scripts/bench/psimscale
nice "$work/psimscale" -rounds 3 -out "$work/frames" -bin old="$work/old" -bin new="$work/new" scripts/bench/specs/fabric100k.json
nice "$work/psimscale" -rounds 1 -out "$work/frames" -bin old="$work/old" -bin new="$work/new" scripts/bench/specs/meta384-b50.json
if [ "${LARGE:-1}" != 0 ]; then
	spec=${SPEC:-scripts/bench/specs/meta384-b30.json}
	nice -n 10 /usr/bin/time -v "$work/new" run -spec "$spec" -flows "${FLOWS:-0}" -estimator packetsim -out "$work/large"
fi
