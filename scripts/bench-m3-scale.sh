#!/bin/sh
# Old and new m3 binaries alternated on the 32-rack fabric (200k flows) and
# on the 6,144-host fabric (meta384-2:1, matrix B, WebServer, sigma 2, 30%
# max load) at the given flow counts, plus flowsim on each scenario: wall,
# process CPU (user + system) and peak RSS of every run, the m3 records of
# old and new compared row for row (scripts/bench/cmprecords), and the new run's
# own figures (phase times, m3's CPU time, heap, peak RSS).
#
# Usage: scripts/bench-m3-scale.sh OLD_TAILSCOPE NEW_TAILSCOPE OUT [FLOWS...]
# (FLOWS default: 300000 1000000; ROUNDS=2 alternations per scenario;
# OTHERS="flowsim" the estimators run once per scenario with NEW, e.g.
# OTHERS="flowsim packetsim").
# Build OLD from the commit before the change, outside the repository.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 OLD_TAILSCOPE NEW_TAILSCOPE OUT [FLOWS...]" >&2; exit 2; }
old=$1 new=$2 out=$3
shift 3
flows=${*:-300000 1000000}
rounds=${ROUNDS:-2}
others=${OTHERS:-flowsim}
mkdir -p "$out"
go build -o "$out/cmprecords" ./scripts/bench/cmprecords

cat >"$out/meta32.json" <<'JSON'
{"name": "m3-scale-meta32", "topology": {"preset": "meta32-2:1"}, "seed": 1,
 "workload": {"flows": 200000, "components": [{"matrix": "B", "sizes": {"dist": "webserver"},
  "arrival": {"process": "lognormal", "sigma": 2}, "max_load": 0.3}]}}
JSON
cat >"$out/meta384.json" <<'JSON'
{"name": "m3-scale-meta384", "topology": {"preset": "meta384-2:1"}, "seed": 1,
 "workload": {"flows": 300000, "components": [{"matrix": "B", "sizes": {"dist": "webserver"},
  "arrival": {"process": "lognormal", "sigma": 2}, "max_load": 0.3}]}}
JSON

# run BIN TAG SPEC FLOWS ESTIMATOR: one process, its figures on one line.
run() {
	dir="$out/$2-$(basename "$3" .json)-$4"
	/usr/bin/time -f "%e %U %S %M" -o "$out/time" nice -n 10 "$1" run -spec "$3" -flows "$4" -estimator "$5" -out "$dir" >"$out/log" 2>&1 ||
		{ cat "$out/log" >&2; exit 1; }
	awk -v s="$(basename "$3" .json)" -v e="$5" -v n="$4" -v b="$2" '{
		printf "%-8s %-8s %8s %-4s wall %7.1f s  CPU %7.1f s  peak RSS %6d MiB\n", s, e, n, b, $1, $2 + $3, $4 / 1024 }' "$out/time"
	last=$(find "$dir" -name "$5.parquet")
}

scenario() { # SPEC FLOWS
	for r in $(seq "$rounds"); do
		run "$old" old "$1" "$2" m3
		o=$last
		run "$new" new "$1" "$2" m3
		"$out/cmprecords" "$o" "$last"
	done
	for e in $others; do
		run "$new" new "$1" "$2" "$e"
	done
}

echo "== $(date -u +%FT%TZ) old $old, new $new, $rounds rounds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
scenario "$out/meta32.json" 200000
for n in $flows; do
	scenario "$out/meta384.json" "$n"
done
