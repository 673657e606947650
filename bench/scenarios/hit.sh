#!/usr/bin/env bash
# bench/scenarios/hit.sh: throughput of a warm cached ~50 ms query against
# the floors a hit is measured by: SELECT 1 (the protocol floor), a primary-key
# lookup, and the same statement's parse floor (its text AND false, cache
# off: parse, analyze and plan, no execution), in the simple and the prepared
# protocol, 8 clients. Writes hit.md.
# shellcheck disable=SC2153,SC2119
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$BENCH_SRC/bench/lib.sh"

clients=${BENCH_HIT_CLIENTS:-8}
f_heavy=$(sql_file heavy "$(heavy_sql)")
f_floor=$(sql_file floor "$(heavy_sql false)")
f_one=$(sql_file one "SELECT 1")
f_pk=$(sql_file pk "SELECT id, username, email, role FROM lms_user WHERE id = 4242")

pool0=$(pool_cache_counters)
for run in $(runs); do
	for proto in simple prepared; do
		m="-M $proto"
		for t in $(cache_targets); do
			[ "$t" = plain ] && continue
			bpsql "$t" -c "$(heavy_sql)" >/dev/null # warm the cache
			# shellcheck disable=SC2086
			record hit "$proto/cached/$t" "$run" "$(pgb "$t" "$clients" "$BENCH_DUR" $m -f "$f_heavy")"
		done
		# shellcheck disable=SC2086
		{
			# --quick measures the uncached query in its first run only (to stay under 5 minutes)
			[ "$BENCH_QUICK" = yes ] && [ "$run" -gt 1 ] ||
				record hit "$proto/uncached/plain" "$run" "$(pgb plain "$clients" "$BENCH_DUR" $m -f "$f_heavy")"
			record hit "$proto/select1/plain" "$run" "$(pgb plain "$clients" "$BENCH_DUR" $m -f "$f_one")"
			record hit "$proto/pk/plain" "$run" "$(pgb plain "$clients" "$BENCH_DUR" $m -f "$f_pk")"
			record hit "$proto/floor/plain" "$run" "$(pgb plain "$clients" "$BENCH_DUR" $m -f "$f_floor")"
		}
		if [ "$BENCH_SFC_CACHE" = yes ]; then
			# shellcheck disable=SC2086
			{
				record hit "$proto/select1/sfc" "$run" \
					"$(PGOPTIONS='-c sfcache.cache=off' pgb sfc "$clients" "$BENCH_DUR" $m -f "$f_one")"
				record hit "$proto/floor/sfc" "$run" \
					"$(PGOPTIONS='-c sfcache.cache=off' pgb sfc "$clients" "$BENCH_DUR" $m -f "$f_floor")"
			}
		fi
		bench_log "hit run $run $proto: $(awk -F'\t' -v r="$run" -v p="$proto/" '$1 == "hit" && $3 == r && index($2, p) == 1 { printf "%s=%s ", $2, $4 }' "$BENCH_OUT/raw.tsv")"
	done
done
pool1=$(pool_cache_counters)

# The denominators: on the sfcache server when it has a cache (its floors
# with sfcache loaded and cache off), else on the plain server.
den=plain
[ "$BENCH_SFC_CACHE" = yes ] && den=sfc
md "## Hit: a warm cached ~50 ms query vs. the floors ($clients clients)" "" \
	"Statement: \`heavy_sql\` of bench/lib.sh (uncached: $(bpsql plain -c '\timing on' -c "$(heavy_sql)" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | cut -d. -f1) ms on the plain server, one client, just now)." \
	"*parse floor*: the same text with \`AND false\`, cache off. pgbench transactions/s, $BENCH_DUR s per measurement." \
	"$([ "$den" = sfc ] && echo "SELECT 1 and the parse floor run on the sfcache server with \`PGOPTIONS='-c sfcache.cache=off'\` (the ratios' denominators); the PK lookup and the uncached query on the plain server$([ "$BENCH_QUICK" = yes ] && echo ' (the uncached query in the first run only, under --quick)').")" \
	"pgpool-II's cache counted $(awk -v a="${pool0% *}" -v b="${pool1% *}" 'BEGIN { print b - a }') hits during this scenario." ""
md "| protocol | sfcache (cached) | pgpool-II (cached) | plain (uncached) | SELECT 1 | PK lookup | parse floor |" \
	"| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for proto in simple prepared; do
	md "| $proto | $(cell hit "$proto/cached/sfc") | $(cell hit "$proto/cached/pgpool") | $(cell hit "$proto/uncached/plain") | $(cell hit "$proto/select1/$den") | $(cell hit "$proto/pk/plain") | $(cell hit "$proto/floor/$den") |"
done
sr() { if [ "$BENCH_SFC_CACHE" = yes ]; then ratio_cell hit "$1" "$2"; else echo "$SFC_NA"; fi; }
md "" "| ratio (per run) | simple | prepared | goal |" "| --- | ---: | ---: | --- |" \
	"| sfcache / SELECT 1 | $(sr simple/cached/sfc "simple/select1/$den") | $(sr prepared/cached/sfc "prepared/select1/$den") | prepared ≥ 0.8× |" \
	"| sfcache / parse floor | $(sr simple/cached/sfc "simple/floor/$den") | $(sr prepared/cached/sfc "prepared/floor/$den") | simple ≥ 0.9× |" \
	"| sfcache / pgpool-II | $(sr simple/cached/sfc simple/cached/pgpool) | $(sr prepared/cached/sfc prepared/cached/pgpool) | simple ≥ 1×, prepared ≥ 4× |" \
	"| sfcache / plain (uncached) | $(sr simple/cached/sfc simple/uncached/plain) | $(sr prepared/cached/sfc prepared/uncached/plain) | |" \
	"| pgpool-II / SELECT 1 | $(ratio_cell hit simple/cached/pgpool simple/select1/plain) | $(ratio_cell hit prepared/cached/pgpool prepared/select1/plain) | (issue 3 quotes 0.55× and 0.14×) |" \
	"| pgpool-II / parse floor | $(ratio_cell hit simple/cached/pgpool simple/floor/plain) | $(ratio_cell hit prepared/cached/pgpool prepared/floor/plain) | |" \
	"| pgpool-II / plain (uncached) | $(ratio_cell hit simple/cached/pgpool simple/uncached/plain) | $(ratio_cell hit prepared/cached/pgpool prepared/uncached/plain) | |" \
	"| parse floor / SELECT 1 (plain) | $(ratio_cell hit simple/floor/plain simple/select1/plain) | $(ratio_cell hit prepared/floor/plain prepared/select1/plain) | |"
