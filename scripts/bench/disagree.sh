#!/bin/sh
# The variants behind the papers' disagreement about Parsimon
# (docs/explanation/parsimon.md, "Why Parsimon overestimates"): m3 §5.3's scenario (meta384-2:1, matrix B, WebServer, sigma 2,
# seed 1) at one max load and flow count, packetsim and parsimon under
# the default network and under the networks of m3's Table 5 runs, each
# niced and timed (CPU seconds in OUT/logs/*.time), then the p99 table of
# every pairing under each slowdown definition (scripts/bench/disagree).
#
#	sh scripts/bench/disagree.sh OUT LOAD FLOWS     # e.g. OUT 0.3 68300 (1/100 of m3's 30% row)
#
# Networks (netcfg fields over the default):
#   default  the papers' rate-based DCTCP: 18 KB window, K 3 KB per Gbps, infinite buffers
#   m3cc     m3's Table 5 window and K: 10 KB window, K 1 KB per Gbps (10 KB at 10G, 40 KB at 40G)
#   m3net    m3cc plus a 400 KiB shared buffer per switch and PFC (packetsim only; Parsimon refuses PFC)
#   win, k   the window alone, K alone
#   t4       m3's Table 4 midpoints: K 12.5 KB at every port, 17.5 KB window, 350 KB shared buffer, PFC (packetsim only)
set -eu
out=$1 load=$2 flows=$3
tailscope=${TAILSCOPE:-tailscope}
mkdir -p "$out/specs" "$out/logs"

spec() { # name network-json
	net=""
	[ -n "$2" ] && net=",\"network\":$2"
	printf '{"name":"disagree %s %s %s","topology":{"preset":"meta384-2:1"},"workload":{"components":[{"matrix":"B","sizes":{"dist":"webserver"},"arrival":{"process":"lognormal","sigma":2},"max_load":%s}],"flows":%s},"seed":1%s}\n' \
		"$1" "$load" "$flows" "$load" "$flows" "$net" >"$out/specs/$1.json"
}
spec default ''
spec m3cc '{"k_bytes_per_gbps":1000,"dctcp":{"window_bytes":10000}}'
spec m3net '{"k_bytes_per_gbps":1000,"dctcp":{"window_bytes":10000},"buffer":{"shared_bytes":409600},"pfc":{"enabled":true}}'
spec win '{"dctcp":{"window_bytes":10000}}'
spec k '{"k_bytes_per_gbps":1000}'
spec t4 '{"k_bytes":12500,"dctcp":{"window_bytes":17500},"buffer":{"shared_bytes":350000},"pfc":{"enabled":true}}'

run() { # tag network estimator [options]: prints the record frame's path
	tag=$1 network=$2 estimator=$3
	shift 3
	[ $# -gt 0 ] && set -- -options "$1"
	nice -n 10 /usr/bin/time -v "$tailscope" run -spec "$out/specs/$network.json" -estimator "$estimator" "$@" \
		-out "$out/runs" >"$out/logs/$tag.out" 2>"$out/logs/$tag.time"
	sed 's/.*-> //' "$out/logs/$tag.out"
}
psim_default=$(run psim-default default packetsim)
psim_m3cc=$(run psim-m3cc m3cc packetsim)
psim_m3net=$(run psim-m3net m3net packetsim)
psim_win=$(run psim-win win packetsim)
psim_k=$(run psim-k k packetsim)
psim_t4=$(run psim-t4 t4 packetsim)
pars_default=$(run pars-default default parsimon)
pars_m3cc=$(run pars-m3cc m3cc parsimon)
pars_win=$(run pars-win win parsimon)
pars_k=$(run pars-k k parsimon)
# Parsimon's own parameters a third party could set otherwise.
pars_b1000=$(run pars-b1000 default parsimon '{"bucket_size":1000}')
pars_b10=$(run pars-b10 default parsimon '{"bucket_size":10}')
pars_inf1=$(run pars-inf1 default parsimon '{"inflation":1}')

table() { # title baseline estimate
	echo "$1"
	go run ./scripts/bench/disagree "$2" "$3"
	echo
}
table "packetsim default, parsimon default" "$psim_default" "$pars_default"
table "packetsim m3net, parsimon default" "$psim_m3net" "$pars_default"
table "packetsim t4, parsimon default" "$psim_t4" "$pars_default"
table "packetsim m3net, parsimon m3cc (m3's Table 5 setup)" "$psim_m3net" "$pars_m3cc"
table "packetsim m3cc, parsimon m3cc" "$psim_m3cc" "$pars_m3cc"
table "packetsim default, parsimon m3cc" "$psim_default" "$pars_m3cc"
table "packetsim win, parsimon win" "$psim_win" "$pars_win"
table "packetsim k, parsimon k" "$psim_k" "$pars_k"
table "packetsim default, parsimon bucket size 1000" "$psim_default" "$pars_b1000"
table "packetsim default, parsimon bucket size 10" "$psim_default" "$pars_b10"
table "packetsim default, parsimon inflation 1" "$psim_default" "$pars_inf1"
grep -H -E 'User time|System time' "$out"/logs/*.time
