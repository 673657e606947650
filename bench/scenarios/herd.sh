#!/usr/bin/env bash
# bench/scenarios/herd.sh: the thundering herd. N = 50 and 250 clients
# (bench/clients/herd.c) connect, wait at one barrier, then send the same cold
# heavy query at the same moment. Counts how often it really executed
# (seq scans of its table, pg_stat_statements calls, and sfcache's own
# counters when it has them), the time until the last client had its rows,
# and per-client p50/p99. Writes herd.md and herd.dat (for plots/herd.gp).
# shellcheck disable=SC2153,SC2119
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$BENCH_SRC/bench/lib.sh"

sizes=${BENCH_HERD_SIZES:-50 250}
targets=$(cache_targets)

# Executions as seen by the server behind a target.
pgss_calls() {
	bpsql "$(backend_of "$1")" -c "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
		WHERE query LIKE '%FROM lms_notification AS n JOIN lms_user AS u%'
		AND query NOT LIKE '%pg_stat_statements%'"
}
seq_scans() {
	bpsql "$(backend_of "$1")" -c "SELECT seq_scan FROM pg_stat_user_tables WHERE relname = '$HEAVY_TABLE'"
}

for n in $sizes; do
	for run in $(runs); do
		for t in $targets; do
			# A constant no earlier statement used: cold for every cache.
			# --quick aggregates a quarter of the users, to stay under 5 minutes.
			q=$(heavy_sql "n.id <> -$((n * 1000 + run))$([ "$BENCH_QUICK" = yes ] && echo ' AND n.user_id % 4 = 0')")
			be=$(backend_of "$t")
			bpsql "$be" -c 'SELECT pg_stat_statements_reset()' >/dev/null
			s0=$(seq_scans "$t")
			[ "$t" = sfc ] && sfcache_stats_snapshot >"$BENCH_WORK/herd.s0"
			line=$("$BENCH_WORK/bin/herd" "$(target_conninfo "$t")" "$n" "$q" 120) ||
				bench_log "herd $t N=$n run $run: some clients failed: $line"
			calls=$(pgss_calls "$t")
			# Executions to expect: pg_stat_statements' calls, or for sfcache
			# (where a hit counts as a call) its misses.
			expect=$calls
			if [ "$t" = sfc ]; then
				sfcache_stats_snapshot >"$BENCH_WORK/herd.s1"
				stats_delta "$BENCH_WORK/herd.s0" "$BENCH_WORK/herd.s1" >"$BENCH_WORK/herd.d"
				for c in miss hit coalesc; do
					v=$(stats_pick "$BENCH_WORK/herd.d" "^${c}")
					[ -n "$v" ] && record herd "$n/sfc/sfc_$c" "$run" "$v"
				done
				expect=$(stats_pick "$BENCH_WORK/herd.d" '^misses$')
			fi
			# Backends flush their table statistics on exit, or when idle after
			# up to 10 s: wait until the seq scans reach what is expected, at
			# most 11 s. pgpool-II keeps its backends, so that wait would be
			# the full 10 s every run; there the statement's pg_stat_statements
			# calls count its executions (it has no cache inside PostgreSQL).
			if [ "$t" = pgpool ]; then
				s1=$((s0 + calls))
			else
				for _ in $(seq 1 110); do
					s1=$(seq_scans "$t")
					[ $((s1 - s0)) -ge "${expect:-0}" ] && break
					sleep 0.1
				done
			fi
			record herd "$n/$t/calls" "$run" "$calls"
			record herd "$n/$t/exec" "$run" "$((s1 - s0))"
			for f in last_ms p50_ms p99_ms spread_ms ok; do
				record herd "$n/$t/$f" "$run" "$(echo "$line" | sed -n "s/.*\b$f=\([0-9.]*\).*/\1/p")"
			done
			bench_log "herd N=$n run $run $t: executions=$((s1 - s0)) calls=$calls $line"
		done
	done
done

md "## Herd: N identical cold queries at one barrier" "" \
	"\`bench/clients/herd.c\` opens N connections, waits until all are idle, releases them through one" \
	"pthread barrier, and each sends the same cold ~50 ms query (\`heavy_sql\` in bench/lib.sh$([ "$BENCH_QUICK" = yes ] && echo '; under --quick over a quarter of the users'), a new" \
	"constant per run so no cache has seen it). *executions*: seq scans of \`$HEAVY_TABLE\` (the query scans it" \
	"once) on the server that executes; *calls*: pg_stat_statements calls there (a cache hit may count as a call);" \
	"*spread*: first to last send, i.e. how tight the barrier was on these 2 shared cores." \
	"sfcache's own counters (\`sfcache.stats\`, difference over the herd): *misses* = leaders that executed," \
	"*hits* = clients served the stored rows, *coalesced* = those of the hits that had waited for the leader" \
	"(the rest arrived after it had stored the result): misses + hits = N." ""
md "| N | target | executions | pg_stat_statements calls | sfcache misses | sfcache coalesced | sfcache hits | last client done (ms) | p50 (ms) | p99 (ms) | send spread (ms) |" \
	"| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for n in $sizes; do
	for t in sfc plain pgpool; do
		if [ "$t" = sfc ] && [ "$BENCH_SFC_CACHE" != yes ]; then
			md "| $n | sfcache | $SFC_NA | | | | | | | | |"
			continue
		fi
		co="n/a | n/a | n/a"
		[ "$t" = sfc ] && co="$(cell herd "$n/sfc/sfc_miss") | $(cell herd "$n/sfc/sfc_coalesc") | $(cell herd "$n/sfc/sfc_hit")"
		name=$t; [ "$t" = sfc ] && name=sfcache; [ "$t" = pgpool ] && name=pgpool-II
		md "| $n | $name | $(cell herd "$n/$t/exec") | $(cell herd "$n/$t/calls") | $co | $(cell herd "$n/$t/last_ms") | $(cell herd "$n/$t/p50_ms") | $(cell herd "$n/$t/p99_ms") | $(cell herd "$n/$t/spread_ms" '%.1f') |"
	done
done
md "" "Ratios (per run):" "" "| N | executions sfcache / plain | executions pgpool-II / plain | last done sfcache / plain | last done pgpool-II / plain |" \
	"| ---: | ---: | ---: | ---: | ---: |"
for n in $sizes; do
	sp=$(ratio_cell herd "$n/sfc/exec" "$n/plain/exec"); sl=$(ratio_cell herd "$n/sfc/last_ms" "$n/plain/last_ms")
	[ "$BENCH_SFC_CACHE" != yes ] && sp=$SFC_NA sl=$SFC_NA
	md "| $n | $sp | $(ratio_cell herd "$n/pgpool/exec" "$n/plain/exec") | $sl | $(ratio_cell herd "$n/pgpool/last_ms" "$n/plain/last_ms") |"
done
md "" "Goal (issue 3): exactly 1 execution for sfcache; plain PostgreSQL and pgpool-II execute N times." \
	"pgpool-II may execute fewer than N: its children share the 2 cores with the backends, and one that reads" \
	"its client's query only after the first result was stored serves it from its cache (a late hit, not coalescing)."

# herd.dat: per N, median executions then median last-client time of
# sfc plain pgpool (NaN where not measured), for plots/herd.gp.
{
	echo "# N exec_sfc exec_plain exec_pgpool last_ms_sfc last_ms_plain last_ms_pgpool"
	for n in $sizes; do
		printf '%s' "$n"
		for f in exec last_ms; do
			for t in sfc plain pgpool; do v=$(values herd "$n/$t/$f" | median); printf ' %s' "${v:-NaN}"; done
		done
		echo
	done
} >"$BENCH_OUT/herd.dat"

# --- The herd with Django's now -------------------------------------------
# The same barrier, but the dashboard's costliest announcement statement as
# Django's ORM writes it: `timezone.now()` as a literal with microseconds,
# taken by each client at the moment it sends (bench/clients/herd.c's %NOW%,
# the clock shifted to the data set's "today", Mon 2026-11-02 09:00 UTC).
# No two clients send the same text; with validity windows they share one
# result. A new course per run keeps every run cold.
now_sizes=${BENCH_HERD_NOW_SIZES:-200}
now_base=$(date -d '2026-11-02 09:00:00Z' +%s)
announcement_sql() {
	echo "SELECT \"lms_announcement\".\"id\", \"lms_announcement\".\"title\", \"lms_announcement\".\"is_pinned\"," \
		"\"lms_announcement\".\"display_time\", \"lms_announcement\".\"end_date\" FROM \"lms_announcement\"" \
		"WHERE (\"lms_announcement\".\"university_id\" = 1 AND NOT \"lms_announcement\".\"is_deleted\"" \
		"AND \"lms_announcement\".\"display_time\" <= %NOW%::timestamptz" \
		"AND \"lms_announcement\".\"end_date\" >= %NOW%::timestamptz" \
		"AND \"lms_announcement\".\"scope_ids\" @> '[$1]'::jsonb)" \
		"ORDER BY \"lms_announcement\".\"is_pinned\" DESC, \"lms_announcement\".\"display_time\" DESC LIMIT 20"
}
announcement_calls() {
	bpsql "$(backend_of "$1")" -c "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
		WHERE query LIKE '%FROM \"lms_announcement\" WHERE%' AND query NOT LIKE '%pg_stat_statements%'"
}
for n in $now_sizes; do
	for run in $(runs); do
		for t in $targets; do
			q=$(announcement_sql "$((run % 40 + 1))")
			be=$(backend_of "$t")
			bpsql "$be" -c 'SELECT pg_stat_statements_reset()' >/dev/null
			[ "$t" = sfc ] && sfcache_stats_snapshot >"$BENCH_WORK/herdnow.s0"
			line=$(HERD_NOW_BASE=$now_base "$BENCH_WORK/bin/herd" "$(target_conninfo "$t")" "$n" "$q" 120) ||
				bench_log "herd-now $t N=$n run $run: some clients failed: $line"
			execs=$(announcement_calls "$t")
			if [ "$t" = sfc ]; then
				sfcache_stats_snapshot >"$BENCH_WORK/herdnow.s1"
				stats_delta "$BENCH_WORK/herdnow.s0" "$BENCH_WORK/herdnow.s1" >"$BENCH_WORK/herdnow.d"
				execs=$(stats_pick "$BENCH_WORK/herdnow.d" '^misses$')
				for c in hit coalesc window; do
					v=$(stats_pick "$BENCH_WORK/herdnow.d" "^${c}")
					[ -n "$v" ] && record herdnow "$n/sfc/sfc_$c" "$run" "$v"
				done
			fi
			record herdnow "$n/$t/exec" "$run" "$execs"
			for f in last_ms p50_ms p99_ms spread_ms; do
				record herdnow "$n/$t/$f" "$run" "$(echo "$line" | sed -n "s/.*\b$f=\([0-9.]*\).*/\1/p")"
			done
			bench_log "herd-now N=$n run $run $t: executions=$execs $line"
		done
	done
done
md "" "## Herd with Django's now: N page loads, each with its own microsecond \`now\`" "" \
	"The announcement statement of the dashboard as Django 3.2 writes it (\`display_time <= '...123456+00:00'::timestamptz" \
	"AND end_date >= ...\`), each client's \`now\` read from the clock when it sends, so no two texts are equal." \
	"*executions*: sfcache's misses (leaders that ran it), pg_stat_statements calls for the others;" \
	"*window*: sfcache executions served by a validity window." ""
md "| N | target | executions | sfcache coalesced | sfcache hits | sfcache window hits | last client done (ms) | p50 (ms) | p99 (ms) | send spread (ms) |" \
	"| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for n in $now_sizes; do
	for t in $targets; do
		co="n/a | n/a | n/a"
		[ "$t" = sfc ] && co="$(cell herdnow "$n/sfc/sfc_coalesc") | $(cell herdnow "$n/sfc/sfc_hit") | $(cell herdnow "$n/sfc/sfc_window")"
		name=$t; [ "$t" = sfc ] && name=sfcache; [ "$t" = pgpool ] && name=pgpool-II
		md "| $n | $name | $(cell herdnow "$n/$t/exec") | $co | $(cell herdnow "$n/$t/last_ms") | $(cell herdnow "$n/$t/p50_ms") | $(cell herdnow "$n/$t/p99_ms") | $(cell herdnow "$n/$t/spread_ms" '%.1f') |"
	done
done
md "" "Goal (validity windows): at most 2 executions for sfcache; plain PostgreSQL and pgpool-II execute N times."
