#!/usr/bin/env bash
# bench/scenarios/fresh.sh: freshness. Readers loop on a cacheable query that
# also returns the version row of bench_version while a writer commits
# version bumps at 2/s and 50/s, either through the same server (or proxy)
# or from a connection that bypasses the proxy. bench/clients/fresh.c counts
# stale reads: a read that began after a newer version's commit had been
# acknowledged, yet returned an older version. Writes fresh.md and fresh.dat.
# shellcheck disable=SC2153,SC2119
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$BENCH_SRC/bench/lib.sh"

rates=${BENCH_FRESH_RATES:-2 50}
readers=${BENCH_FRESH_READERS:-4}
# At 2 commits/s, at least 1.5 s (3 commits).
BENCH_DUR=$(awk -v d="$BENCH_DUR" 'BEGIN { print (d < 1.5) ? 1.5 : d }')
q="SELECT b.v, c.n FROM bench_version AS b, (SELECT count(*) AS n FROM lms_class) AS c WHERE b.id = 1"

# config = reader target + writer target
# plain:plain is the control (a stale read there would be the method's
# fault); --quick leaves it out to stay under 5 minutes.
configs="plain:plain pgpool:pgpool pgpool:plain"
[ "$BENCH_QUICK" = yes ] && configs="pgpool:pgpool pgpool:plain"
[ "$BENCH_SFC_CACHE" = yes ] && configs="sfc:sfc $configs"
# The cache hits of a reader target so far (empty for plain).
cache_hits() {
	case $1 in
	sfc) sfcache_stats_snapshot | awk '$1 == "hits" { h = $2 } $1 == "coalesced" { c = $2 } END { print h + c }' ;;
	pgpool) pool_cache_counters | awk '{ print $1 }' ;;
	esac
}
label() {
	case $1 in
	sfc:sfc) echo "sfcache, writer on the same server" ;;
	plain:plain) echo "plain, writer on the same server" ;;
	pgpool:pgpool) echo "pgpool-II, writer through pgpool-II" ;;
	pgpool:plain) echo "pgpool-II, writer bypasses pgpool-II" ;;
	esac
}

short() {
	case $1 in
	sfc:sfc) echo "sfcache" ;;
	plain:plain) echo "plain PostgreSQL" ;;
	pgpool:pgpool) echo "pgpool-II (writer through it)" ;;
	pgpool:plain) echo "pgpool-II (writer bypasses it)" ;;
	esac
}

for run in $(runs); do
	for rate in $rates; do
		for c in $configs; do
			r=${c%%:*} w=${c##*:}
			# Start from a state every cache agrees on: a bump committed through
			# the readers' path (pgpool-II invalidates what an earlier bypassing
			# writer left stale), then one read.
			bpsql "$r" -c 'UPDATE bench_version SET v = v + 1 WHERE id = 1' -c "$q" >/dev/null
			# How many reads the cache served: a fresh cache that serves nothing
			# proves nothing.
			h0=$(cache_hits "$r")
			line=$("$BENCH_WORK/bin/fresh" "$(target_conninfo "$r")" "$(target_conninfo "$w")" \
				"$readers" "$rate" "$BENCH_DUR" "$q" "$BENCH_OUT/fresh-$r-$w-$rate-$run.timeline")
			h1=$(cache_hits "$r")
			for f in reads stale stale_pct worst_ms commits; do
				record fresh "$rate/$c/$f" "$run" "$(echo "$line" | sed -n "s/.*\b$f=\([0-9.]*\).*/\1/p")"
			done
			reads=$(echo "$line" | sed -n 's/.*\breads=\([0-9]*\).*/\1/p')
			if [ -n "$h0" ] && [ -n "$h1" ] && [ "${reads:-0}" -gt 0 ]; then
				record fresh "$rate/$c/hit_pct" "$run" "$(awk -v h=$((h1 - h0)) -v r="$reads" 'BEGIN { printf "%.1f", 100 * h / r }')"
				line="$line cache_hits=$((h1 - h0))"
			fi
			bench_log "fresh run $run rate $rate/s readers $r writer $w: $line"
		done
	done
done

md "## Freshness: stale reads while a writer commits" "" \
	"$readers readers loop on \`$q\` for $BENCH_DUR s while one writer commits \`UPDATE bench_version SET v = v + 1\`" \
	"at a fixed rate (\`bench/clients/fresh.c\`). A read is **stale** when it began after a newer version's commit" \
	"had been acknowledged to the writer and still returned an older version; *worst* is how long before that read" \
	"began the newer version had been acknowledged. The writer either uses the readers' path or bypasses the proxy" \
	"(another application server, a migration, psql). *served by the cache*: the cache's hits during the run over" \
	"the reads (sfcache.stats hits; SHOW POOL_CACHE for pgpool-II), so that 0 stale reads is not 0 cached reads." ""
md "| commits/s | readers, writer | reads | served by the cache % | stale reads | stale % | worst staleness (ms) |" \
	"| ---: | --- | ---: | ---: | ---: | ---: | ---: |"
for rate in $rates; do
	[ "$BENCH_SFC_CACHE" = yes ] || md "| $rate | sfcache, writer on the same server | $SFC_NA | | | | |"
	for c in $configs; do
		md "| $rate | $(label "$c") | $(cell fresh "$rate/$c/reads") | $(cell fresh "$rate/$c/hit_pct" '%.1f') | $(cell fresh "$rate/$c/stale") | $(cell fresh "$rate/$c/stale_pct" '%.1f') | $(cell fresh "$rate/$c/worst_ms" '%.1f') |"
	done
done
[ "$BENCH_QUICK" = yes ] && md "" "(The control, plain PostgreSQL with its own writer, is measured without --quick only.)"
md "" "Goal: 0 stale reads for sfcache (issue 3 reports 98% stale reads for pgpool-II with the writer at 50/s bypassing it)."

# fresh.dat: one row per config, median stale % at each rate.
{
	printf '# config'; for rate in $rates; do printf ' stale_pct_at_%s' "$rate"; done; echo
	for c in $configs; do
		printf '"%s"' "$(short "$c")"
		for rate in $rates; do printf ' %s' "$(values fresh "$rate/$c/stale_pct" | median)"; done
		echo
	done
} >"$BENCH_OUT/fresh.dat"
