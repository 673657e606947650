#!/usr/bin/env bash
# bench/scenarios/scaling.sh: hit throughput of the warm cached ~50 ms query
# at 1, 2, 4, 8, 16 and 64 clients (simple protocol), for sfcache and
# pgpool-II, with SELECT 1 on the plain server as the protocol floor. A
# global lock on the hit path would flatten a curve before the 2 cores are
# saturated. Writes scaling.md and scaling.dat.
# shellcheck disable=SC2153,SC2119
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$BENCH_SRC/bench/lib.sh"

levels=${BENCH_SCALING_CLIENTS:-1 2 4 8 16 64}
# The SELECT 1 and pgpool-II curves cost as much as sfcache's: --quick skips
# them to stay under 5 minutes (the hit scenario has both at 8 clients).
floor=yes
targets="pgpool"
[ "$BENCH_SFC_CACHE" = yes ] && targets="sfc pgpool"
if [ "$BENCH_QUICK" = yes ]; then
	floor=no
	[ "$BENCH_SFC_CACHE" = yes ] && targets="sfc"
fi
dur=$BENCH_DUR
f_heavy=$(sql_file heavy "$(heavy_sql)")
f_one=$(sql_file one "SELECT 1")
for t in $targets; do bpsql "$t" -c "$(heavy_sql)" >/dev/null; done

for run in $(runs); do
	for c in $levels; do
		for t in $targets; do
			record scaling "$c/$t" "$run" "$(pgb "$t" "$c" "$dur" -f "$f_heavy")"
		done
		[ $floor = yes ] && record scaling "$c/select1" "$run" "$(pgb plain "$c" "$dur" -f "$f_one")"
	done
	bench_log "scaling run $run: $(awk -F'\t' -v r="$run" '$1 == "scaling" && $3 == r { printf "%s=%.0f ", $2, $4 }' "$BENCH_OUT/raw.tsv")"
done

md "## Scaling: cached hits at 1-64 clients" "" \
	"The warm cached \`heavy_sql\`, simple protocol, $dur s per measurement; SELECT 1 on the plain server is the" \
	"protocol floor$([ $floor = no ] && echo '; SELECT 1 and pgpool-II are measured without --quick only'). *×1 client*: throughput relative to the same target at 1 client (per run). $(nproc) cores." ""
md "| clients | sfcache tps | pgpool-II tps | SELECT 1 tps | sfcache ×1 client | pgpool-II ×1 client | sfcache / pgpool-II | sfcache / SELECT 1 |" \
	"| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for c in $levels; do
	if [ "$BENCH_SFC_CACHE" = yes ]; then
		a=$(ratio_cell scaling "$c/sfc" "1/sfc"); b=$(ratio_cell scaling "$c/sfc" "$c/pgpool"); d=$(ratio_cell scaling "$c/sfc" "$c/select1")
	else a=$SFC_NA b=$SFC_NA d=$SFC_NA; fi
	md "| $c | $(cell scaling "$c/sfc") | $(cell scaling "$c/pgpool") | $(cell scaling "$c/select1") | $a | $(ratio_cell scaling "$c/pgpool" "1/pgpool") | $b | $d |"
done

{
	echo "# clients sfc pgpool select1 (median tps)"
	for c in $levels; do
		printf '%s' "$c"
		for t in sfc pgpool select1; do v=$(values scaling "$c/$t" | median); printf ' %s' "${v:-NaN}"; done
		echo
	done
} >"$BENCH_OUT/scaling.dat"
