#!/usr/bin/env bash
# bench/scenarios/tracking.sh: what invalidation by key values costs the
# writes it sees: pgbench TPC-B against PostgreSQL without sfcache, and
# against sfcache with the cache on, its four tables untracked (database
# pgbu) and tracked (pgbt: accounts, tellers and branches on their keys,
# history on aid; every row written runs the capture trigger). Writes
# tracking.md.
# shellcheck disable=SC2153,SC2119
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$BENCH_SRC/bench/lib.sh"

if [ "$BENCH_QUICK" = yes ]; then sf=${BENCH_PGBENCH_SCALE:-5}; else sf=${BENCH_PGBENCH_SCALE:-20}; fi
clients=${BENCH_OVERHEAD_CLIENTS:-8}
init_db() {
	BENCH_PSQL_DB=postgres bpsql "$1" -c "DROP DATABASE IF EXISTS $2" -c "CREATE DATABASE $2" >/dev/null
	"$PGBIN/pgbench" -h "$BENCH_WORK/sock" -p "$(target_port "$1")" -i -q -s "$sf" "$2" >/dev/null 2>&1
}
init_db plain pgb
if [ "$BENCH_SFC_CACHE" = yes ]; then
	init_db sfc pgbu
	init_db sfc pgbt
	BENCH_PSQL_DB=pgbt bpsql sfc -c "CREATE EXTENSION IF NOT EXISTS sfcache" \
		-c "SELECT sfcache.track('pgbench_accounts', 'aid')" \
		-c "SELECT sfcache.track('pgbench_tellers', 'tid')" \
		-c "SELECT sfcache.track('pgbench_branches', 'bid')" \
		-c "SELECT sfcache.track('pgbench_history', 'aid')" >/dev/null
fi

tpcb() { # target database [PGOPTIONS]
	PGOPTIONS="${3:-}" "$PGBIN/pgbench" -h "$BENCH_WORK/sock" -p "$(target_port "$1")" -n \
		-c "$clients" -j 2 -T "$BENCH_DUR" "$2" 2>&1 | pgbench_tps
}
for run in $(runs); do
	record tracking plain "$run" "$(tpcb plain pgb)"
	if [ "$BENCH_SFC_CACHE" = yes ]; then
		record tracking untracked "$run" "$(tpcb sfc pgbu '-c sfcache.cache=on')"
		record tracking tracked "$run" "$(tpcb sfc pgbt '-c sfcache.cache=on')"
	fi
	bench_log "tracking run $run: $(awk -F'\t' -v r="$run" '$1 == "tracking" && $3 == r { printf "%s=%s ", $2, $4 }' "$BENCH_OUT/raw.tsv")"
done

md "## Invalidation by key values: the cost on writes" "" \
	"pgbench TPC-B, scale $sf, $clients clients, $BENCH_DUR s per measurement; \"plain\" is PostgreSQL without sfcache;" \
	"sfcache with \`sfcache.cache = on\`, its tables untracked, then tracked with \`sfcache.track()\` (each row written runs the capture trigger)." "" \
	"| configuration | tps | ratio to plain (per run) |" "| --- | ---: | ---: |" \
	"| plain (not loaded) | $(cell tracking plain) | 1 |"
if [ "$BENCH_SFC_CACHE" = yes ]; then
	md "| sfcache, cache on, untracked | $(cell tracking untracked) | $(ratio_cell tracking untracked plain) |" \
		"| sfcache, cache on, tracked | $(cell tracking tracked) | $(ratio_cell tracking tracked plain) |"
else
	md "| sfcache, tracked | $SFC_NA | |"
fi
md "" "Goal: tracked ≥ 0.97× plain (issue 12)."
