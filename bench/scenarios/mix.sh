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
wrate=${BENCH_MIX_WRITE_RATE:-10}
# A page takes ~25 ms of server CPU: measure for at least 2 s.
BENCH_DUR=$((BENCH_DUR < 2 ? 2 : BENCH_DUR))
dash=$BENCH_SRC/bench/lms/dashboard.sql
writer=$BENCH_SRC/bench/lms/writer.sql
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

# One unmeasured pass per target: every cache starts the measured runs warm.
for t in $targets; do
	pgb "$t" 16 1 -f "$dash" -D scale="$BENCH_SCALE" >/dev/null
done

for run in $(runs); do
	for c in $clients; do
		for w in none "$wrate"; do
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

md "## Dashboard mix: 12 queries per page, Zipf students" "" \
	"\`bench/lms/dashboard.sql\` (pgbench, simple protocol, $BENCH_DUR s per measurement); with a writer:" \
	"\`bench/lms/writer.sql\` at $wrate commits/s through the same target. *CPU/page* counts the server processes" \
	"(PostgreSQL, and pgpool-II's for pgpool-II) from /proc; *hit %*: hits / SELECTs in the cache's own counters" \
	"(sfcache: hits / (hits + misses + coalesced) in \`sfcache.stats\`; pgpool-II: SHOW POOL_CACHE)." \
	"Before the runs, each target gets one unmeasured pass of the workload so that every cache starts warm." ""
md "| clients | writer | target | pages/s | hit % | CPU/page (ms) |" "| ---: | --- | --- | ---: | ---: | ---: |"
for c in $clients; do
	for w in none "$wrate"; do
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
	for w in none "$wrate"; do
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
		for w in none "$wrate"; do
			wl="no writer"; [ "$w" != none ] && wl="writer $w/s"
			printf '"%s, %s"' "$c" "$wl"
			for t in sfc plain pgpool; do
				v=$(values mix "$c/$w/$t/pages" | median); printf ' %s' "${v:-NaN}"
			done
			echo
		done
	done
} >"$BENCH_OUT/mix.dat"
