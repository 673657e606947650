/*-------------------------------------------------------------------------
 *
 * cache_settings.c
 *		Result cache settings recommended from the recorded workload, for a
 *		cache whose invalidation is exact by key values: a frequently written
 *		table needs its key columns tracked, not a shorter TTL. The rules
 *		(a "write" is a committed transaction that wrote the table, counted
 *		by sfcache.table_activity's invalidations):
 *
 *		track: a table written at least twice and at least once a minute,
 *		not excluded, whose recorded quals (sfcache.advice_quals) compare a
 *		plain column with "=" (also IN and = ANY) against values that vary
 *		between executions (constant_varies: another constant or a
 *		parameter), where sfcache.column_untrackable() accepts the column:
 *		of its two such columns (tracked or not) with the most sampled
 *		calls, each one not tracked yet (in sfcache.tracked_columns, active or not: a disabled
 *		trigger is the owner's choice) gets sfcache.track(), and
 *		sfcache.untrack() to reverse it. A column is left out when another
 *		such column of the table (tracked or not) has more distinct values
 *		by pg_stats and is compared by every statement that compares it:
 *		the cache depends on the most selective restricted column only
 *		(user_id, not status, for WHERE user_id = $1 AND status = $2).
 *
 *		exclude: a table written at least twice and at least 60 times a
 *		minute, not excluded, read by recorded statements (it has quals in
 *		sfcache.advice_quals) and with no such equality column (tracked or
 *		not): its cached results die within a second or so. The statements
 *		that read it (the quals' query ids) are looked up in
 *		sfcache.statements: when their results were stored and hits reach a
 *		quarter of the stores, the results are read before they die and
 *		nothing is recommended (below that, storing costs more than the
 *		hits save); when nothing was stored (cache off, or no
 *		counters visible), the rule rests on the write rate alone and the
 *		comment says so. Otherwise sfcache.exclude(), reversed by
 *		sfcache.include().
 *
 *		Quals count only when one of their statements is one the result
 *		cache saw (sfcache.statements): reads, not a writer's own UPDATE
 *		... WHERE id = $1; when the cache saw no statement (off, or no
 *		counters visible) every recorded qual counts.
 *
 *		A partition's writes and quals count for its partition root, the
 *		table recommended. Tables of the sfcache and system schemas are
 *		left out. A column is
 *		matched to a qual's expression, the server's deparsed key, by
 *		comparing with quote_ident(attname) and with the always-quoted form
 *		(quote_all_identifiers), never by parsing the text. Quals served
 *		entirely by an index are not recorded by the extension, so a column
 *		compared only that way is not seen.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "advisor.h"

/* Writes per minute from which a table's columns are worth tracking. */
#define TRACK_MIN_RATE			"1"
/* Writes per minute from which cached results die before they are read. */
#define EXCLUDE_MIN_RATE		"60"
/* The most columns recommended per table. */
#define TRACK_MAX_COLUMNS		2
#define QUERY_TEXT_MAX			120

/*
 * The written tables ($1: minimum rate) and their recorded quals on a plain
 * column compared with "=" to varying values, where the column can be
 * tracked. A partition's writes and quals count for its partition root
 * (tracking the root covers every partition, and statements read through
 * it): the root's write count is the largest of theirs, a lower bound.
 * search_path is empty: every name resolves in pg_catalog.
 */
#define CACHE_CTES \
"WITH w AS (\n" \
"  SELECT COALESCE(pg_catalog.pg_partition_root(c.oid), c.oid) AS relid,\n" \
"    a.invalidations, a.invalidations_per_minute\n" \
"  FROM sfcache.table_activity a\n" \
"  JOIN pg_catalog.pg_namespace n ON n.nspname = a.schemaname\n" \
"  JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = a.tablename),\n" \
"t AS (\n" \
"  SELECT w.relid, n.nspname AS schemaname, c.relname AS tablename,\n" \
"    pg_catalog.max(w.invalidations) AS invalidations,\n" \
"    pg_catalog.max(w.invalidations_per_minute) AS invalidations_per_minute\n" \
"  FROM w\n" \
"  JOIN pg_catalog.pg_class c ON c.oid = w.relid\n" \
"  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace\n" \
"  WHERE n.nspname <> 'sfcache' AND n.nspname <> 'information_schema'\n" \
"    AND n.nspname !~ '^pg_' AND c.relkind IN ('r', 'p')\n" \
"    AND NOT EXISTS (SELECT FROM sfcache.relation_settings s\n" \
"      WHERE s.relid = c.oid AND s.excluded)\n" \
"  GROUP BY w.relid, n.nspname, c.relname\n" \
"  HAVING pg_catalog.max(w.invalidations) >= 2\n" \
"    AND pg_catalog.max(w.invalidations_per_minute) >= $1::float8),\n" \
"q AS (\n" \
"  SELECT t.relid, q.expression, q.operator::pg_catalog.oid AS opno, q.kind,\n" \
"    q.calls, q.queryids, q.constant_varies\n" \
"  FROM sfcache.advice_quals q\n" \
"  JOIN pg_catalog.pg_namespace n ON n.nspname = q.schemaname\n" \
"  JOIN pg_catalog.pg_class c ON c.relnamespace = n.oid AND c.relname = q.tablename\n" \
"  JOIN t ON t.relid = COALESCE(pg_catalog.pg_partition_root(c.oid), c.oid)\n" \
"  WHERE EXISTS (SELECT FROM sfcache.statements st WHERE st.queryid = ANY (q.queryids))\n" \
"    OR NOT EXISTS (SELECT FROM sfcache.statements)),\n" \
"eq AS (\n" \
"  SELECT q.relid, a.attname, q.calls, q.queryids\n" \
"  FROM q\n" \
"  JOIN pg_catalog.pg_operator o ON o.oid = q.opno\n" \
"  JOIN pg_catalog.pg_attribute a ON a.attrelid = q.relid AND a.attnum > 0\n" \
"    AND NOT a.attisdropped\n" \
"    AND q.expression IN (pg_catalog.quote_ident(a.attname),\n" \
"      '\"' || pg_catalog.replace(a.attname, '\"', '\"\"') || '\"')\n" \
"  WHERE q.kind = 'e' AND o.oprname = '=' AND q.constant_varies\n" \
"    AND sfcache.column_untrackable(q.relid::pg_catalog.regclass, a.attname) IS NULL)\n"

/*
 * The columns not to track: one with fewer distinct values (pg_stats'
 * n_distinct, a negative one times reltuples; the largest of a root's and
 * its partitions' rows) than another candidate or tracked column of its
 * table that every one of its statements also compares (its query ids a
 * subset of the other's). The cache depends on the more selective column
 * of such statements only (cache_depend.c), so tracking the other would
 * cost every write a trigger call for nothing. Columns without statistics
 * are never dropped.
 */
#define DOMINATED_CTES \
",\n" \
"nd AS (\n" \
"  SELECT e.relid, e.attname, pg_catalog.max(CASE WHEN s.n_distinct >= 0 THEN s.n_distinct\n" \
"    ELSE -s.n_distinct * GREATEST(c.reltuples, 0) END) AS distinct_values\n" \
"  FROM (SELECT DISTINCT relid, attname FROM eq) e\n" \
"  JOIN pg_catalog.pg_class c ON c.oid = e.relid\n" \
"  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace\n" \
"  JOIN pg_catalog.pg_stats s ON s.schemaname = n.nspname AND s.tablename = c.relname\n" \
"    AND s.attname = e.attname\n" \
"  GROUP BY e.relid, e.attname),\n" \
"dominated AS (\n" \
"  SELECT DISTINCT a.relid, a.attname\n" \
"  FROM nd a JOIN nd b ON b.relid = a.relid AND b.attname <> a.attname\n" \
"  WHERE b.distinct_values > a.distinct_values\n" \
"    AND NOT EXISTS (\n" \
"      SELECT u FROM eq x, pg_catalog.unnest(x.queryids) u\n" \
"      WHERE x.relid = a.relid AND x.attname = a.attname\n" \
"      EXCEPT\n" \
"      SELECT u FROM eq y, pg_catalog.unnest(y.queryids) u\n" \
"      WHERE y.relid = b.relid AND y.attname = b.attname))\n"

/* Per table and column: evidence, and whether it is tracked already. */
static const char *const track_sql =
CACHE_CTES
DOMINATED_CTES
"SELECT t.schemaname, t.tablename, t.invalidations, t.invalidations_per_minute,\n"
"  e.attname, pg_catalog.sum(e.calls)::bigint,\n"
"  (SELECT pg_catalog.string_agg(DISTINCT u::text, ' ' ORDER BY u::text)\n"
"   FROM eq e2, pg_catalog.unnest(e2.queryids) u\n"
"   WHERE e2.relid = e.relid AND e2.attname = e.attname),\n"
"  EXISTS (SELECT FROM sfcache.tracked_columns k\n"
"    WHERE k.relation = e.relid AND k.column_name = e.attname)\n"
"FROM t JOIN eq e ON e.relid = t.relid\n"
"WHERE NOT EXISTS (SELECT FROM dominated d WHERE d.relid = e.relid AND d.attname = e.attname)\n"
"GROUP BY t.schemaname, t.tablename, t.invalidations, t.invalidations_per_minute,\n"
"  e.relid, e.attname\n"
"ORDER BY 1, 2, 6 DESC, 5";

/* Tables read by recorded statements with no equality column to track. */
static const char *const exclude_sql =
CACHE_CTES
", r AS (\n"
"  SELECT t.schemaname, t.tablename, t.invalidations, t.invalidations_per_minute,\n"
"    pg_catalog.sum(q.calls)::bigint AS calls,\n"
"    ARRAY(SELECT DISTINCT u FROM q q2, pg_catalog.unnest(q2.queryids) u\n"
"      WHERE q2.relid = t.relid ORDER BY u) AS ids\n"
"  FROM t JOIN q ON q.relid = t.relid\n"
"  WHERE NOT EXISTS (SELECT FROM eq WHERE eq.relid = t.relid)\n"
"  GROUP BY t.relid, t.schemaname, t.tablename, t.invalidations,\n"
"    t.invalidations_per_minute)\n"
"SELECT r.schemaname, r.tablename, r.invalidations, r.invalidations_per_minute,\n"
"  r.calls, pg_catalog.array_to_string(r.ids, ' '),\n"
"  COALESCE(s.stores, 0), COALESCE(s.hits, 0)\n"
"FROM r, LATERAL (SELECT pg_catalog.sum(st.stores)::bigint AS stores,\n"
"    pg_catalog.sum(st.hits)::bigint AS hits\n"
"  FROM sfcache.statements st WHERE st.queryid = ANY (r.ids)) s\n"
"ORDER BY 1, 2";

static void
split_ids(const char *text, StrList *out)
{
	char	   *ids = pg_strdup(text);
	char	   *save = NULL;
	char	   *tok;

	for (tok = strtok_r(ids, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		strlist_add(out, tok);
	free(ids);
}

/* A new entry of w->cache for row i of res (table columns 0 to 3). */
static CacheSetting *
add_setting(Workload *w, CacheAction action, PGresult *res, int i)
{
	CacheSetting *s;

	w->cache = pg_realloc(w->cache, sizeof(CacheSetting) * (w->ncache + 1));
	s = &w->cache[w->ncache++];
	memset(s, 0, sizeof(*s));
	s->action = action;
	s->schema = pg_strdup(PQgetvalue(res, i, 0));
	s->table = pg_strdup(PQgetvalue(res, i, 1));
	s->writes = strtoll(PQgetvalue(res, i, 2), NULL, 10);
	s->writes_per_minute = strtod(PQgetvalue(res, i, 3), NULL);
	return s;
}

static bool
fetch_track(PGconn *conn, const AdvisorOptions *opts, Workload *w)
{
	const char *params[1] = {TRACK_MIN_RATE};
	PGresult   *res = advisor_query(conn, "read the columns to track", track_sql, 1, params);
	int			i;
	int			rank = 0;

	if (res == NULL)
		return false;
	for (i = 0; i < PQntuples(res); i++)
	{
		CacheSetting *s;

		/* rows come by table, then by calls: rank within the table */
		if (i > 0 && (strcmp(PQgetvalue(res, i, 0), PQgetvalue(res, i - 1, 0)) != 0 ||
					  strcmp(PQgetvalue(res, i, 1), PQgetvalue(res, i - 1, 1)) != 0))
			rank = 0;
		if (rank++ >= TRACK_MAX_COLUMNS || PQgetvalue(res, i, 7)[0] == 't' ||
			!table_selected(opts, PQgetvalue(res, i, 0), PQgetvalue(res, i, 1)))
			continue;
		s = add_setting(w, CACHE_TRACK, res, i);
		s->column = pg_strdup(PQgetvalue(res, i, 4));
		s->calls = strtoll(PQgetvalue(res, i, 5), NULL, 10);
		split_ids(PQgetvalue(res, i, 6), &s->queryids);
	}
	PQclear(res);
	return true;
}

static bool
fetch_exclude(PGconn *conn, const AdvisorOptions *opts, Workload *w)
{
	const char *params[1] = {EXCLUDE_MIN_RATE};
	PGresult   *res = advisor_query(conn, "read the tables to exclude", exclude_sql, 1, params);
	int			i;

	if (res == NULL)
		return false;
	for (i = 0; i < PQntuples(res); i++)
	{
		long long	stores = strtoll(PQgetvalue(res, i, 6), NULL, 10);
		long long	hits = strtoll(PQgetvalue(res, i, 7), NULL, 10);
		CacheSetting *s;

		/* stored results read often enough before a write drops them */
		if ((stores > 0 && hits * 4 >= stores) ||
			!table_selected(opts, PQgetvalue(res, i, 0), PQgetvalue(res, i, 1)))
			continue;
		s = add_setting(w, CACHE_EXCLUDE, res, i);
		s->calls = strtoll(PQgetvalue(res, i, 4), NULL, 10);
		split_ids(PQgetvalue(res, i, 5), &s->queryids);
		s->stores = stores;
		s->hits = hits;
	}
	PQclear(res);
	return true;
}

static int
setting_cmp(const void *a, const void *b)
{
	const CacheSetting *x = a;
	const CacheSetting *y = b;
	int			c;

	if ((c = strcmp(x->schema, y->schema)) != 0 || (c = strcmp(x->table, y->table)) != 0)
		return c;
	if (x->action != y->action)
		return x->action == CACHE_TRACK ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return strcmp(x->column ? x->column : "", y->column ? y->column : "");
}

/*
 * The cache setting recommendations into w->cache, by table, then track
 * before exclude, then by calls; false on failure (logged).
 */
bool
cache_settings_fetch(PGconn *conn, const AdvisorOptions *opts, Workload *w)
{
	if (!fetch_track(conn, opts, w) || !fetch_exclude(conn, opts, w))
		return false;
	if (w->ncache > 1)
		qsort(w->cache, w->ncache, sizeof(CacheSetting), setting_cmp);
	return true;
}

/* How many cache setting statements will be written. */
int
cache_settings_count(const Workload *w)
{
	return w->ncache;
}

/* The statement for s, or its reverse. */
void
cache_setting_sql(PGconn *conn, const CacheSetting *s, int down, PQExpBuffer out)
{
	char	   *rel = qualified_name(conn, s->schema, s->table);
	char	   *lit = esc_literal(conn, rel);

	if (s->action == CACHE_TRACK)
	{
		char	   *col = esc_literal(conn, s->column);

		appendPQExpBuffer(out, "SELECT sfcache.%s(%s::regclass, %s);",
						  down ? "untrack" : "track", lit, col);
		free(col);
	}
	else
		appendPQExpBuffer(out, "SELECT sfcache.%s(%s::regclass);",
						  down ? "include" : "exclude", lit);
	free(rel);
	free(lit);
}

/*
 * The statement of s that runs only where the extension is installed and
 * does nothing elsewhere (a staging copy, a laptop): a DO block checking
 * pg_extension, its body one string literal (no dollar quote a name could
 * close). Django's migration runs it: a RunSQL that failed there would
 * leave the indexes built before it unrecorded.
 */
void
cache_setting_guarded_sql(PGconn *conn, const CacheSetting *s, int down, PQExpBuffer out)
{
	PQExpBufferData body;
	PQExpBufferData stmt;
	char	   *lit;

	initPQExpBuffer(&stmt);
	cache_setting_sql(conn, s, down, &stmt);
	initPQExpBuffer(&body);
	/* "SELECT f(...);" -> "PERFORM f(...);" */
	appendPQExpBuffer(&body, "BEGIN IF EXISTS (SELECT FROM pg_catalog.pg_extension "
					  "WHERE extname OPERATOR(pg_catalog.=) 'sfcache') THEN PERFORM %s "
					  "END IF; END", stmt.data + strlen("SELECT "));
	lit = esc_literal(conn, body.data);
	appendPQExpBuffer(out, "DO %s;", lit);
	free(lit);
	termPQExpBuffer(&body);
	termPQExpBuffer(&stmt);
}

static void
add_line(StrList *lines, PQExpBuffer b)
{
	PQExpBufferData clean;

	initPQExpBuffer(&clean);
	append_comment_text(&clean, b->data, 0);
	strlist_add_nocopy(lines, clean.data);
	resetPQExpBuffer(b);
}

static void
statement_lines(const Workload *w, const CacheSetting *s, PQExpBuffer b, StrList *lines)
{
	int			i;
	int			j;

	for (i = 0; i < s->queryids.n; i++)
	{
		appendPQExpBuffer(b, "  query id %s", s->queryids.items[i]);
		for (j = 0; j < w->nstmts; j++)
			if (strcmp(w->stmts[j].queryid, s->queryids.items[i]) == 0)
				break;
		if (j < w->nstmts)
		{
			appendPQExpBuffer(b, " (result cache: %lld calls, %lld hits): ",
							  w->stmts[j].calls, w->stmts[j].hits);
			append_comment_text(b, w->stmts[j].query, QUERY_TEXT_MAX);
		}
		add_line(lines, b);
	}
}

/*
 * The comment lines that justify s, without a comment marker and safe for
 * one (no newline).
 */
void
cache_setting_evidence(const Workload *w, const CacheSetting *s, StrList *lines)
{
	PQExpBufferData b;

	initPQExpBuffer(&b);
	if (s->action == CACHE_TRACK)
		appendPQExpBuffer(&b, "track %s.%s.%s: the table is written %.2f times a minute (%lld writes); "
						  "statements compare the column with = to varying values",
						  s->schema, s->table, s->column, s->writes_per_minute, s->writes);
	else
		appendPQExpBuffer(&b, "exclude %s.%s: the table is written %.2f times a minute (%lld writes) "
						  "and no statement compares a column that can be tracked with = to varying values",
						  s->schema, s->table, s->writes_per_minute, s->writes);
	add_line(lines, &b);
	appendPQExpBuffer(&b, "statements: %d, %lld calls (sampled)", s->queryids.n, s->calls);
	add_line(lines, &b);
	statement_lines(w, s, &b, lines);
	if (s->action == CACHE_EXCLUDE)
	{
		if (s->stores > 0)
			appendPQExpBuffer(&b, "result cache: %lld results stored, %lld hits: cached results die before they are read",
							  s->stores, s->hits);
		else
			appendPQExpBufferStr(&b, "result cache: no result of these statements stored (sfcache.statements): "
								 "this rests on the write rate alone");
		add_line(lines, &b);
	}
	termPQExpBuffer(&b);
}

/* Free w->cache. */
void
cache_settings_free(Workload *w)
{
	int			i;

	for (i = 0; i < w->ncache; i++)
	{
		free(w->cache[i].schema);
		free(w->cache[i].table);
		free(w->cache[i].column);
		strlist_free(&w->cache[i].queryids);
	}
	free(w->cache);
	w->cache = NULL;
	w->ncache = 0;
}
