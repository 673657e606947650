#!/usr/bin/env bash
# regress/oracle/findings/check.sh: run each reproducer of this directory in
# a fresh database twice, with the cache on and with sfcache.cache = off for
# the whole session, and say whether the outputs still differ (the class is
# still open) or agree (fixed). Needs a running server with sfcache preloaded.
# Usage: check.sh PSQL_BINDIR HOST PORT   (as a superuser able to create databases)
set -uo pipefail
bindir=$1 host=$2 port=$3
dir=$(cd "$(dirname "$0")" && pwd)
psql() { "$bindir/psql" -h "$host" -p "$port" -X -q "$@"; }
status=0
for f in "$dir"/*.sql; do
	name=$(basename "$f" .sql)
	out=()
	for mode in on off; do
		psql -d postgres -c "DROP DATABASE IF EXISTS sfc_finding WITH (FORCE)" -c "DROP ROLE IF EXISTS ra" -c "CREATE DATABASE sfc_finding" >/dev/null
		psql -d sfc_finding -c "CREATE EXTENSION sfcache" >/dev/null
		out+=("$(PGOPTIONS="-c sfcache.cache=$mode" psql -d sfc_finding -f "$f" 2>&1 | sed 's/^psql:[^ ]* //')")
	done
	if [ "${out[0]}" = "${out[1]}" ]; then
		echo "fixed  $name"
	else
		echo "OPEN   $name"; status=1
		diff <(echo "${out[0]}") <(echo "${out[1]}") | sed 's/^/         /'
	fi
done
psql -d postgres -c "DROP DATABASE IF EXISTS sfc_finding WITH (FORCE)" -c "DROP ROLE IF EXISTS ra" >/dev/null
exit $status
