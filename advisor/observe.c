/*-------------------------------------------------------------------------
 *
 * observe.c
 *		The forecast of observe mode (sfcache.cache = observe): what the
 *		result cache would have served of this database's reads had it
 *		been on, from sfcache.statements' observed counters since the last
 *		sfcache.reset() (sfcache.stats.reset_at). A statement is worth the
 *		cache when at least OBSERVE_MIN_SERVED_PCT of its calls would have
 *		been served (observed hits and coalesced followers) and at least
 *		--min-calls of them; the forecast is their share of every read the
 *		cache saw here ("N % of your reads") and the time their observed
 *		executions ran, per hour since the reset ("M s saved per hour").
 *		Nothing is written when nothing was observed. The statements are
 *		not filtered by --table: a statement may read several tables.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres_fe.h"

#include "advisor.h"

/*
 * Below this share of its calls served, a statement's misses (a lookup,
 * storing, windows) cost about what its hits save.
 */
#define OBSERVE_MIN_SERVED_PCT	50
#define QUERY_TEXT_MAX			120

/*
 * Per statement of this database, every role's executions together; the
 * statements with observed executions, most time saved first. The last
 * columns repeat on each row: every read of the database, and the hours
 * since the counters' reset (at least one second).
 */
static const char *const observe_sql =
"WITH s AS (\n"
"  SELECT st.queryid, pg_catalog.sum(st.calls)::bigint AS calls,\n"
"    pg_catalog.sum(st.observed_hits)::bigint AS hits,\n"
"    pg_catalog.sum(st.observed_coalesced)::bigint AS coalesced,\n"
"    pg_catalog.sum(st.observed_window_hits)::bigint AS window_hits,\n"
"    pg_catalog.sum(st.observed_saved_time)::float8 AS saved_ms,\n"
"    pg_catalog.min(st.query) AS query\n"
"  FROM sfcache.statements st\n"
"  WHERE st.dbid = (SELECT d.oid FROM pg_catalog.pg_database d\n"
"    WHERE d.datname = pg_catalog.current_database())\n"
"  GROUP BY st.queryid),\n"
"h AS (\n"
"  SELECT GREATEST(EXTRACT(epoch FROM pg_catalog.now() - x.reset_at)::float8, 1) / 3600 AS hours\n"
"  FROM sfcache.stats x)\n"
"SELECT s.queryid::text, s.calls, s.hits, s.coalesced, s.window_hits,\n"
"  s.saved_ms / 1000 / h.hours, s.query,\n"
"  (SELECT pg_catalog.sum(a.calls)::bigint FROM s a), h.hours\n"
"FROM s, h\n"
"WHERE s.hits + s.coalesced > 0\n"
"ORDER BY 6 DESC, 1";

/*
 * Read the observed counters into w->observe; false on failure (logged).
 * A database whose statements were never observed gets nothing.
 */
bool
observe_fetch(PGconn *conn, const AdvisorOptions *opts, Workload *w)
{
	ObserveForecast *f = &w->observe;
	PGresult   *res = advisor_query(conn, "read the observed counters", observe_sql, 0, NULL);
	int			i;

	if (res == NULL)
		return false;
	memset(f, 0, sizeof(*f));
	f->stmts = pg_malloc0(sizeof(ObservedStatement) * (PQntuples(res) + 1));
	for (i = 0; i < PQntuples(res); i++)
	{
		ObservedStatement *s = &f->stmts[f->n++];
		long long	served;

		s->queryid = pg_strdup(PQgetvalue(res, i, 0));
		s->calls = strtoll(PQgetvalue(res, i, 1), NULL, 10);
		s->hits = strtoll(PQgetvalue(res, i, 2), NULL, 10);
		s->coalesced = strtoll(PQgetvalue(res, i, 3), NULL, 10);
		s->window_hits = strtoll(PQgetvalue(res, i, 4), NULL, 10);
		s->saved_s_per_hour = strtod(PQgetvalue(res, i, 5), NULL);
		s->query = pg_strdup(PQgetvalue(res, i, 6));
		f->reads = strtoll(PQgetvalue(res, i, 7), NULL, 10);
		f->hours = strtod(PQgetvalue(res, i, 8), NULL);
		served = s->hits + s->coalesced;
		s->chosen = served >= opts->min_calls &&
			served * 100 >= s->calls * OBSERVE_MIN_SERVED_PCT;
		if (s->chosen)
		{
			f->nchosen++;
			f->served += served;
			f->saved_s_per_hour += s->saved_s_per_hour;
		}
	}
	PQclear(res);
	return true;
}

static double
pct(long long part, long long whole)
{
	return whole > 0 ? 100.0 * (double) part / (double) whole : 0;
}

static void
statement_line(const ObservedStatement *s, PQExpBuffer b)
{
	appendPQExpBuffer(b, "  query id %s: %.1f %% of %lld calls would have been served "
					  "(%lld hits, %lld of them by a window, %lld coalesced), %.2f s saved per hour: ",
					  s->queryid, pct(s->hits + s->coalesced, s->calls), s->calls,
					  s->hits, s->window_hits, s->coalesced, s->saved_s_per_hour);
	append_comment_text(b, s->query, QUERY_TEXT_MAX);
}

/*
 * The forecast as comment lines, without a comment marker and safe for
 * one: the verdict, the statements it rests on, then those left out.
 */
void
observe_forecast_lines(const Workload *w, StrList *lines)
{
	const ObserveForecast *f = &w->observe;
	PQExpBufferData b;
	int			pass;
	int			i;

	if (f->n == 0)
		return;
	initPQExpBuffer(&b);
	appendPQExpBuffer(&b, "observe mode (sfcache.cache = observe), counters of the last %.2f hours:",
					  f->hours);
	strlist_add(lines, b.data);
	resetPQExpBuffer(&b);
	if (f->nchosen > 0)
		appendPQExpBuffer(&b, "turn it on for these statements: %.1f %% of your reads, %.2f s saved per hour",
						  pct(f->served, f->reads), f->saved_s_per_hour);
	else
		appendPQExpBuffer(&b, "no statement would have been served %d %% of its calls: keep the cache off",
						  OBSERVE_MIN_SERVED_PCT);
	strlist_add(lines, b.data);
	for (pass = 0; pass < 2; pass++)
	{
		if (pass == 1 && f->nchosen < f->n)
		{
			resetPQExpBuffer(&b);
			appendPQExpBuffer(&b, "left out (served below %d %% of their calls, or fewer than --min-calls times):",
							  OBSERVE_MIN_SERVED_PCT);
			strlist_add(lines, b.data);
		}
		for (i = 0; i < f->n; i++)
		{
			if (f->stmts[i].chosen != (pass == 0))
				continue;
			resetPQExpBuffer(&b);
			statement_line(&f->stmts[i], &b);
			strlist_add(lines, b.data);
		}
	}
	termPQExpBuffer(&b);
}

/* Free w->observe. */
void
observe_free(Workload *w)
{
	int			i;

	for (i = 0; i < w->observe.n; i++)
	{
		free(w->observe.stmts[i].queryid);
		free(w->observe.stmts[i].query);
	}
	free(w->observe.stmts);
	memset(&w->observe, 0, sizeof(w->observe));
}
