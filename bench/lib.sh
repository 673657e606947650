# bench/lib.sh: what every bench/ script shares: the three throwaway servers
# (PostgreSQL 15 with sfcache preloaded, the same PostgreSQL without it, and
# pgpool-II with its shmem query cache in front of the plain one), connection
# helpers, pgbench parsing, server-side CPU accounting, statistics over runs
# (min/median/max) and the Markdown table writer.
#
# bench/run exports the environment these functions read (BENCH_WORK, ports,
# BENCH_DUR, BENCH_RUNS, ...); scenario scripts source this file.
# shellcheck shell=bash disable=SC2153,SC2034

BENCH_SRC=${BENCH_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# shellcheck source=scripts/lib.sh
. "$BENCH_SRC/scripts/lib.sh"

PGBIN=$($PG_CONFIG --bindir)
export PGBIN
PGPOOL_BIN=${PGPOOL_BIN:-/usr/sbin/pgpool}

# Ports only name the Unix sockets: no server here listens on TCP.
BENCH_PORT=${BENCH_PORT:-56430}
SFC_PORT=$((BENCH_PORT + 1))
PLAIN_PORT=$((BENCH_PORT + 2))
POOL_PORT=$((BENCH_PORT + 3))
PCP_PORT=$((BENCH_PORT + 4))
export SFC_PORT PLAIN_PORT POOL_PORT PCP_PORT
BENCH_DB=lms

bench_log() { printf '%s [bench] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# --- targets ---------------------------------------------------------------
# A "target" is what a client connects to: sfc, plain or pgpool.
target_port() {
	case $1 in
	sfc) echo "$SFC_PORT" ;;
	plain) echo "$PLAIN_PORT" ;;
	pgpool) echo "$POOL_PORT" ;;
	*) sfc_die "unknown target $1" ;;
	esac
}
target_conninfo() { echo "host=$BENCH_WORK/sock port=$(target_port "$1") dbname=${2:-$BENCH_DB}"; }

# psql against a target, tuples only, unaligned.
bpsql() {
	local t=$1
	shift
	"$PGBIN/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$BENCH_WORK/sock" -p "$(target_port "$t")" \
		-d "${BENCH_PSQL_DB:-$BENCH_DB}" "$@"
}

# pgbench against a target; prints its output.
bpgbench() {
	local t=$1
	shift
	"$PGBIN/pgbench" -h "$BENCH_WORK/sock" -p "$(target_port "$t")" "$@" 2>&1
}

# tps of a pgbench output (without initial connection time).
pgbench_tps() { sed -n 's/^tps = \([0-9.]*\).*/\1/p' | head -1; }

# Whether the loaded sfcache has a result cache (issue 3).
sfcache_has_cache() {
	[ "$(BENCH_PSQL_DB=postgres bpsql sfc -c "SELECT 1 FROM pg_settings WHERE name = 'sfcache.cache'" 2>/dev/null)" = 1 ]
}
SFC_NA="n/a (sfcache.cache not available)"

# sfcache.stats as "name value" lines of its numeric counters (empty without
# it): one wide row (a column per counter), or one row per counter (a text
# column naming it, then a numeric one).
sfcache_stats_snapshot() {
	if [ "$(bpsql sfc -c 'SELECT count(*) FROM sfcache.stats' 2>/dev/null)" = 1 ]; then
		bpsql sfc -F ' ' -c "SELECT key, value FROM sfcache.stats s, json_each_text(row_to_json(s))
			WHERE value ~ '^-?[0-9]+(\.[0-9]+)?$'" 2>/dev/null || true
	else
		bpsql sfc -F ' ' -c "SELECT (SELECT value FROM json_each_text(row_to_json(s)) WHERE value !~ '^-?[0-9.]+$' LIMIT 1),
			(SELECT value FROM json_each_text(row_to_json(s)) WHERE value ~ '^-?[0-9]+(\.[0-9]+)?$' LIMIT 1)
			FROM sfcache.stats s" 2>/dev/null | awk 'NF == 2' || true
	fi
}
# Differences between two snapshots (files), as "name delta" lines.
stats_delta() { awk 'NR==FNR { a[$1] = $2; next } { printf "%s %s\n", $1, $2 - a[$1] }' "$1" "$2"; }
# The first counter whose name matches a regex in a delta file, or empty.
stats_pick() { awk -v re="$2" '$1 ~ re { print $2; exit }' "$1"; }

# pgpool's query cache counters: "hits lookups" (SHOW POOL_CACHE's
# num_selects counts the SELECTs it did not serve from the cache).
pool_cache_counters() {
	bpsql pgpool -F ' ' -c 'SHOW POOL_CACHE' 2>/dev/null | awk '{ print $1, $1 + $2; exit }'
}

# --- servers ---------------------------------------------------------------
# init_pg NAME PORT PRELOAD: a cluster in $BENCH_WORK/NAME, Unix socket only.
init_pg() {
	local port=$2 preload=$3 dir=$BENCH_WORK/$1
	"$PGBIN/initdb" -D "$dir" -A trust -U "$(id -un)" --no-sync >/dev/null
	cat >>"$dir/postgresql.conf" <<CONF
# bench/: the same settings on every server except shared_preload_libraries.
listen_addresses = ''
unix_socket_directories = '$BENCH_WORK/sock'
port = $port
shared_preload_libraries = '$preload'
max_connections = 600
shared_buffers = 256MB
fsync = off
full_page_writes = off
max_parallel_workers_per_gather = 0
jit = off
pg_stat_statements.track = top
pg_stat_statements.max = 5000
log_min_messages = warning
log_min_error_statement = panic
CONF
}

start_pg() {
	local dir=$BENCH_WORK/$1
	"$PGBIN/pg_ctl" -D "$dir" -l "$BENCH_WORK/$1.log" -w -t 60 start >/dev/null ||
		{ tail -20 "$BENCH_WORK/$1.log" >&2; sfc_die "server $1 did not start"; }
}
stop_pg() { "$PGBIN/pg_ctl" -D "$BENCH_WORK/$1" -m fast -w stop >/dev/null 2>&1 || true; }

restart_pg() { stop_pg "$1"; start_pg "$1"; }

# Set sfcache.memory (a server-start setting) when this sfcache has it and
# accepts the value, and restart the sfc server; fails otherwise.
set_sfcache_memory() {
	[ "$(BENCH_PSQL_DB=postgres bpsql sfc -c "SELECT 1 FROM pg_settings WHERE name = 'sfcache.memory'")" = 1 ] || return 1
	BENCH_PSQL_DB=postgres bpsql sfc -c "ALTER SYSTEM SET sfcache.memory = '$1'" >/dev/null 2>&1 || return 1
	restart_pg sfc
	bench_log "sfcache.memory = $(BENCH_PSQL_DB=postgres bpsql sfc -c 'SHOW sfcache.memory') (asked: $1)"
}

# pgpool-II in front of the plain server: raw mode, one backend reached over
# its Unix socket, no health checks, shmem query cache with automatic
# invalidation, enough children for the 250-client herd.
init_pgpool() {
	local dir=$BENCH_WORK/pgpool
	mkdir -p "$dir/oiddir" "$dir/log"
	cat >"$dir/pgpool.conf" <<CONF
# bench/: pgpool-II query cache in front of the plain PostgreSQL.
backend_clustering_mode = 'raw'
listen_addresses = ''
port = $POOL_PORT
socket_dir = '$BENCH_WORK/sock'
pcp_listen_addresses = ''
pcp_port = $PCP_PORT
pcp_socket_dir = '$BENCH_WORK/sock'
backend_hostname0 = '$BENCH_WORK/sock'
backend_port0 = $PLAIN_PORT
backend_weight0 = 1
backend_flag0 = 'DISALLOW_TO_FAILOVER'
enable_pool_hba = off
pool_passwd = ''
num_init_children = 270
max_pool = 1
reserved_connections = 0
child_life_time = 0
child_max_connections = 0
connection_life_time = 0
client_idle_limit = 0
connection_cache = on
load_balance_mode = off
health_check_period = 0
sr_check_period = 0
failover_on_backend_error = off
use_watchdog = off
pid_file_name = '$dir/pgpool.pid'
logdir = '$dir/log'
log_destination = 'stderr'
log_min_messages = warning
memory_cache_enabled = on
memqcache_method = 'shmem'
memqcache_total_size = 256MB
memqcache_max_num_cache = 1000000
memqcache_expire = 0
memqcache_auto_cache_invalidation = on
memqcache_maxcache = 400kB
memqcache_cache_block_size = 1MB
memqcache_oiddir = '$dir/oiddir'
CONF
	: >"$dir/pcp.conf"
	: >"$dir/pool_hba.conf"
}

start_pgpool() {
	local dir=$BENCH_WORK/pgpool
	"$PGPOOL_BIN" -n -f "$dir/pgpool.conf" -F "$dir/pcp.conf" -a "$dir/pool_hba.conf" \
		>"$BENCH_WORK/pgpool.log" 2>&1 &
	echo $! >"$dir/bench.pid"
	for _ in $(seq 1 100); do
		bpsql pgpool -c 'SELECT 1' >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	tail -20 "$BENCH_WORK/pgpool.log" >&2
	sfc_die "pgpool did not start"
}
stop_pgpool() {
	local pid
	pid=$(cat "$BENCH_WORK/pgpool/bench.pid" 2>/dev/null) || return 0
	kill -INT "$pid" 2>/dev/null || return 0
	for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
	kill -KILL "$pid" 2>/dev/null || true
}

# pgpool must really cache: the same SELECT twice must count one hit.
check_pgpool_caches() {
	local before after
	before=$(pool_cache_counters | awk '{print $1}')
	bpsql pgpool -c 'SELECT count(*) FROM lms_university' >/dev/null
	bpsql pgpool -c 'SELECT count(*) FROM lms_university' >/dev/null
	after=$(pool_cache_counters | awk '{print $1}')
	if [ -z "$before" ] || [ "$((after - before))" -lt 1 ]; then
		sfc_die "pgpool does not cache (SHOW POOL_CACHE hits $before -> $after)"
	fi
}

# --- CPU -------------------------------------------------------------------
# Clock ticks used by the process trees under the given pids (their own,
# their live children's, and their reaped children's).
tree_ticks() {
	local p total=0 t
	for p in "$@"; do
		# cat skips processes that exit meanwhile (mawk would stop at the
		# first vanished file). In /proc/PID/stat, comm may hold spaces: the
		# fields after its closing ") " are fixed (state ppid ... utime
		# stime cutime cstime at 12-15).
		t=$(cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$p" '
			{
				pid = $1; s = $0; sub(/^.*\) /, "", s); split(s, f, " ")
				if (pid == root) sum += f[12] + f[13] + f[14] + f[15]
				else if (f[2] == root) sum += f[12] + f[13]
			}
			END { print sum + 0 }')
		total=$((total + t))
	done
	echo "$total"
}
CLK_TCK=$(getconf CLK_TCK)
# Server-side process trees of a target (pgpool also costs the plain server).
target_pids() {
	case $1 in
	sfc) head -1 "$BENCH_WORK/sfc/postmaster.pid" ;;
	plain) head -1 "$BENCH_WORK/plain/postmaster.pid" ;;
	pgpool) head -1 "$BENCH_WORK/plain/postmaster.pid"; cat "$BENCH_WORK/pgpool/bench.pid" ;;
	esac
}
target_ticks() {
	# shellcheck disable=SC2046
	tree_ticks $(target_pids "$1")
}

# --- results ---------------------------------------------------------------
# Raw measurements are lines "scenario<TAB>key<TAB>run<TAB>value" in
# $BENCH_OUT/raw.tsv; keys name what was measured (e.g. hit/simple/sfc/tps).
record() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$BENCH_OUT/raw.tsv"; }

# Values of one key over the runs, one per line.
values() { awk -F'\t' -v s="$1" -v k="$2" '$1 == s && $2 == k { print $4 }' "$BENCH_OUT/raw.tsv"; }

# "min / median / max" of numbers on stdin, printed with a format.
mmm() {
	sort -g | awk -v fmt="${1:-%.0f}" '
		{ v[NR] = $1 }
		END {
			if (NR == 0) { print "n/a"; exit }
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf fmt " / " fmt " / " fmt "\n", v[1], m, v[NR]
		}'
}
# Median only.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print ""; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# Per-run ratios of two keys (same run number): numerator / denominator.
ratios() {
	awk -F'\t' -v s="$1" -v a="$2" -v b="$3" '
		$1 == s && $2 == a { x[$3] = $4 }
		$1 == s && $2 == b { y[$3] = $4 }
		END { for (r in x) if ((r in y) && y[r] + 0 != 0) print x[r] / y[r] }' "$BENCH_OUT/raw.tsv"
}
# "min / median / max" of a ratio, or n/a when a side is missing.
ratio_cell() {
	local r
	r=$(ratios "$1" "$2" "$3")
	if [ -z "$r" ]; then echo "n/a"; else echo "$r" | mmm "%.2f×"; fi
}
# A cell for a key: min / median / max, or the sfcache n/a text.
cell() {
	local v
	v=$(values "$1" "$2")
	if [ -n "$v" ]; then echo "$v" | mmm "${3:-%.0f}"
	elif [[ $2 == *sfc* ]] && [ "${BENCH_SFC_CACHE:-no}" != yes ]; then echo "$SFC_NA"
	else echo "n/a"; fi
}

# Markdown section writer: md TEXT... appends lines to the scenario's file.
md() { printf '%s\n' "$@" >>"$BENCH_OUT/$SCENARIO.md"; }
md_row() { local IFS='|'; printf '| %s |\n' "$*" | sed 's/|/ | /g; s/  */ /g' >>"$BENCH_OUT/$SCENARIO.md"; }

# Targets a scenario measures: sfc only when the cache exists.
cache_targets() {
	if [ "${BENCH_SFC_CACHE:-no}" = yes ]; then echo "sfc plain pgpool"; else echo "plain pgpool"; fi
}

# Durations: BENCH_DUR seconds per measurement, BENCH_RUNS runs.
runs() { seq 1 "$BENCH_RUNS"; }

# --- workloads -------------------------------------------------------------
# The ~50 ms query of the hit, herd and scaling scenarios (at scale 1): unread
# and total notifications per university and kind, a seq scan of
# lms_notification joined to lms_user. It computes no timestamptz value:
# pgpool-II declines to cache e.g. max(created_at) or '...'::timestamptz. EXTRA is AND-ed to its WHERE
# clause (a per-run constant makes it cold; "false" gives its parse floor).
heavy_sql() {
	echo "SELECT u.university_id, n.kind, count(*) FILTER (WHERE n.status = 'unread') AS unread," \
		"count(*) AS total, sum(length(n.title)) AS title_chars" \
		"FROM lms_notification AS n JOIN lms_user AS u ON u.id = n.user_id" \
		"WHERE NOT n.is_deleted AND n.status <> 'archived'${1:+ AND $1}" \
		"GROUP BY u.university_id, n.kind ORDER BY u.university_id, n.kind"
}
# The table heavy_sql scans: its seq_scan counter counts real executions.
HEAVY_TABLE=lms_notification

# A pgbench script file holding one statement; prints its path.
sql_file() {
	local f=$BENCH_WORK/sql/$1.sql
	mkdir -p "$BENCH_WORK/sql"
	printf '%s;\n' "$2" >"$f"
	echo "$f"
}

# pgb TARGET CLIENTS SECONDS ARGS...: tps of one pgbench run (empty on error;
# pgbench's output is kept in $BENCH_OUT/pgbench.log).
pgb() {
	local t=$1 c=$2 s=$3 j=2 o
	shift 3
	[ "$c" -lt 2 ] && j=1
	o=$(bpgbench "$t" -n -c "$c" -j "$j" -T "$s" "$@" "$BENCH_DB")
	printf '### %s -c %s -T %s %s\n%s\n' "$t" "$c" "$s" "$*" "$o" >>"$BENCH_OUT/pgbench.log"
	echo "$o" | pgbench_tps
}

# The server that executes a target's statements (pgpool forwards to plain).
backend_of() { if [ "$1" = pgpool ]; then echo plain; else echo "$1"; fi; }
