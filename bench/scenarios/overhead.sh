#!/usr/bin/env bash
# bench/scenarios/overhead.sh: what loading sfcache costs a workload it does
# not help: pgbench TPC-B and -S (select-only) against PostgreSQL without
# sfcache vs. with sfcache loaded (cache off, cache on, and advice recording
# at sample rate 1 when this sfcache has such a setting), and the LMS
# dashboard mix with the cache off (loaded, and recording advice at sample
# rate 1). Uses its own pgbench database "pgb" on both servers for TPC-B and
# -S; with the cache, TPC-B also runs on "pgbt", the same data with its four
# tables tracked by key (sfcache.track(), as tracking.sh), against "pgb"
# without sfcache (issue 31: tracked writes >= 0.95x). Writes overhead.md.
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
# sfcache acts only where it is created (a build from before 0.4 acts everywhere)
BENCH_PSQL_DB=pgb bpsql sfc -c 'CREATE EXTENSION IF NOT EXISTS sfcache' >/dev/null
if [ "$BENCH_SFC_CACHE" = yes ]; then
	BENCH_PSQL_DB=postgres bpsql sfc -c 'DROP DATABASE IF EXISTS pgbt' -c 'CREATE DATABASE pgbt' >/dev/null
	"$PGBIN/pgbench" -h "$BENCH_WORK/sock" -p "$SFC_PORT" -i -q -s "$sf" pgbt >/dev/null 2>&1
	BENCH_PSQL_DB=pgbt bpsql sfc -c "CREATE EXTENSION IF NOT EXISTS sfcache" \
		-c "SELECT sfcache.track('pgbench_accounts', 'aid')" \
		-c "SELECT sfcache.track('pgbench_tellers', 'tid')" \
		-c "SELECT sfcache.track('pgbench_branches', 'bid')" \
		-c "SELECT sfcache.track('pgbench_history', 'aid')" >/dev/null
fi

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
	on | tracked) echo "-c sfcache.cache=on" ;;
	advice) echo "-c $advice=1$([ "$BENCH_SFC_CACHE" = yes ] && echo ' -c sfcache.cache=off')" ;;
	esac
}
label() {
	case $1 in
	loaded) echo "sfcache loaded (no result cache in this build)" ;;
	off) echo "sfcache loaded, cache off" ;;
	on) echo "sfcache loaded, cache on" ;;
	tracked) echo "sfcache loaded, cache on, tables tracked" ;;
	advice) echo "sfcache loaded, $advice = 1" ;;
	esac
}

# pgbench arguments of a workload under a configuration (after the
# connection options); TPC-B tracked runs on pgbt, everything else on pgb.
workload_args() {
	case $1 in
	tpcb) if [ "${2:-}" = tracked ]; then echo "-T $BENCH_DUR pgbt"; else echo "-T $BENCH_DUR pgb"; fi ;;
	select) echo "-S -T $BENCH_DUR pgb" ;;
	# a page takes ~25 ms of server CPU: at least 2 s per measurement
	mix) echo "-f $BENCH_SRC/bench/lms/dashboard.sql -D scale=$BENCH_SCALE -T $((BENCH_DUR < 2 ? 2 : BENCH_DUR)) $BENCH_DB" ;;
	esac
}
# The configurations a workload runs under: the mix measures what loading
# sfcache and recording advice cost it, not the cache (see mix.sh).
workload_configs() {
	case $1 in
	mix) echo "$configs" | tr ' ' '\n' | grep -v -x on | tr '\n' ' ' ;;
	tpcb) echo "$configs$([ "$BENCH_SFC_CACHE" = yes ] && echo ' tracked')" ;;
	*) echo "$configs" ;;
	esac
}
# --quick leaves the mix out (2 s per measurement, 3 configurations);
# BENCH_OVERHEAD_WORKLOADS names some of them (e.g. tpcb).
workloads="tpcb select mix"
[ "$BENCH_QUICK" = yes ] && workloads="tpcb select"
workloads=${BENCH_OVERHEAD_WORKLOADS:-$workloads}

for run in $(runs); do
	for w in $workloads; do
		# shellcheck disable=SC2086
		{
			tps=$("$PGBIN/pgbench" -h "$BENCH_WORK/sock" -p "$PLAIN_PORT" -n -c "$clients" -j 2 $(workload_args $w) 2>&1 | pgbench_tps)
			record overhead "$w/plain" "$run" "$tps"
			for c in $(workload_configs $w); do
				tps=$(PGOPTIONS="$(opts "$c")" "$PGBIN/pgbench" -h "$BENCH_WORK/sock" -p "$SFC_PORT" -n \
					-c "$clients" -j 2 $(workload_args $w "$c") 2>&1 | pgbench_tps)
				record overhead "$w/$c" "$run" "$tps"
			done
		}
		bench_log "overhead run $run $w: $(awk -F'\t' -v r="$run" -v p="$w/" '$1 == "overhead" && $3 == r && index($2, p) == 1 { printf "%s=%s ", $2, $4 }' "$BENCH_OUT/raw.tsv")"
	done
done

# The same comparison on one server: the sfc server restarted with and
# without sfcache in shared_preload_libraries, so that both sides read the
# same data files (two servers loaded alike still differ by a few percent,
# e.g. in where autovacuum's ANALYZE left their statistics). Without
# --quick only: two restarts per run.
same=no
[ "$BENCH_QUICK" = yes ] || same=yes
sfc_preload() {
	sed -i "s/^shared_preload_libraries = .*/shared_preload_libraries = '$1'/" "$BENCH_WORK/sfc/postgresql.conf"
	restart_pg sfc
}
# Each workload right after a restart on both sides, with one unmeasured
# second to warm the buffers: what ran before it (TPC-B's writes wake
# autovacuum) is then the same for "not loaded" and "loaded". A checkpoint
# before each measurement: TPC-B's writes otherwise leave one to whichever
# configuration runs later (the tracked one runs last, after 40 s of
# writes: 0.69x and 0.79x of not loaded in two runs without, 2026-12-07).
settle() { BENCH_PSQL_DB=postgres bpsql sfc -c 'CHECKPOINT' >/dev/null; }
if [ $same = yes ]; then
	for run in $(runs); do
		for w in $workloads; do
			# shellcheck disable=SC2086
			{
				sfc_preload 'pg_stat_statements'
				"$PGBIN/pgbench" -h "$BENCH_WORK/sock" -p "$SFC_PORT" -n -c "$clients" -j 2 $(workload_args $w | sed 's/-T [0-9]*/-T 1/') >/dev/null 2>&1
				settle
				record overhead "same/$w/plain" "$run" "$("$PGBIN/pgbench" -h "$BENCH_WORK/sock" -p "$SFC_PORT" -n -c "$clients" -j 2 $(workload_args $w) 2>&1 | pgbench_tps)"
				sfc_preload 'sfcache,pg_stat_statements'
				"$PGBIN/pgbench" -h "$BENCH_WORK/sock" -p "$SFC_PORT" -n -c "$clients" -j 2 $(workload_args $w | sed 's/-T [0-9]*/-T 1/') >/dev/null 2>&1
				for c in $(workload_configs $w); do
					# another database: its own unmeasured second
					[ "$c" = tracked ] && PGOPTIONS="$(opts "$c")" "$PGBIN/pgbench" -h "$BENCH_WORK/sock" -p "$SFC_PORT" -n -c "$clients" -j 2 \
						$(workload_args $w "$c" | sed 's/-T [0-9]*/-T 1/') >/dev/null 2>&1
					settle
					record overhead "same/$w/$c" "$run" "$(PGOPTIONS="$(opts "$c")" "$PGBIN/pgbench" -h "$BENCH_WORK/sock" -p "$SFC_PORT" -n \
						-c "$clients" -j 2 $(workload_args $w "$c") 2>&1 | pgbench_tps)"
				done
			}
		done
		bench_log "overhead same-server run $run: $(awk -F'\t' -v r="$run" '$1 == "overhead" && $3 == r && index($2, "same/") == 1 { printf "%s=%s ", $2, $4 }' "$BENCH_OUT/raw.tsv")"
	done
fi

md "## Overhead: pgbench with and without sfcache loaded" "" \
	"pgbench scale $sf, $clients clients, $BENCH_DUR s per measurement, TPC-B (default script) and \`-S\` (select-only);" \
	"$([ "$BENCH_QUICK" = yes ] && echo '(the dashboard mix is measured without --quick only);' || echo 'the LMS dashboard mix (\`bench/lms/dashboard.sql\`, pages/s, at least 2 s per measurement) with the cache off;')" \
	"\"plain\" is the same PostgreSQL without sfcache in shared_preload_libraries." ""
md "| workload | configuration | tps | ratio to plain (per run) |" "| --- | --- | ---: | ---: |"
for w in $workloads; do
	case $w in tpcb) wn="TPC-B" ;; select) wn="select-only (-S)" ;; mix) wn="dashboard mix" ;; esac
	md "| $wn | plain (not loaded) | $(cell overhead "$w/plain") | 1 |"
	for c in $(workload_configs $w); do
		md "| $wn | $(label "$c") | $(cell overhead "$w/$c") | $(ratio_cell overhead "$w/$c" "$w/plain") |"
	done
	if [ "$BENCH_SFC_CACHE" != yes ] && [ $w != mix ]; then
		md "| $wn | sfcache loaded, cache on | $SFC_NA | |"
	fi
	[ -z "$advice" ] && md "| $wn | advice recording at sample rate 1 | n/a (no sfcache.*sampl* setting in this build) | |"
done
if [ $same = yes ]; then
	md "" "The same, on one server: the sfcache server restarted without sfcache in \`shared_preload_libraries\` (\"not loaded\")" \
		"and with it, before each workload in every run; after each restart one unmeasured second of the workload warms the buffers." "" \
		"| workload | configuration | tps | ratio to not loaded, same server (per run) |" "| --- | --- | ---: | ---: |"
	for w in $workloads; do
		case $w in tpcb) wn="TPC-B" ;; select) wn="select-only (-S)" ;; mix) wn="dashboard mix" ;; esac
		md "| $wn | not loaded | $(cell overhead "same/$w/plain") | 1 |"
		for c in $(workload_configs $w); do
			md "| $wn | $(label "$c") | $(cell overhead "same/$w/$c") | $(ratio_cell overhead "same/$w/$c" "same/$w/plain") |"
		done
	done
fi
md "" "Goals: ≥ 0.97× plain with sfcache loaded, cache on (issue 3), and with advice recording at sample rate 1 (issue 4);" \
	"TPC-B with its tables tracked ≥ 0.95× plain (issue 31; on pgbt, the same data as pgb, the tables tracked by key as in tracking.sh)."
