#!/bin/sh
# Runs every fuzz target (func FuzzXxx in lib/) for $FUZZTIME each, one
# after another and on one core (-parallel 1), logging go test's progress
# lines (executions, "new interesting" inputs = new coverage) to
# $FUZZLOG/<package>.<target>.log. Resumable: a target whose log ends in a
# "fuzz.sh: done" line is skipped, so rerunning after an interruption
# continues with the next unfinished target; FUZZFRESH=1 starts over.
# Prints a summary table at the end; exits 1 if any target failed (a
# crasher is then in the package's testdata/fuzz/<target>/: keep it as a
# regression test once fixed).
#
#   FUZZTIME=10m scripts/fuzz.sh          # what `make fuzz` runs
#   nice -n 19 scripts/fuzz.sh &          # in the background
#   scripts/fuzz.sh summary               # the table of finished targets only
set -u
FUZZTIME=${FUZZTIME:-10m}
FUZZLOG=${FUZZLOG:-build/fuzz}
GO=${GO:-go}
cd "$(dirname "$0")/.."
[ "${FUZZFRESH:-0}" = 1 ] && rm -rf "$FUZZLOG"
mkdir -p "$FUZZLOG"

# package directory and target name, one pair a line
targets() {
	grep -H '^func Fuzz[A-Za-z0-9_]*(' $(find lib -name '*_test.go' | sort) |
		sed 's|^\(.*\)/[^/]*_test.go:func \(Fuzz[A-Za-z0-9_]*\)(.*|\1 \2|'
}

# status prints ok or FAIL for a finished log. go test -fuzz with a time
# limit can end a run whose last input is still executing with "context
# deadline exceeded" and exit 1 although nothing failed (no failing input
# written): that counts as ok.
status() {
	if grep -q '^fuzz.sh: done rc=0' "$1"; then
		echo ok
	elif grep -q 'context deadline exceeded' "$1" && ! grep -q 'Failing input written' "$1"; then
		echo ok
	else
		echo FAIL
	fi
}

failed=0
[ "${1:-}" = summary ] || targets | while read -r pkg name; do
	log="$FUZZLOG/$(echo "$pkg" | tr / .).$name.log"
	if [ -f "$log" ] && tail -n 1 "$log" | grep -q '^fuzz.sh: done'; then
		continue
	fi
	echo "fuzz.sh: $pkg $name for $FUZZTIME (log $log)"
	{
		echo "fuzz.sh: start $(date -u +%FT%TZ) $pkg $name fuzztime $FUZZTIME"
		/usr/bin/time -f "fuzz.sh: cpu %U s user %S s system, %e s wall, max rss %M KB" \
			$GO test -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" -timeout 0 -parallel 1 "./$pkg" 2>&1
		echo "fuzz.sh: done rc=$? $(date -u +%FT%TZ)"
	} >"$log.partial" 2>&1
	mv "$log.partial" "$log"
	[ "$(status "$log")" = FAIL ] && echo "fuzz.sh: $pkg $name FAILED: see $log"
done

# Summary: the last progress line of every finished target.
printf '%-40s %-6s %s\n' target status "last progress line"
for log in "$FUZZLOG"/*.log; do
	[ -f "$log" ] || continue
	t=$(basename "$log" .log)
	s=$(status "$log")
	[ "$s" = ok ] || failed=1
	printf '%-40s %-6s %s\n' "$t" "$s" "$(grep '^fuzz: elapsed' "$log" | tail -n 1)"
done
exit $failed
