#!/bin/sh
# Reproduces the parallel packetsim tables of BENCHMARKS.md "Speed and
# scale" and docs/explanation/parallel-packetsim.md: one and two workers
# alternated, in one process (scripts/bench/parscale), on the 256-host
# fabric at 200k flows (matrix B, WebServer, sigma 2, 30% and 50% max
# load; three rounds) and on the 6,144-host fabric at 1M flows (the same
# at 50%; ROUNDS384 rounds, 2 by default: a round costs about 3.5 CPU
# minutes). Records must be identical at every worker count. A parallel
# run waits for its slowest worker at every simulated microsecond, so
# its wall time means something only on cores no other process takes:
# PRIO="chrt -r 1" (as root) runs the measurement at real-time priority,
# which keeps other processes off the cores. The CPU seconds are printed
# beside the wall times.
#
#   PRIO="chrt -r 1" sh scripts/bench/packetsim-parallel.sh
set -eu
work=${WORK:-$(mktemp -d)}
go build -o "$work/parscale" ./scripts/bench/parscale
${PRIO:-} "$work/parscale" -workers 1,2 -rounds 3 scripts/bench/specs/meta32-b30-200k.json scripts/bench/specs/meta32-b50-200k.json
${PRIO:-} "$work/parscale" -workers 1,2 -rounds "${ROUNDS384:-2}" -flows "${FLOWS384:-1000000}" scripts/bench/specs/meta384-b50.json
