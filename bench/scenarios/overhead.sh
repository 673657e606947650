#!/usr/bin/env bash
# bench/scenarios/overhead.sh: what loading sfcache costs a workload it does
# not help: pgbench TPC-B and -S (select-only) against PostgreSQL without
# sfcache vs. with sfcache loaded (cache off, cache on, and advice recording
# at sample rate 1 when this sfcache has such a setting). Uses its own
# pgbench database "pgb" on both servers. Writes overhead.md.
# shellcheck disable=SC2153,SC2119
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$BENCH_SRC/bench/lib.sh"

if [ "$BENCH_QUICK" = yes ]; then sf=${BENCH_PGBENCH_SCALE:-5}; else sf=${BENCH_PGBENCH_SCALE:-20}; fi
clients=${BENCH_OVERHEAD_CLIENTS:-8}
for t in sfc plain; do
	BENCH_PSQL_DB=postgres bpsql "$t" -c 'DROP DATABASE IF EXISTS pgb' -c 'CREATE DATABASE pgb' >/dev/null
	"$PGBIN/pgbench" -h "$BENCH_WORK/sock" -p "$(target_port "$t")" -i -q -s "$sf" pgb >/dev/null 2>&1
done

# sfcache configurations, as PGOPTIONS for the sessions of the run.
# "loaded": whatever this sfcache build does when nothing is set.
configs="loaded"
[ "$BENCH_SFC_CACHE" = yes ] && configs="off on"
advice=$(bpsql sfc -c "SELECT name FROM pg_settings WHERE name ~ '^sfcache\..*sampl' ORDER BY name LIMIT 1")
[ -n "$advice" ] && configs="$configs advice"
opts() {
	case $1 in
	loaded) echo "" ;;
	off) echo "-c sfcache.cache=off" ;;
	on) echo "-c sfcache.cache=on" ;;
	advice) echo "-c $advice=1$([ "$BENCH_SFC_CACHE" = yes ] && echo ' -c sfcache.cache=off')" ;;
	esac
}
label() {
	case $1 in
	loaded) echo "sfcache loaded (no result cache in this build)" ;;
	off) echo "sfcache loaded, cache off" ;;
	on) echo "sfcache loaded, cache on" ;;
	advice) echo "sfcache loaded, $advice = 1" ;;
	esac
}

for run in $(runs); do
	for w in tpcb select; do
		wl=""; [ $w = select ] && wl="-S"
		# shellcheck disable=SC2086
		{
			tps=$("$PGBIN/pgbench" -h "$BENCH_WORK/sock" -p "$PLAIN_PORT" -n $wl -c "$clients" -j 2 -T "$BENCH_DUR" pgb 2>&1 | pgbench_tps)
			record overhead "$w/plain" "$run" "$tps"
			for c in $configs; do
				tps=$(PGOPTIONS="$(opts "$c")" "$PGBIN/pgbench" -h "$BENCH_WORK/sock" -p "$SFC_PORT" -n $wl \
					-c "$clients" -j 2 -T "$BENCH_DUR" pgb 2>&1 | pgbench_tps)
				record overhead "$w/$c" "$run" "$tps"
			done
		}
		bench_log "overhead run $run $w: $(awk -F'\t' -v r="$run" -v p="$w/" '$1 == "overhead" && $3 == r && index($2, p) == 1 { printf "%s=%s ", $2, $4 }' "$BENCH_OUT/raw.tsv")"
	done
done

md "## Overhead: pgbench with and without sfcache loaded" "" \
	"pgbench scale $sf, $clients clients, $BENCH_DUR s per measurement, TPC-B (default script) and \`-S\` (select-only);" \
	"\"plain\" is the same PostgreSQL without sfcache in shared_preload_libraries." ""
md "| workload | configuration | tps | ratio to plain (per run) |" "| --- | --- | ---: | ---: |"
for w in tpcb select; do
	wn="TPC-B"; [ $w = select ] && wn="select-only (-S)"
	md "| $wn | plain (not loaded) | $(cell overhead "$w/plain") | 1 |"
	for c in $configs; do
		md "| $wn | $(label "$c") | $(cell overhead "$w/$c") | $(ratio_cell overhead "$w/$c" "$w/plain") |"
	done
	if [ "$BENCH_SFC_CACHE" != yes ]; then
		md "| $wn | sfcache loaded, cache on | $SFC_NA | |"
	fi
	[ -z "$advice" ] && md "| $wn | advice recording at sample rate 1 | n/a (no sfcache.*sampl* setting in this build) | |"
done
md "" "Goal: ≥ 0.97× plain with sfcache loaded, cache on."
