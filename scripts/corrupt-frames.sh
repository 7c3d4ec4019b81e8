#!/bin/sh
# The corruption campaign of issue 21: N (default 200) copies of each frame
# kind (records, flows, topology, generic table) in each format, each with
# 1-16 random bytes overwritten (fixed seed), read back with the kind's
# reader; every copy must be refused with an error naming the file, without
# a panic. Also N corrupted Parquet files without a digest (as other
# programs write them), which must not panic. Prints one line per case.
#
#   scripts/corrupt-frames.sh [N]
set -eu
cd "$(dirname "$0")/.."
${GO:-go} test -count=1 -run 'TestCorrupted' -v ./lib/frame -corruptions "${1:-200}" |
	sed -n 's/^ *corrupt_test.go:[0-9]*: //p; /^\(ok\|FAIL\|---\)/p'
