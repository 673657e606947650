#!/usr/bin/env bash
# bench/scenarios/memory.sh: memory. (1) sfcache's bytes per cached entry
# against the size of the rows it holds; (2) its hit ratio on a Zipf trace of
# primary-key reads under a memory budget of 10% of the trace's working set,
# against an LRU cache of the same size simulated on the same trace
# (bench/clients/memtrace.c). Each result is padded to about 8 kB
# (repeat(md5(...)), immutable) so that 10% of the working set is a real
# amount of memory. pgpool-II replays the same trace with its
# ample cache (256MB) as a check of the replay: it must reach the ceiling.
# Each run draws a new trace (seed = run). Writes memory.md.
# shellcheck disable=SC2153,SC2119
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$BENCH_SRC/bench/lib.sh"

keys=$((5000 * BENCH_SCALE))
if [ "$BENCH_QUICK" = yes ]; then n=${BENCH_MEMORY_REQUESTS:-10000}; else n=${BENCH_MEMORY_REQUESTS:-100000}; fi
zipf=${BENCH_MEMORY_ZIPF:-1.1}
# key K, run R -> the statement (R in the text keeps runs apart in every cache)
# shellcheck disable=SC2016
stmt_awk='{ printf "SELECT id, username, email, repeat(md5(username), 256) AS pad FROM lms_user WHERE id = %d AND id <> -%d;\n", $1, run }'

# Numbers from sfcache.stats: bytes and entries in use, hits and misses.
sfc_counter() { sfcache_stats_snapshot | awk -v re="$1" '$1 ~ re { print $2; exit }'; }

for run in $(runs); do
	trace=$BENCH_WORK/trace-$run.txt
	# The working set is the trace's distinct keys; the budget 10% of it.
	distinct=$("$BENCH_WORK/bin/memtrace" "$keys" "$n" "$zipf" "$run" "$keys" "$trace" | sed -n 's/.*distinct=\([0-9]*\).*/\1/p')
	cap=$(((distinct + 9) / 10))
	line=$("$BENCH_WORK/bin/memtrace" "$keys" "$n" "$zipf" "$run" "$cap" "$trace")
	record memory lru_pct "$run" "$(echo "$line" | awk -F'lru_hit_ratio=' '{ split($2, a, " "); print 100 * a[1] }')"
	record memory ceiling_pct "$run" "$(echo "$line" | awk -F'ceiling=' '{ print 100 * $2 }')"
	record memory distinct "$run" "$distinct"
	awk -v run="$run" "$stmt_awk" "$trace" >"$trace.sql"

	# pgpool-II, unbounded for this trace: its hit ratio must be the ceiling.
	p0=$(pool_cache_counters)
	bpsql pgpool -f "$trace.sql" >/dev/null
	p1=$(pool_cache_counters)
	record memory pgpool_pct "$run" "$(echo "$p0 $p1" | awk '{ print 100 * ($3 - $1) / ($4 - $2) }')"

	if [ "$BENCH_SFC_CACHE" = yes ]; then
		# Bytes per entry: 1000 distinct results into an empty cache.
		bpsql sfc -c 'SELECT sfcache.flush()' >/dev/null 2>&1 || true
		seq 1 1000 | awk -v run="$run" "$stmt_awk" | bpsql sfc -f - >/dev/null
		b=$(sfc_counter '^bytes'); e=$(sfc_counter '^entries')
		if [ -n "$b" ] && [ -n "$e" ] && [ "$e" -gt 0 ]; then
			record memory sfc_bytes_per_entry "$run" "$((b / e))"
			# sfcache.memory takes whole MB (a kB value is rounded to MB, at
			# least 1MB): the budget is 10% of the working set rounded to MB,
			# and the LRU it is compared with holds as many results as that
			# budget does at the measured bytes per entry.
			budget_mb=$((((b / e) * distinct / 10 + 524288) / 1048576))
			[ "$budget_mb" -lt 1 ] && budget_mb=1
			if set_sfcache_memory "${budget_mb}MB"; then
				actual=$(bpsql sfc -c "SELECT pg_size_bytes(current_setting('sfcache.memory'))")
				record memory sfc_budget_kb "$run" "$((actual / 1024))"
				cap_b=$((actual / (b / e)))
				record memory lru_cap_b "$run" "$cap_b"
				record memory budget_pct "$run" "$(awk -v c="$cap_b" -v d="$distinct" 'BEGIN { printf "%.1f", 100 * c / d }')"
				lb=$("$BENCH_WORK/bin/memtrace" "$keys" "$n" "$zipf" "$run" "$cap_b" "$trace.b")
				record memory lru_b_pct "$run" "$(echo "$lb" | awk -F'lru_hit_ratio=' '{ split($2, a, " "); print 100 * a[1] }')"
				h0=$(sfc_counter '^hits$'); m0=$(sfc_counter '^misses$')
				bpsql sfc -f "$trace.sql" >/dev/null
				h1=$(sfc_counter '^hits$'); m1=$(sfc_counter '^misses$')
				record memory sfc_pct "$run" "$(awk -v h=$((h1 - h0)) -v m=$((m1 - m0)) 'BEGIN { if (h + m > 0) print 100 * h / (h + m) }')"
				# How many results the budget held at the end, against the LRU's capacity.
				held=$(sfc_counter '^entries$')
				record memory sfc_entries "$run" "$held"
				# The same LRU at the number of results sfcache really held:
				# separates the eviction policy from the space per result.
				if [ "${held:-0}" -gt 0 ]; then
					lh=$("$BENCH_WORK/bin/memtrace" "$keys" "$n" "$zipf" "$run" "$held" "$trace.h")
					record memory lru_h_pct "$run" "$(echo "$lh" | awk -F'lru_hit_ratio=' '{ split($2, a, " "); print 100 * a[1] }')"
				fi
				record memory sfc_evictions "$run" "$(sfc_counter '^evictions$')"
			else
				bench_log "memory: sfcache.memory = ${budget_mb}MB was refused; no budgeted hit ratio"
			fi
			set_sfcache_memory "${BENCH_SFC_MEMORY:-256MB}" || true
		fi
	fi
	bench_log "memory run $run: $line pgpool=$(values memory pgpool_pct | tail -1)%"
done

row_bytes=$(bpsql plain -c "SELECT avg(octet_length(t::text))::int FROM (SELECT id, username, email, repeat(md5(username), 256) AS pad FROM lms_user) AS t")
md "## Memory: bytes per entry, hit ratio under a 10% budget" "" \
	"Trace: $n primary-key reads of \`lms_user\` over $keys keys, Zipf exponent $zipf, one trace per run (seed = run)," \
	"replayed by psql. Budget: 10% of the trace's working set (its distinct results; $(values memory distinct | mmm) distinct keys)," \
	"rounded to whole MB because \`sfcache.memory\` takes MB (at least 1MB). LRU: an LRU cache holding as many results as" \
	"that budget at sfcache's measured bytes per entry, simulated on the same trace; ceiling: an unbounded cache." \
	"A result (one row, padded) is about $row_bytes bytes as text." ""
md "| | hit % or bytes | sfcache / LRU (per run) |" "| --- | ---: | ---: |"
md "| sfcache bytes per entry (a result is ~$row_bytes bytes) | $(cell memory sfc_bytes_per_entry) | |"
md "| sfcache budget: sfcache.memory (kB) | $(cell memory sfc_budget_kb) | |"
md "| results that budget holds at the measured bytes per entry (= LRU capacity) | $(cell memory lru_cap_b) | |"
md "| ... as % of the working set | $(cell memory budget_pct '%.1f') | |"
md "| sfcache entries held at the end of the replay | $(cell memory sfc_entries) | |"
md "| sfcache evictions during the replay | $(cell memory sfc_evictions) | |"
md "| sfcache hit %, that budget | $(cell memory sfc_pct '%.1f') | $(if [ "$BENCH_SFC_CACHE" = yes ]; then ratio_cell memory sfc_pct lru_b_pct; else echo "$SFC_NA"; fi) |"
md "| simulated LRU hit %, same number of results | $(cell memory lru_b_pct '%.1f') | |"
md "| simulated LRU hit %, as many results as sfcache held at the end | $(cell memory lru_h_pct '%.1f') | $(if [ "$BENCH_SFC_CACHE" = yes ]; then ratio_cell memory sfc_pct lru_h_pct; else echo "$SFC_NA"; fi) |"
md "| simulated LRU hit %, exactly 10% of the distinct keys | $(cell memory lru_pct '%.1f') | |"
md "| ceiling (unbounded) hit % | $(cell memory ceiling_pct '%.1f') | |"
md "| pgpool-II hit %, 256MB (replay check: equals the ceiling) | $(cell memory pgpool_pct '%.1f') | |"
md "" "Goal: sfcache's eviction (CLOCK, SIEVE or better) at least as good as LRU under the same budget." \
	"The first ratio compares at the same memory (space per result and policy); the second at the number of results" \
	"sfcache actually kept in that memory (policy alone)."
