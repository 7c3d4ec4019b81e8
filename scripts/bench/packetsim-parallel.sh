#!/bin/sh
# Reproduces the parallel packetsim tables of BENCHMARKS.md "Speed and
# scale" and docs/explanation/parallel-packetsim.md: one and two workers
# alternated, in one process (scripts/bench/parscale), on the 256-host
# fabric at 200k flows (matrix B, 30% max load; two rounds) and on the
# 6,144-host fabric at 1M flows (matrix B, WebServer, sigma 2, 50% max
# load; ROUNDS384 rounds, 1 by default: a round costs about 15 CPU
# minutes). Records must be identical at every worker count. Wall-time
# ratios mean something only on otherwise idle cores: the CPU seconds
# are printed beside them.
#
#   sh scripts/bench/packetsim-parallel.sh
set -eu
work=${WORK:-$(mktemp -d)}
go build -o "$work/parscale" ./scripts/bench/parscale
"$work/parscale" -workers 1,2 -rounds 2 scripts/bench/specs/meta32-b30-200k.json
"$work/parscale" -workers 1,2 -rounds "${ROUNDS384:-1}" -flows "${FLOWS384:-1000000}" scripts/bench/specs/meta384-b50.json
