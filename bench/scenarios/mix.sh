#!/usr/bin/env bash
# bench/scenarios/mix.sh: the LMS dashboard mix (bench/lms/dashboard.sql: 12
# queries per page, Zipf-drawn students) at 16-64 clients, without and with
# a writer (bench/lms/writer.sql at a fixed rate through the same target).
# Reports pages/s, the cache hit ratio, and server-side CPU per page
# (PostgreSQL's and pgpool-II's processes). Writes mix.md and mix.dat.
# shellcheck disable=SC2153,SC2119
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$BENCH_SRC/bench/lib.sh"

if [ "$BENCH_QUICK" = yes ]; then clients=${BENCH_MIX_CLIENTS:-32}; else clients=${BENCH_MIX_CLIENTS:-16 64}; fi
wrate=${BENCH_MIX_WRITE_RATE:-10}	# commits/s, or a list: "10 100"
# A page takes ~25 ms of server CPU: measure for at least 2 s (1 s under
# --quick, to stay under 5 minutes).
[ "$BENCH_QUICK" = yes ] || BENCH_DUR=$((BENCH_DUR < 2 ? 2 : BENCH_DUR))
dash=$BENCH_SRC/bench/lms/dashboard.sql
writer=$BENCH_SRC/bench/lms/writer.sql
# BENCH_MIX_NOW=fresh: "now" as Django writes timezone.now(), a literal with
# microseconds, new for every page: drawn uniformly from the
# BENCH_MIX_NOW_SPAN seconds (default 60, at most 3600) after the data set's
# fixed 09:00, instead of the fixed '2026-11-02 09:00:00+00'. The week bounds
# of Q3 stay fixed, as an application computes them. pgbench substitutes
# :vars inside literals; '0hhmmss.ffffff' is PostgreSQL's undelimited time.
now_mode=${BENCH_MIX_NOW:-fixed}
if [ "$now_mode" = fresh ]; then
	span=${BENCH_MIX_NOW_SPAN:-60}
	mkdir -p "$BENCH_WORK/sql"
	awk -v span="$span" '{ gsub(/'"'"'2026-11-02 09:00:00\+00'"'"'/, "'"'"'2026-11-02 0:nowt.:nowus+00'"'"'"); print }
		/^\\set cid / { print "\\set nowoff random(0, " span - 1 ")"
			print "\\set nowt 90000 + (:nowoff / 60) * 100 + :nowoff % 60"
			print "\\set nowus random(0, 999999)" }' "$dash" >"$BENCH_WORK/sql/dashboard-now.sql"
	dash=$BENCH_WORK/sql/dashboard-now.sql
fi
targets="plain pgpool"
[ "$BENCH_SFC_CACHE" = yes ] && targets="sfc plain pgpool"

# Cache counters "hits lookups" of a target (empty for plain).
cache_counts() {
	case $1 in
	pgpool) pool_cache_counters ;;
	sfc)
		# lookups: hits + misses (leaders) + coalesced (waited for a leader)
		sfcache_stats_snapshot | awk '$1 == "hits" { h = $2 } $1 == "misses" { m = $2 } $1 == "coalesced" { c = $2 }
			END { if (h != "") print h, h + m + c }' ;;
	esac
}

# The morning rush before the measured runs: the most popular students
# (all of them without --quick, the top $warm_users with it) open their
# dashboard twice, each time with all four of their classes, in the order of
# their popularity (random_zipfian's rank k is uid k); twice, because
# sfcache keeps a result from its key's second read on (admission). A shared sequence
# hands out (student, class) pairs, so the caches start the runs in the
# steady state a cache reaches, not in their first minute. Plain PostgreSQL
# has no cache to fill: one second of the workload warms its buffers.
if [ "$BENCH_QUICK" = yes ]; then warm_users=${BENCH_MIX_WARM_USERS:-200}; else warm_users=${BENCH_MIX_WARM_USERS:-$((5000 * BENCH_SCALE))}; fi
warm=$BENCH_WORK/sql/mix-warm.sql
mkdir -p "$BENCH_WORK/sql"
{
	echo "SELECT nextval('bench_mix_warm') - 1 AS n \gset"
	echo "\set m :n % :warm"
	echo "\set uid :m / 4 + 1"
	echo "\set j :m % 4"
	grep -v -e '^\\set uid random_zipfian' -e '^\\set j random' "$dash"
} >"$warm"
for t in $(echo "$targets" | tr ' ' '\n' | sed 's/pgpool/plain/' | sort -u); do
	bpsql "$t" -c "SET client_min_messages = warning; DROP SEQUENCE IF EXISTS bench_mix_warm; CREATE SEQUENCE bench_mix_warm"
done
warm_started=$(date +%s)
for t in $targets; do
	if [ "$t" = plain ]; then
		# no cache to fill: one pass warms its buffers
		pgb plain 16 1 -f "$dash" -D scale="$BENCH_SCALE" >/dev/null
		continue
	fi
	bpsql "$(backend_of "$t")" -c "SELECT setval('bench_mix_warm', 1, false)" >/dev/null
	bpgbench "$t" -n -c 16 -j 2 -t $((warm_users * 8 / 16)) -f "$warm" -D scale="$BENCH_SCALE" \
		-D warm=$((warm_users * 4)) "$BENCH_DB" \
		>>"$BENCH_OUT/pgbench.log" || bench_log "mix warm-up on $t failed: see pgbench.log"
done
bench_log "mix warm-up: top $warm_users students, $(($(date +%s) - warm_started)) s for $targets"

# Every run without the writer first: a writer's commits to lms_notification
# invalidate every cached result that read it, and the runs after it would
# measure the cache refilling instead of the steady state.
for w in none $wrate; do
	for run in $(runs); do
		for c in $clients; do
			for t in $targets; do
				k0=$(target_ticks "$t")
				h0=$(cache_counts "$t")
				wpid=""
				if [ "$w" != none ]; then
					bpgbench "$t" -n -f "$writer" -D scale="$BENCH_SCALE" -c 1 -R "$w" -T "$BENCH_DUR" "$BENCH_DB" \
						>>"$BENCH_OUT/pgbench.log" 2>&1 &
					wpid=$!
				fi
				tps=$(pgb "$t" "$c" "$BENCH_DUR" -f "$dash" -D scale="$BENCH_SCALE")
				[ -n "$wpid" ] && wait "$wpid"
				sleep 0.3
				k1=$(target_ticks "$t")
				h1=$(cache_counts "$t")
				key="$c/$w/$t"
				record mix "$key/pages" "$run" "$tps"
				# CPU ms per page: server ticks over pages served in BENCH_DUR seconds.
				record mix "$key/cpu_ms" "$run" "$(awk -v d=$((k1 - k0)) -v hz="$CLK_TCK" -v tps="$tps" -v s="$BENCH_DUR" \
					'BEGIN { if (tps > 0) printf "%.2f", d * 1000 / hz / (tps * s) }')"
				if [ -n "$h0" ] && [ -n "$h1" ]; then
					record mix "$key/hit_pct" "$run" "$(echo "$h0 $h1" | awk '{ l = $4 - $2; if (l > 0) printf "%.1f", 100 * ($3 - $1) / l; else print 0 }')"
				fi
				bench_log "mix run $run clients $c writer $w $t: pages/s=$tps"
			done
		done
	done
done

nowtext="the fixed now '2026-11-02 09:00:00+00'"
[ "$now_mode" = fresh ] && nowtext="a new microsecond now per page, as Django writes timezone.now(), drawn from the ${span:-60} s after 09:00"
md "## Dashboard mix: 12 queries per page, Zipf students" "" \
	"\`bench/lms/dashboard.sql\` (pgbench, simple protocol, $BENCH_DUR s per measurement, $nowtext); with a writer:" \
	"\`bench/lms/writer.sql\` at $wrate commits/s through the same target. *CPU/page* counts the server processes" \
	"(PostgreSQL, and pgpool-II's for pgpool-II) from /proc; *hit %*: hits / SELECTs in the cache's own counters" \
	"(sfcache: hits / (hits + misses + coalesced) in \`sfcache.stats\`; pgpool-II: SHOW POOL_CACHE)." \
	"Before the runs, each cache gets an unmeasured morning rush: the $warm_users most popular students (random_zipfian rank order)" \
	"open their dashboard twice with each of their four classes (sfcache keeps a result from its key's second read on), so the caches are measured in the steady state they reach, not while they fill" \
	"(plain PostgreSQL, which has no cache to fill, gets one second of the workload to warm its buffers)." ""
md "| clients | writer | target | pages/s | hit % | CPU/page (ms) |" "| ---: | --- | --- | ---: | ---: | ---: |"
for c in $clients; do
	for w in none $wrate; do
		wl=none; [ "$w" != none ] && wl="$w/s"
		[ "$BENCH_SFC_CACHE" = yes ] || md "| $c | $wl | sfcache | $SFC_NA | | |"
		for t in $targets; do
			name=$t; [ "$t" = sfc ] && name=sfcache; [ "$t" = pgpool ] && name=pgpool-II
			md "| $c | $wl | $name | $(cell mix "$c/$w/$t/pages") | $(cell mix "$c/$w/$t/hit_pct" '%.1f') | $(cell mix "$c/$w/$t/cpu_ms" '%.2f') |"
		done
	done
done
md "" "| clients | writer | pages/s sfcache / plain | pages/s sfcache / pgpool-II | pages/s pgpool-II / plain | CPU/page sfcache / plain |" \
	"| ---: | --- | ---: | ---: | ---: | ---: |"
for c in $clients; do
	for w in none $wrate; do
		wl=none; [ "$w" != none ] && wl="$w/s"
		if [ "$BENCH_SFC_CACHE" = yes ]; then
			a=$(ratio_cell mix "$c/$w/sfc/pages" "$c/$w/plain/pages"); b=$(ratio_cell mix "$c/$w/sfc/pages" "$c/$w/pgpool/pages")
			d=$(ratio_cell mix "$c/$w/sfc/cpu_ms" "$c/$w/plain/cpu_ms")
		else a=$SFC_NA b=$SFC_NA d=$SFC_NA; fi
		md "| $c | $wl | $a | $b | $(ratio_cell mix "$c/$w/pgpool/pages" "$c/$w/plain/pages") | $d |"
	done
done
md "" "Goal: sfcache ≥ 5× plain pages/s."

# mix.dat: "clients writer" label, then median pages/s of sfc plain pgpool.
{
	echo "# case sfc plain pgpool"
	for c in $clients; do
		for w in none $wrate; do
			wl="no writer"; [ "$w" != none ] && wl="writer $w/s"
			printf '"%s, %s"' "$c" "$wl"
			for t in sfc plain pgpool; do
				v=$(values mix "$c/$w/$t/pages" | median); printf ' %s' "${v:-NaN}"
			done
			echo
		done
	done
} >"$BENCH_OUT/mix.dat"
