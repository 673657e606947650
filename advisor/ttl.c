/*-------------------------------------------------------------------------
 *
 * ttl.c
 *		Cache TTL recommendations from each table's observed write rate
 *		(sfcache.table_activity; a "write" here is a committed transaction
 *		that wrote the table, what invalidates its cached results). The
 *		rule: a table written on average every I seconds gets a TTL of I / 2, rounded down to whole seconds below a
 *		minute, whole minutes below an hour and whole hours above, and at
 *		least 1 second. Invalidation on commit is exact; the TTL bounds how
 *		long a change sfcache cannot see (logical replication, ...) stays
 *		invisible, and half the usual interval between writes keeps that
 *		below what the application already lives with. A per-table TTL can
 *		only shorten sfcache.ttl, so nothing is recommended when the rule
 *		gives sfcache.ttl or more, when fewer than 2 writes were seen (no
 *		rate yet), or when the table already has exactly that TTL.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include <limits.h>
#include <math.h>

#include "advisor.h"

static const char *const global_sql =
"SELECT setting, unit FROM pg_catalog.pg_settings WHERE name = 'sfcache.ttl'";

static const char *const activity_sql =
"SELECT a.schemaname, a.tablename, a.invalidations, a.invalidations_per_minute,\n"
"  COALESCE(s.ttl_seconds, 0)\n"
"FROM sfcache.table_activity a\n"
"LEFT JOIN sfcache.relation_settings s\n"
"  ON s.relid = pg_catalog.to_regclass(pg_catalog.format('%I.%I', a.schemaname, a.tablename))\n"
"WHERE a.schemaname <> 'sfcache' AND a.schemaname <> 'information_schema'\n"
"  AND a.schemaname !~ '^pg_'\n"
"ORDER BY 1, 2";

/*
 * sfcache.ttl in seconds into *ttl_s (0 if unknown: then nothing is
 * recommended); false on failure (logged).
 */
static bool
global_ttl(PGconn *conn, int *ttl_s)
{
	PGresult   *res = advisor_query(conn, "read the setting sfcache.ttl", global_sql, 0, NULL);
	double		v = 0;

	if (res == NULL)
		return false;
	if (PQntuples(res) == 1)
	{
		const char *unit = PQgetvalue(res, 0, 1);

		v = strtod(PQgetvalue(res, 0, 0), NULL);
		if (strcmp(unit, "ms") == 0)
			v /= 1000.0;
		else if (strcmp(unit, "min") == 0)
			v *= 60.0;
	}
	PQclear(res);
	*ttl_s = v > 0 && v < INT_MAX ? (int) v : 0;
	return true;
}

/* The rule above: a TTL in seconds, or 0 for no recommendation. */
int
ttl_recommend(double writes_per_minute, long long writes, int global_s)
{
	double		t;

	if (writes < 2 || writes_per_minute <= 0 || global_s <= 0)
		return 0;
	t = 60.0 / writes_per_minute / 2.0;
	if (t < 1)
		t = 1;
	else if (t < 60)
		t = floor(t);
	else if (t < 3600)
		t = floor(t / 60) * 60;
	else
		t = floor(t / 3600) * 3600;
	return t < global_s ? (int) t : 0;
}

/* The TTL recommendations; false on failure (logged). */
bool
ttl_fetch(PGconn *conn, const AdvisorOptions *opts, Workload *w)
{
	PGresult   *res;
	int			i;

	if (!global_ttl(conn, &w->global_ttl_s))
		return false;
	res = advisor_query(conn, "read sfcache.table_activity", activity_sql, 0, NULL);
	if (res == NULL)
		return false;
	w->ttl = pg_malloc0(sizeof(TableTtl) * (PQntuples(res) + 1));
	for (i = 0; i < PQntuples(res); i++)
	{
		TableTtl   *t = &w->ttl[w->nttl];

		if (!table_selected(opts, PQgetvalue(res, i, 0), PQgetvalue(res, i, 1)))
			continue;
		t->writes = strtoll(PQgetvalue(res, i, 2), NULL, 10);
		t->writes_per_minute = strtod(PQgetvalue(res, i, 3), NULL);
		t->current_s = atoi(PQgetvalue(res, i, 4));
		t->ttl_s = ttl_recommend(t->writes_per_minute, t->writes, w->global_ttl_s);
		if (t->ttl_s == 0 || t->ttl_s == t->current_s)
			continue;
		t->schema = pg_strdup(PQgetvalue(res, i, 0));
		t->table = pg_strdup(PQgetvalue(res, i, 1));
		w->nttl++;
	}
	PQclear(res);
	return true;
}

/* How many TTL lines will be written. */
int
ttl_count(const Workload *w)
{
	return w->nttl;
}
